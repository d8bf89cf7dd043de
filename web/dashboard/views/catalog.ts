import { html } from '../html.ts';

export function Catalog() {
  return html`<h1>Catalog</h1>`;
}
