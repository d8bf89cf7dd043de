// Agents: the sessions with their status, turns and usage; a session's transcript, followed live while a turn runs
// (each `agent.transcript` event says more was written: read from where the last page ended); cancel a running turn.
// Below, the agent__start and agent__resume calls that became MCP tasks, each linked to its session (long-calls.ts).
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeEvent } from '../../../src/sources/agents/describe-event.ts';
import { call } from '../api.ts';
import { useData, useReloadOn } from '../data.ts';
import { html } from '../html.ts';
import { useLive } from '../live.ts';
import { Badge, ErrorLine, Json, Loading, Pick } from '../parts.ts';
import { LongCalls } from './long-calls.ts';

const tokens = (u: any) => (u ? `${u.input_tokens ?? 0} in / ${u.output_tokens ?? 0} out` : '—');

function Transcript({ name }: { name: string }) {
  const [events, setEvents] = useState<any[]>([]);
  const [error, setError] = useState<string | undefined>(undefined);
  const next = useRef(0);
  const reading = useRef<Promise<void> | undefined>(undefined);
  const list = useRef<HTMLOListElement>(null);
  // One read at a time, each from where the last ended: events arrive in order, never twice.
  const readMore = () => {
    reading.current = (reading.current ?? Promise.resolve()).then(async () => {
      try {
        const page = await call('session.transcript', { session_name: name, from: next.current });
        next.current = page.next;
        if (page.events.length) setEvents((old) => [...old, ...page.events]);
      } catch (err) {
        setError((err as Error).message);
      }
    });
  };
  useEffect(() => {
    next.current = 0;
    reading.current = undefined;
    setEvents([]);
    readMore();
  }, [name]);
  useLive(['agent.transcript'], (_t, e) => e.session === name && readMore());
  useEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [events.length]);
  return html`<${ErrorLine} error=${error} />
    <ol class="transcript" ref=${list}>
      ${events.map((e, i) => {
        const line = describeEvent(e);
        return line === undefined
          ? null
          : html`<li key=${i} class=${`t-${e.type}`} data-event=${e.type}>
              <details><summary>${line}</summary><${Json} value=${e} /></details>
            </li>`;
      })}
    </ol>`;
}

function SessionDetail({ name }: { name: string }) {
  const status = useData(() => call('agent.status', { session_name: name }), [name]);
  useReloadOn(['agent.turn'], status.reload, 100, (e) => e.session === name);
  const [cancelError, setCancelError] = useState<string | undefined>(undefined);
  const s = status.data;
  const cancel = async () => {
    setCancelError(undefined);
    try {
      await call('agent.cancel', { session_name: name });
      status.reload();
    } catch (err) {
      setCancelError((err as Error).message);
    }
  };
  return html`<section class="panel" data-session=${name}>
    <h2>${name} ${s ? html`<${Badge} status=${s.status} />` : null}</h2>
    <${ErrorLine} error=${status.error ?? cancelError} />
    ${
      s
        ? html`<dl class="kv">
            <dt>turns</dt><dd>${s.turns}</dd>
            <dt>tool calls</dt><dd>${s.tool_calls}</dd>
            <dt>tokens</dt><dd>${tokens(s.usage)}</dd>
            ${s.error ? html`<dt>error</dt><dd class="error-text">${typeof s.error === 'string' ? s.error : JSON.stringify(s.error)}</dd>` : null}
          </dl>
          ${s.running ? html`<p><button class="danger cancel" onClick=${cancel}>Cancel the running turn</button></p>` : null}`
        : html`<${Loading} />`
    }
    <h2>Transcript</h2>
    <${Transcript} name=${name} />
  </section>`;
}

export function Agents({ route }: { route: string[] }) {
  const sessions = useData(() => call('session.list', { response_format: 'json' }));
  useReloadOn(['agent.turn'], sessions.reload);
  const selected = route[0];
  return html`<h1>Agents</h1>
    <${ErrorLine} error=${sessions.error} />
    <div class="split">
      <ul class="list sessions">
        ${sessions.data ? null : html`<${Loading} />`}
        ${sessions.data?.sessions.length === 0 ? html`<p class="muted">No sessions yet: agents start them with agent__start.</p>` : null}
        ${sessions.data?.sessions.map(
          (s: any) => html`<${Pick}
            key=${s.session_name}
            view="agents"
            id=${s.session_name}
            selected=${selected}
            attr="data-session"
            title=${s.session_name}
            status=${s.status}
            detail=${s.error ?? `${s.agent ?? '(no agent)'} · ${s.provider} · ${s.turns} turns · ${tokens(s.usage)}`}
          />`,
        )}
      </ul>
      ${selected ? html`<${SessionDetail} name=${selected} />` : html`<p class="muted">Pick a session to see its transcript.</p>`}
    </div>
    <${LongCalls} tools=${['agent__start', 'agent__resume']} empty="No agent__start or agent__resume call became an MCP task." />`;
}
