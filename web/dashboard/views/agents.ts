import { html } from '../html.ts';

export function Agents() {
  return html`<h1>Agents</h1>`;
}
