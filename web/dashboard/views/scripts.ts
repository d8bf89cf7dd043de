import { html } from '../html.ts';

export function Scripts() {
  return html`<h1>Scripts</h1>`;
}
