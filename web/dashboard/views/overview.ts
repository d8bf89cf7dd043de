// Overview: the hub's health, the registered instances, the upstream servers, task counts, and the call rate, error
// rate and latency of the last ten minutes, as charts moved by the stream's per-second `series` events.
import { useMemo, useState } from 'preact/hooks';
import type { SeriesPoint } from '../../../src/observe/metrics-series.ts';
import { call, lastAnswer, lastCall, request, type Session } from '../api.ts';
import { Chart } from '../chart.ts';
import { useCall, useData, useReloadOn } from '../data.ts';
import { html } from '../html.ts';
import { useLive } from '../live.ts';
import { Badge, ErrorLine, Loading, Time } from '../parts.ts';

/** One second of calls, as the hub's series gives it. */
type Point = SeriesPoint;

const KEEP = 600;

function Charts() {
  const [points, setPoints] = useState<Point[] | undefined>(
    () => lastAnswer<{ points: Point[] }>('GET', '/v1/ui/series')?.points,
  );
  const [error, setError] = useState<string | undefined>(undefined);
  useData(
    () =>
      request<{ points: Point[] }>('GET', '/v1/ui/series').then(
        (r) => setPoints(r.points),
        (err: Error) => setError(err.message),
      ),
    [],
  );
  useLive(['series'], (_t, fresh: Point[]) =>
    setPoints((old) => {
      if (!old) return old;
      const last = old[old.length - 1]?.t ?? 0;
      return [...old, ...fresh.filter((p) => p.t > last)].slice(-KEEP);
    }),
  );
  const data = useMemo(() => {
    const p = points ?? [];
    const t = p.map((x) => x.t / 1000);
    return {
      calls: [t, p.map((x) => x.calls)],
      errors: [t, p.map((x) => (x.calls ? Math.round((1000 * x.errors) / x.calls) / 10 : 0))],
      latency: [t, p.map((x) => x.p50), p.map((x) => x.p95)],
    };
  }, [points]);
  if (error) return html`<p class="muted">Call charts: ${error}</p>`;
  if (!points) return html`<${Loading} />`;
  return html`<section class="charts">
    <${Chart} title="Calls per second" unit="" lines=${[{ label: 'calls/s', color: '#3b82f6' }]} data=${data.calls} />
    <${Chart} title="Error rate" unit="%" lines=${[{ label: 'errors %', color: '#ef4444' }]} data=${data.errors} />
    <${Chart}
      title="Latency"
      unit="ms"
      lines=${[{ label: 'p50', color: '#10b981' }, { label: 'p95', color: '#f59e0b' }]}
      data=${data.latency}
    />
  </section>`;
}

/** The upstream servers; `actions` adds a column of buttons per server (the Servers view, for admins). */
export function ServerTable({ servers, actions }: { servers: any[]; actions?: (server: any) => unknown }) {
  if (!servers.length) return html`<p class="muted">No upstream servers configured.</p>`;
  return html`<div class="scroll"><table class="servers">
    <thead><tr><th>Server</th><th>Status</th><th>Tools</th><th>Round trip</th><th>Restarts</th><th>Last error</th>${actions ? html`<th></th>` : null}</tr></thead>
    <tbody>
      ${servers.map(
        (s) => html`<tr data-server=${s.name}>
          <td>${s.name}</td><td><${Badge} status=${s.status} /></td><td>${s.tools}${s.cached ? ' (cached)' : ''}${s.withheld ? html` <a class="warn-text" href="#/servers">(${s.withheld} withheld)</a>` : null}</td>
          <td>${s.rttMs === undefined ? '—' : `${Math.round(s.rttMs)} ms`}</td><td>${s.restarts}</td>
          <td class="error-text">${s.error ?? ''}</td>
          ${actions ? html`<td class="actions">${actions(s)}</td>` : null}
        </tr>`,
      )}
    </tbody>
  </table></div>`;
}

/** Files Switchboard found but could not load (system.health's `problems`): where, and why. */
function Problems({ problems }: { problems: any[] }) {
  if (!problems.length) return null;
  const at = (p: any) =>
    `${p.file}${p.line === undefined ? '' : `:${p.line}${p.column === undefined ? '' : `:${p.column}`}`}`;
  return html`<section class="problems">
    <h2>Files that failed to load <${Badge} status="degraded" /></h2>
    <ul class="plain">
      ${problems.map((p) => html`<li data-problem=${p.file}><span class="muted">${p.source}</span> <code>${at(p)}</code> <span class="error-text">${p.message}</span></li>`)}
    </ul>
  </section>`;
}

const SERVER_LIST = { action: 'list' };

export function Overview({ session }: { session: Session }) {
  const health = useCall('system.health');
  const state = useCall('system.get_state');
  const servers = useData(
    () => (session.admin ? call('system.servers', SERVER_LIST) : Promise.resolve(null)),
    [],
    () => (session.admin ? lastCall('system.servers', SERVER_LIST) : null),
  );
  useReloadOn(['task.changed', 'instance.registered', 'instance.expired'], state.reload, 500);
  useReloadOn(
    ['upstream.status', 'config.changed', 'problems.changed', 'upstream.withheld', 'upstream.approved'],
    () => {
      health.reload();
      servers.reload();
    },
  );
  const h = health.data;
  const s = state.data;
  return html`<h1>Overview</h1>
    <${ErrorLine} error=${health.error ?? state.error} />
    <div class="cards">
      <section class="card">
        <h2>Health ${h ? html`<${Badge} status=${h.status} />` : null}</h2>
        ${
          h
            ? html`<dl class="kv">
              ${Object.entries(h.services).map(([k, v]: [string, any]) => html`<dt>${k}</dt><dd><${Badge} status=${v.status} /> ${v.detail ?? ''}</dd>`)}
              <dt>uptime</dt><dd>${Math.round(h.uptimeMs / 1000)} s</dd>
              <dt>instance</dt><dd><code>${h.instanceId}</code></dd>
            </dl>`
            : html`<${Loading} />`
        }
      </section>
      <section class="card">
        <h2>Tasks</h2>
        ${
          s
            ? html`<dl class="kv counts">${Object.entries(s.tasks).map(([k, v]) => html`<dt><a href="#/tasks"><${Badge} status=${k} /></a></dt><dd data-count=${k}>${v}</dd>`)}</dl>`
            : html`<${Loading} />`
        }
      </section>
      <section class="card">
        <h2>Instances</h2>
        ${
          s
            ? s.instances.length
              ? html`<ul class="plain">${s.instances.map((i: any) => html`<li><code>${i.id}</code> ${i.roles.join(', ')} <span class="muted">until <${Time} at=${i.expiresAt} /></span></li>`)}</ul>`
              : html`<p class="muted">No agent instances registered.</p>`
            : html`<${Loading} />`
        }
      </section>
    </div>
    <${Problems} problems=${h?.problems ?? []} />
    <${Charts} />
    <section>
      <h2>Upstream servers</h2>
      ${
        session.admin
          ? servers.data
            ? html`<${ServerTable} servers=${servers.data.servers} />`
            : html`<${ErrorLine} error=${servers.error} />`
          : html`<p class="muted">${h?.services?.upstream?.detail ?? ''}</p>`
      }
    </section>`;
}
