// Small pieces every view uses.
import { html } from './html.ts';

export function Badge({ status }: { status: string }) {
  return html`<span class=${`badge s-${status.replace(/[^a-z_]/gi, '')}`}>${status.replaceAll('_', ' ')}</span>`;
}

/** A time as "12:03:04" with the full date on hover. */
export function Time({ at }: { at: string | number | null | undefined }) {
  if (at === null || at === undefined) return html`<span class="muted">—</span>`;
  const d = new Date(at);
  return html`<time datetime=${d.toISOString()} title=${d.toLocaleString()}>${d.toLocaleTimeString()}</time>`;
}

export function ErrorLine({ error }: { error: string | undefined }) {
  return error ? html`<p class="error" role="alert">${error}</p>` : null;
}

export function Json({ value }: { value: unknown }) {
  return html`<pre class="json">${typeof value === 'string' ? value : JSON.stringify(value, null, 2)}</pre>`;
}

export function Loading() {
  return html`<p class="muted">Loading…</p>`;
}

/** One entry of a master list (sessions, runs): opens `#/view/id`, marked while it is the one shown. */
export function Pick({
  view,
  id,
  selected,
  attr,
  title,
  status,
  detail,
}: {
  view: string;
  id: string;
  selected: string | undefined;
  /** The data attribute tests and styles find it by (`data-session`). */
  attr: string;
  title: string;
  status?: string;
  detail: unknown;
}) {
  const open = () => {
    location.hash = `#/${view}/${encodeURIComponent(id)}`;
  };
  return html`<li>
    <button class=${`item ${id === selected ? 'active' : ''}`} ...${{ [attr]: id }} onClick=${open}>
      <span><strong>${title}</strong> ${status ? html`<${Badge} status=${status} />` : null}</span>
      <span class="muted">${detail}</span>
    </button>
  </li>`;
}
