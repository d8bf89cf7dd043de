// Scripts: the runs (script.runs), and a run's stack with the step it waits on and the steps executed with their
// output. `script.changed` events (a run started, moved on a step, finished) reload what is shown. Below, the
// script__start calls that became MCP tasks, each linked to its run (long-calls.ts).
import { call } from '../api.ts';
import { useData, useReloadOn } from '../data.ts';
import { html } from '../html.ts';
import { Badge, ErrorLine, Loading, Pick, Time } from '../parts.ts';
import { LongCalls } from './long-calls.ts';

function Step({ step }: { step: any }) {
  const head =
    step.kind === 'auto'
      ? html`<code>${step.action}</code> ${step.ok ? html`<${Badge} status="ok" />` : html`<${Badge} status="failed" />`}${step.exitCode !== undefined ? html` <span class="muted">exit ${step.exitCode}</span>` : null}`
      : step.kind === 'call'
        ? html`<span class="muted">called</span> <code>${step.tool}</code>`
        : html`<span class="muted">answered</span> <code>${step.tool}</code>${step.ok ? null : html` <${Badge} status="error" />`}`;
  const output = step.output ?? (step.kind === 'call' ? JSON.stringify(step.input) : '');
  return html`<li data-step=${step.kind}>
    <details open=${step.kind === 'auto'}>
      <summary>${head}</summary>
      ${step.exception ? html`<pre class="json error-text">${step.exception}</pre>` : null}
      ${output ? html`<pre class="json">${output}</pre>` : null}
    </details>
  </li>`;
}

function RunDetail({ id }: { id: string }) {
  const run = useData(() => call('script.runs', { run_id: id }), [id]);
  useReloadOn(['script.changed'], run.reload, 150, (e) => e.id === id);
  const d = run.data;
  return html`<section class="panel" data-run=${id}>
    <${ErrorLine} error=${run.error} />
    ${
      d
        ? html`<h2>${d.run.name} <${Badge} status=${d.run.status} /></h2>
          <dl class="kv">
            <dt>run</dt><dd><code>${d.run.id}</code></dd>
            <dt>by</dt><dd>${d.run.principal}</dd>
            <dt>started</dt><dd><${Time} at=${d.run.createdAt} /></dd>
            <dt>updated</dt><dd><${Time} at=${d.run.updatedAt} /></dd>
          </dl>
          <h2>Stack</h2>
          ${
            d.live
              ? html`<ol class="stack">${d.live.stack.map((f: any) => html`<li data-frame=${f.label}><code>${f.label}</code> <span class="muted">${f.kind}${f.args ? ` · ${f.args}` : ''} · ${f.workingDir}</span></li>`)}</ol>
                ${
                  d.live.waiting
                    ? html`<h3>Waiting on: <${Badge} status=${d.live.waiting.kind} /></h3>${d.live.waiting.prompt ? html`<pre class="json waiting">${d.live.waiting.prompt}</pre>` : null}`
                    : d.live.busy
                      ? html`<p class="muted">Running its steps…</p>`
                      : null
                }`
              : html`<p class="muted">${d.run.status === 'finished' ? 'Finished: the stack is empty.' : 'Not held by this hub now (idle, or on another instance): its journal is below.'}</p>`
          }
          <h2>Steps executed</h2>
          ${d.steps.length ? html`<ol class="stack steps">${d.steps.map((s: any) => html`<${Step} step=${s} />`)}</ol>` : html`<p class="muted">No steps yet.</p>`}`
        : html`<${Loading} />`
    }
  </section>`;
}

export function Scripts({ route }: { route: string[] }) {
  const runs = useData(() => call('script.runs', { limit: 100 }));
  useReloadOn(['script.changed'], runs.reload, 300);
  const selected = route[0];
  return html`<h1>Scripts</h1>
    <${ErrorLine} error=${runs.error} />
    <div class="split">
      <ul class="list runs">
        ${runs.data ? null : html`<${Loading} />`}
        ${runs.data?.runs.length === 0 ? html`<p class="muted">No script runs yet: agents start them with script__start.</p>` : null}
        ${runs.data?.runs.map(
          (r: any) => html`<${Pick}
            key=${r.id}
            view="scripts"
            id=${r.id}
            selected=${selected}
            attr="data-run"
            title=${r.name}
            status=${r.status}
            detail=${html`${r.principal} · ${r.entries} entries · <${Time} at=${r.updatedAt} />`}
          />`,
        )}
      </ul>
      ${selected ? html`<${RunDetail} id=${selected} />` : html`<p class="muted">Pick a run to see its stack and steps.</p>`}
    </div>
    <${LongCalls} tools=${['script__start']} empty="No script__start call became an MCP task." />`;
}
