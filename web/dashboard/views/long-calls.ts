// Long calls: the MCP tasks (system.mcp_tasks, docs/tasks.md) — tool calls a 2026-07-28 client turned into tasks it
// polls — with their status beside the script run or agent session each works on, linked to it. A table of its own
// view (every tool, filtered by status), and the same table on the Scripts and Agents views for their tools.
// `mcp_task.changed` events (a task was created or changed state) reload it, coalesced.
import { useState } from 'preact/hooks';
import { useCall, useReloadOn } from '../data.ts';
import { html } from '../html.ts';
import { Badge, ErrorLine, Loading, Time } from '../parts.ts';

const STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'];

/** Where a task's subject is shown, by its kind. */
const SUBJECT_VIEWS: Record<string, { view: string; label: string }> = {
  script_run: { view: 'scripts', label: 'script run' },
  agent_session: { view: 'agents', label: 'session' },
};

const toolKey = (tool: string) => tool.replaceAll('.', '__');

function Subject({ subject }: { subject: { kind: string; id: string } | null }) {
  const where = subject ? SUBJECT_VIEWS[subject.kind] : undefined;
  if (!subject || !where) return html`<span class="muted">—</span>`;
  return html`<a href=${`#/${where.view}/${encodeURIComponent(subject.id)}`} data-subject=${subject.kind}>
    <span class="muted">${where.label}</span> <code>${subject.id}</code>
  </a>`;
}

/**
 * The MCP tasks of `tools` (every tool when absent) in `status` (any when absent), newest first, at most `limit`.
 * `empty` says what shows when there are none.
 */
export function LongCallTable({
  tools,
  status,
  limit = 20,
  empty,
}: {
  tools?: string[];
  status?: string[];
  limit?: number;
  empty: string;
}) {
  const input = { ...(tools ? { tool: tools } : {}), ...(status ? { status } : {}), limit };
  const tasks = useCall('system.mcp_tasks', input);
  const wanted = tools && new Set(tools.map(toolKey));
  useReloadOn(['mcp_task.changed'], tasks.reload, 250, (e) => !wanted || wanted.has(toolKey(String(e.tool))));
  const d = tasks.data;
  return html`<${ErrorLine} error=${tasks.error} />
    ${d ? null : html`<${Loading} />`}
    ${d?.problems.map((p: any) => html`<p class="error" role="alert" data-problem=${p.id}>${p.error}</p>`)}
    ${d && !d.tasks.length ? html`<p class="muted">${empty}</p>` : null}
    ${
      d?.tasks.length
        ? html`<div class="scroll"><table class="mcp-tasks">
          <thead><tr><th>Started</th><th>Tool</th><th>Status</th><th>Belongs to</th><th>By</th><th>Updated</th><th>Error</th></tr></thead>
          <tbody>${d.tasks.map(
            (t: any) => html`<tr key=${t.id} data-mcp-task=${t.id} data-status=${t.status}>
              <td><${Time} at=${t.createdAt} /></td>
              <td><code>${t.tool}</code></td>
              <td><${Badge} status=${t.status} />${t.statusMessage ? html` <span class="muted">${t.statusMessage}</span>` : null}</td>
              <td><${Subject} subject=${t.subject} /></td>
              <td>${t.principal}</td>
              <td><${Time} at=${t.lastUpdatedAt} /></td>
              <td class="error-text">${t.error ?? ''}</td>
            </tr>`,
          )}</tbody>
        </table></div>
        ${d.total > d.tasks.length ? html`<p class="muted">The newest ${d.tasks.length} of ${d.total}.</p>` : null}`
        : null
    }`;
}

/** The Scripts and Agents views' section: the long calls of their own tools. */
export function LongCalls({ tools, empty }: { tools: string[]; empty: string }) {
  return html`<section class="long-calls" data-tools=${tools.join(' ')}>
    <h2>Long calls (MCP tasks)</h2>
    <${LongCallTable} tools=${tools} empty=${empty} />
  </section>`;
}

export function LongCallsView() {
  const [status, setStatus] = useState<string | undefined>(undefined);
  return html`<h1>Long calls (MCP tasks)</h1>
    <p class="muted">
      Tool calls a client made into tasks it polls (MCP's tasks extension, protocol 2026-07-28): yours; an admin sees
      everyone's. Kept an hour, and at least ten minutes after they end.
    </p>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <select
        name="status"
        aria-label="Status"
        onChange=${(e: Event) => setStatus((e.target as HTMLSelectElement).value || undefined)}
      >
        <option value="">any status</option>
        ${STATUSES.map((s) => html`<option value=${s}>${s.replaceAll('_', ' ')}</option>`)}
      </select>
    </form>
    <${LongCallTable}
      status=${status ? [status] : undefined}
      limit=${100}
      empty="No MCP tasks: a call becomes one when a client that declared the tasks extension makes a long call (script__start, agent__start, a plugin hook…)."
    />`;
}
