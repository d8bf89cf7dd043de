import { html } from '../html.ts';

export function Audit() {
  return html`<h1>Audit</h1>`;
}
