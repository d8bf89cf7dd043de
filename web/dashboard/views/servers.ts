import { html } from '../html.ts';

export function Servers() {
  return html`<h1>Servers</h1>`;
}
