// Tasks: the board as one column per status, each a server-side page (task.list, 50 at a time, "More" follows the
// cursor), so 10,000 tasks never reach the page at once. task.changed events reload the board (coalesced), keeping
// as many rows as were loaded: the counts and every column in one read, shown together, so a column's count always
// belongs to the rows beneath it. #/tasks/ID shows a task with its history and result.
import { useState } from 'preact/hooks';
import { call, lastCall, request } from '../api.ts';
import { useData, useReloadOn } from '../data.ts';
import { html } from '../html.ts';
import { useLive } from '../live.ts';
import { Badge, ErrorLine, Json, Loading, Time } from '../parts.ts';

const STATUSES = ['pending', 'assigned', 'in_progress', 'completed', 'failed'];
const PAGE = 50;
/** Rows of a column the board keeps live (task.list's largest page); "More" beyond reads further pages once. */
const LIVE_ROWS = 500;

interface Filter {
  type?: string;
  assignedTo?: string;
}

interface Page {
  tasks: any[];
  nextCursor: string | null;
}

function Column({
  status,
  filter,
  page,
  count,
  onMore,
}: {
  status: string;
  filter: Filter;
  page: Page | undefined;
  count: number | undefined;
  /** Read more rows live; false when the column holds LIVE_ROWS already. */
  onMore: () => boolean;
}) {
  const [extra, setExtra] = useState<{ tasks: any[]; cursor: string | null }>({ tasks: [], cursor: null });
  const tasks = page ? [...page.tasks, ...extra.tasks] : [];
  const cursor = extra.tasks.length ? extra.cursor : page?.nextCursor;
  const more = async () => {
    if (onMore()) return;
    const next = await call('task.list', { status: [status], limit: PAGE, cursor, ...filter });
    setExtra({ tasks: [...extra.tasks, ...next.tasks], cursor: next.nextCursor });
  };
  return html`<section class="column" data-status=${status}>
    <h2><${Badge} status=${status} /> <span class="muted">${count ?? ''}</span></h2>
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

/** The counts (system.get_state) and each column's first rows (task.list), read together. */
function useBoard(filter: Filter, shown: Record<string, number>) {
  const lists = STATUSES.map((s) => ({ status: [s], limit: Math.min(LIVE_ROWS, shown[s] ?? PAGE), ...filter }));
  const board = useData(
    async () => {
      const [state, ...pages] = await Promise.all([
        call('system.get_state'),
        ...lists.map((input) => call<Page>('task.list', input)),
      ]);
      return { counts: state.tasks as Record<string, number>, pages };
    },
    [JSON.stringify(lists)],
    () => {
      const counts = lastCall('system.get_state')?.tasks;
      const pages = lists.map((input) => lastCall<Page>('task.list', input));
      return counts && pages.every((p) => p) ? { counts, pages: pages as Page[] } : undefined;
    },
  );
  useReloadOn(['task.changed'], board.reload, 250);
  return board;
}

function Board({ filter }: { filter: Filter }) {
  const [shown, setShown] = useState<Record<string, number>>({});
  const board = useBoard(filter, shown);
  const more = (status: string) => () => {
    const now = shown[status] ?? PAGE;
    if (now >= LIVE_ROWS) return false;
    setShown({ ...shown, [status]: Math.min(LIVE_ROWS, now + PAGE) });
    return true;
  };
  return html`<${ErrorLine} error=${board.error} />
    <div class="board">
      ${STATUSES.map(
        (s, i) =>
          html`<${Column}
            key=${s}
            status=${s}
            filter=${filter}
            page=${board.data?.pages[i]}
            count=${board.data?.counts[s]}
            onMore=${more(s)}
          />`,
      )}
    </div>`;
}

export function Tasks({ route }: { route: string[] }) {
  const [filter, setFilter] = useState<Filter>({});
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
    <${Board} key=${JSON.stringify(filter)} filter=${filter} />`;
}
