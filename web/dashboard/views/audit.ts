// Audit (admins): the audit trail through system.audit — filtered and paged by the hub, newest first, so 100,000
// records cost one indexed page each — and the live event stream as it arrives.
import { useState } from 'preact/hooks';
import { call } from '../api.ts';
import { useData } from '../data.ts';
import { html } from '../html.ts';
import { useLive } from '../live.ts';
import { Badge, ErrorLine, Loading, Time } from '../parts.ts';

interface Query {
  principal?: string;
  tool?: string;
  outcome?: string;
  since?: string;
  until?: string;
}

const LIVE_KEEP = 200;

function LiveEvents() {
  const [events, setEvents] = useState<{ type: string; data: any; n: number }[]>([]);
  const [n, setN] = useState(0);
  useLive([], (type, data) => {
    if (type === 'series') return;
    setN((x) => x + 1);
    setEvents((old) => [{ type, data, n: old.length ? old[0].n + 1 : 1 }, ...old].slice(0, LIVE_KEEP));
  });
  return html`<section>
    <h2>Live events <span class="muted">${n} since this page opened</span></h2>
    <div class="scroll"><table class="events">
      <thead><tr><th>Time</th><th>Type</th><th>What</th></tr></thead>
      <tbody>${events.map(
        (e) => html`<tr key=${e.n} data-event=${e.type}>
          <td><${Time} at=${e.data.at} /></td><td>${e.type}</td>
          <td>${e.type === 'call' ? `${e.data.principal} → ${e.data.name} ${e.data.error ? `✗ ${e.data.error.code}` : '✓'} ${Math.round(e.data.durationMs)} ms` : JSON.stringify(e.data)}</td>
        </tr>`,
      )}</tbody>
    </table></div>
  </section>`;
}

export function Audit() {
  const [query, setQuery] = useState<Query>({});
  const [limit, setLimit] = useState(50);
  /** Cursors of the pages before this one (Previous pops), and this page's. */
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useData(
    () => call('system.audit', { ...query, limit, ...(cursor ? { cursor } : {}) }),
    [JSON.stringify(query), limit, cursor],
  );
  const onFilter = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const text = (k: string) => String(form.get(k) ?? '').trim() || undefined;
    const time = (k: string) => (text(k) ? new Date(text(k) as string).toISOString() : undefined);
    setQuery({
      principal: text('principal'),
      tool: text('tool'),
      outcome: text('outcome'),
      since: time('since'),
      until: time('until'),
    });
    setLimit(Number(form.get('limit')) || 50);
    setCursors([undefined]);
  };
  const records: any[] = page.data?.records ?? [];
  return html`<h1>Audit</h1>
    <form class="filters audit-filters" onSubmit=${onFilter}>
      <input name="principal" placeholder="principal" aria-label="Principal" />
      <input name="tool" placeholder="tool (task.create)" aria-label="Tool" />
      <select name="outcome" aria-label="Outcome"><option value="">any outcome</option><option>ok</option><option>error</option></select>
      <label>since <input type="datetime-local" name="since" /></label>
      <label>until <input type="datetime-local" name="until" /></label>
      <select name="limit" aria-label="Page size"><option>50</option><option>100</option><option>500</option></select>
      <button type="submit">Filter</button>
    </form>
    <${ErrorLine} error=${page.error} />
    <div class="pager">
      <button disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Previous</button>
      <span>Page ${cursors.length}</span>
      <button class="next" disabled=${!page.data?.nextCursor} onClick=${() => setCursors([...cursors, page.data.nextCursor])}>Next</button>
      <button class="link" onClick=${page.reload}>Refresh</button>
    </div>
    ${page.data ? null : html`<${Loading} />`}
    <div class="scroll"><table class="audit">
      <thead><tr><th>Time</th><th>Principal</th><th>Via</th><th>Tool</th><th>Outcome</th><th>ms</th><th>Input</th><th>Trace</th></tr></thead>
      <tbody>${records.map(
        (r) => html`<tr key=${r.seq} data-seq=${r.seq}>
          <td><${Time} at=${r.at} /></td><td>${r.principal}</td><td>${r.transport}</td><td><code>${r.capability}</code></td>
          <td>${r.outcome === 'ok' ? html`<${Badge} status="ok" />` : html`<${Badge} status="error" /> ${r.errorCode}`}</td>
          <td>${r.durationMs.toFixed(1)}</td><td><code class="clip" title=${r.input}>${r.input}</code></td>
          <td>${r.traceId ? html`<code class="trace" title=${`W3C trace ${r.traceId}`}>${r.traceId}</code>` : null}</td>
        </tr>`,
      )}</tbody>
    </table></div>
    ${page.data && !records.length ? html`<p class="muted">No records match.</p>` : null}
    <${LiveEvents} />`;
}
