// Live updates: one EventSource on /v1/ui/events for the page, opened with a single-use ticket (an EventSource
// cannot send the token as a header, and a token in a URL would end up in logs). When the stream drops, a new
// ticket opens a new one; views re-read what they show when it comes back.
import { useEffect, useRef, useState } from 'preact/hooks';
import { request } from './api.ts';

/** The event types the hub publishes (EventSource dispatches named events only to listeners of that name). */
const TYPES = [
  'call',
  'task.changed',
  'agent.turn',
  'agent.transcript',
  'script.changed',
  'mcp_task.changed',
  'instance.registered',
  'instance.expired',
  'upstream.status',
  'config.changed',
  'registry.changed',
  'plugins.discovered',
  'series',
];

export type LiveState = 'connecting' | 'live' | 'offline';
type Listener = (type: string, data: any) => void;

const listeners = new Set<Listener>();
const stateListeners = new Set<(s: LiveState) => void>();
let state: LiveState = 'connecting';
let source: EventSource | undefined;
let retry: ReturnType<typeof setTimeout> | undefined;
let delay = 500;
let stopped = true;

function setState(next: LiveState): void {
  state = next;
  for (const l of stateListeners) l(next);
}

async function open(): Promise<void> {
  if (stopped) return;
  setState(state === 'live' ? 'connecting' : state);
  try {
    const { ticket } = await request<{ ticket: string }>('POST', '/v1/ui/ticket');
    if (stopped) return;
    const es = new EventSource(`/v1/ui/events?ticket=${encodeURIComponent(ticket)}`);
    source = es;
    es.onopen = () => {
      delay = 500;
      setState('live');
    };
    es.onerror = () => {
      // The ticket is spent: the browser's own reconnect would be refused, so reopen with a new one.
      es.close();
      if (source === es) source = undefined;
      setState('offline');
      schedule();
    };
    for (const type of TYPES)
      es.addEventListener(type, (e) => {
        const data = JSON.parse((e as MessageEvent).data);
        for (const l of listeners) l(type, data);
      });
  } catch {
    setState('offline');
    schedule();
  }
}

function schedule(): void {
  if (stopped || retry) return;
  retry = setTimeout(() => {
    retry = undefined;
    void open();
  }, delay);
  delay = Math.min(delay * 2, 10_000);
}

export function startLive(): void {
  if (!stopped) return;
  stopped = false;
  void open();
}

export function stopLive(): void {
  stopped = true;
  source?.close();
  source = undefined;
  if (retry) clearTimeout(retry);
  retry = undefined;
}

/** Run `fn` for each live event whose type is in `types` (or every event when `types` is empty). */
export function useLive(types: string[], fn: Listener): void {
  const ref = useRef(fn);
  ref.current = fn;
  const key = types.join(',');
  useEffect(() => {
    const wanted = new Set(key ? key.split(',') : []);
    const l: Listener = (type, data) => {
      if (!wanted.size || wanted.has(type)) ref.current(type, data);
    };
    listeners.add(l);
    return () => listeners.delete(l);
  }, [key]);
}

/** The stream's state, for the indicator in the header; views reload when it turns live again. */
export function useLiveState(): LiveState {
  const [s, set] = useState(state);
  useEffect(() => {
    stateListeners.add(set);
    set(state);
    return () => stateListeners.delete(set);
  }, []);
  return s;
}
