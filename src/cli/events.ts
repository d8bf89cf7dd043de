// `switchboard events tail`: follow a running server's event stream (GET /v1/events) and print each event.
import type { BusEvent } from '../core/context.ts';
import { CliError, colour } from './output.ts';
import { refusedBy, remoteFailure, remoteToken } from './remote-errors.ts';

function line(event: BusEvent): string {
  const time = String(event.at).slice(11, 23);
  if (event.type === 'call') {
    const e = event as Extract<BusEvent, { type: 'call' }>;
    const status = e.error ? colour().red(`${e.error.code} ${e.error.message}`) : colour().green('ok');
    return `${colour().dim(time)} ${colour().bold(e.name)} ${colour().dim(`${e.transport}/${e.principal}`)} ${e.durationMs.toFixed(1)}ms ${status}`;
  }
  const { type, at: _at, ...rest } = event;
  return `${colour().dim(time)} ${colour().cyan(type)} ${JSON.stringify(rest)}`;
}

export async function eventsTail(opts: {
  token?: string;
  url: string;
  recent?: string;
  json?: boolean;
  limit?: string;
}): Promise<void> {
  const base = new URL(opts.url);
  base.pathname = `${base.pathname.replace(/\/mcp\/?$/, '').replace(/\/$/, '')}/v1/events`;
  if (opts.recent) base.searchParams.set('recent', opts.recent);
  const max = opts.limit ? Number(opts.limit) : Number.POSITIVE_INFINITY;
  let res: Response;
  const token = remoteToken(opts.token);
  try {
    res = await fetch(base, {
      headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
  } catch (err) {
    throw remoteFailure(base, err, token !== undefined);
  }
  if (!res.ok || !res.body) {
    const reason = await res
      .json()
      .then((b: { error?: { message?: string } }) => b.error?.message)
      .catch(() => undefined);
    throw (
      refusedBy(base, res.status, reason, token !== undefined) ??
      new CliError(`${base} answered ${res.status} ${res.statusText}${reason ? `: ${reason}` : '.'}`)
    );
  }
  const decoder = new TextDecoder();
  let buffer = '';
  let seen = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let idx = buffer.indexOf('\n\n');
    while (idx >= 0) {
      const frame = buffer.slice(0, idx);
      buffer = buffer.slice(idx + 2);
      const lines = frame.split('\n');
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      // The server ends the stream with why (the token was revoked): say so and fail, rather than end quietly.
      if (data && lines.includes('event: end')) {
        const why = (JSON.parse(data) as { error?: { message?: string } }).error?.message;
        throw new CliError(`${base} ended the stream: ${why ?? 'no reason given'}`);
      }
      if (data) {
        const event = JSON.parse(data) as BusEvent;
        process.stdout.write(`${opts.json ? JSON.stringify(event) : line(event)}\n`);
        if (++seen >= max) process.exit(0);
      }
      idx = buffer.indexOf('\n\n');
    }
  }
}
