// Tasks: the board as one column per status, each a server-side page (task.list, 50 at a time, "More" follows the
// cursor), so 10,000 tasks never reach the page at once. task.changed events reload the columns shown (coalesced),
// keeping as many rows as were loaded. #/tasks/ID shows a task with its history and result.
import { useState } from 'preact/hooks';
import { call, request } from '../api.ts';
import { useData, useReloadOn } from '../data.ts';
import { html } from '../html.ts';
import { useLive } from '../live.ts';
import { Badge, ErrorLine, Json, Loading, Time } from '../parts.ts';

const STATUSES = ['pending', 'assigned', 'in_progress', 'completed', 'failed'];
const PAGE = 50;

interface Filter {
  type?: string;
  assignedTo?: string;
}

function Column({ status, filter, count }: { status: string; filter: Filter; count: number | undefined }) {
  const [shown, setShown] = useState(PAGE);
  const [extra, setExtra] = useState<{ tasks: any[]; cursor: string | null }>({ tasks: [], cursor: null });
  const first = useData(
    () => call('task.list', { status: [status], limit: Math.min(500, shown), ...filter }),
    [status, filter.type, filter.assignedTo, shown],
  );
  useReloadOn(['task.changed'], first.reload, 250);
  const page = first.data;
  const tasks = page ? [...page.tasks, ...extra.tasks] : [];
  const cursor = extra.tasks.length ? extra.cursor : page?.nextCursor;
  const more = async () => {
    // Up to 500 rows the column reloads them live; beyond, further pages are read once.
    if (shown < 500) return setShown(Math.min(500, shown + PAGE));
    const next = await call('task.list', { status: [status], limit: PAGE, cursor, ...filter });
    setExtra({ tasks: [...extra.tasks, ...next.tasks], cursor: next.nextCursor });
  };
  return html`<section class="column" data-status=${status}>
    <h2><${Badge} status=${status} /> <span class="muted">${count ?? ''}</span></h2>
    <${ErrorLine} error=${first.error} />
    ${page ? null : html`<${Loading} />`}
    <ul class="task-list">
      ${tasks.map(
        (t) => html`<li key=${t.id} data-task=${t.id}>
          <a href=${`#/tasks/${encodeURIComponent(t.id)}`}>
            <span class="text">${t.text}</span>
            <span class="meta muted">P${t.priority}${t.assignedTo ? ` · ${t.assignedTo}` : ''}${t.type ? ` · ${t.type}` : ''}</span>
          </a>
        </li>`,
      )}
    </ul>
    ${cursor ? html`<button class="link" onClick=${more}>More</button>` : null}
  </section>`;
}

function TaskDetail({ id }: { id: string }) {
  const task = useData(() => call('task.get', { id }), [id]);
  const history = useData(
    () => request<{ events: any[] }>('GET', `/v1/ui/task-history?id=${encodeURIComponent(id)}`),
    [id],
  );
  useLive(['task.changed'], (_type, e) => {
    if (e.id !== id) return;
    task.reload();
    history.reload();
  });
  const t = task.data;
  return html`<p><a href="#/tasks">← Board</a></p>
    <${ErrorLine} error=${task.error} />
    ${
      t
        ? html`<article class="detail" data-task=${t.id}>
          <h1>${t.text}</h1>
          <dl class="kv">
            <dt>id</dt><dd><code>${t.id}</code></dd>
            <dt>status</dt><dd><${Badge} status=${t.status} /></dd>
            <dt>priority</dt><dd>${t.priority}</dd>
            <dt>type</dt><dd>${t.type ?? '—'}</dd>
            <dt>assigned to</dt><dd>${t.assignedTo ?? '—'}</dd>
            <dt>created</dt><dd><${Time} at=${t.createdAt} /> by ${t.createdBy ?? '—'}</dd>
            <dt>updated</dt><dd><${Time} at=${t.updatedAt} /></dd>
            <dt>finished</dt><dd><${Time} at=${t.completedAt} /> ${t.completedBy ? `by ${t.completedBy}` : ''}</dd>
            ${t.error ? html`<dt>error</dt><dd class="error-text">${t.error}</dd>` : null}
          </dl>
          <h2>History</h2>
          ${
            history.data?.events.length
              ? html`<ol class="history">${history.data.events.map((e) => html`<li><${Time} at=${e.at} /> ${e.action} → <${Badge} status=${e.status} /></li>`)}</ol>`
              : html`<p class="muted">No changes in the event log (it keeps the latest [events] retain events).</p>`
          }
          <h2>Result</h2>
          ${t.result === null || t.result === undefined ? html`<p class="muted">No result yet.</p>` : html`<${Json} value=${t.result} />`}
          ${t.metadata ? html`<h2>Metadata</h2><${Json} value=${t.metadata} />` : null}
          ${t.assessment ? html`<h2>Assessment</h2><${Json} value=${t.assessment} />` : null}
        </article>`
        : html`<${Loading} />`
    }`;
}

export function Tasks({ route }: { route: string[] }) {
  const [filter, setFilter] = useState<Filter>({});
  const state = useData(() => call('system.get_state'));
  useReloadOn(['task.changed'], state.reload, 500);
  if (route[0]) return html`<${TaskDetail} id=${route[0]} />`;
  const onFilter = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    const pick = (k: string) => String(form.get(k) ?? '').trim() || undefined;
    setFilter({ type: pick('type'), assignedTo: pick('assignedTo') });
  };
  return html`<h1>Tasks</h1>
    <form class="filters" onSubmit=${onFilter}>
      <input name="type" placeholder="type" aria-label="Task type" />
      <input name="assignedTo" placeholder="assigned to (instance)" aria-label="Assigned to" />
      <button type="submit">Filter</button>
    </form>
    <div class="board">
      ${STATUSES.map((s) => html`<${Column} key=${s} status=${s} filter=${filter} count=${state.data?.tasks[s]} />`)}
    </div>`;
}
