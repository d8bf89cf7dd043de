// Test helper: a fake Anthropic Messages API on 127.0.0.1 with scripted replies, streaming (SSE) and not.
// Real clients (the `claude` binary, @anthropic-ai/sdk) talk to it through ANTHROPIC_BASE_URL; it records every request.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delayReply, readBody } from './fake-api.ts';

/** One content block of a scripted reply. `id` of a tool_use defaults to a fresh `toolu_…`. */
export type FakeBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown>; id?: string };

/** A scripted reply: a plain string is one text block. */
export type FakeReply =
  | string
  | {
      content: FakeBlock[];
      /** Default: `tool_use` when a tool_use block is present, else `end_turn`. */
      stop_reason?: string;
      usage?: { input_tokens?: number; output_tokens?: number };
      /** Wait this long before answering (cancel tests). */
      delayMs?: number;
      /** Hold the answer until this settles, e.g. a gate's `opened` (test/helpers/gate.ts): "still running" on cue. */
      hold?: Promise<unknown>;
      /** Answer with this HTTP error status and message instead (rate limits, overload). */
      error?: { status: number; type?: string; message: string };
    };

/** A request the fake received (every path, side calls included). */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or undefined for bodiless requests. */
  body: any;
  /** Whether it was a `/v1/messages` call that the scripted replies answer (not a side call). */
  scripted: boolean;
}

/** Decides the reply for one main-model `POST /v1/messages` (overrides the queue when set). */
export type Responder = (req: RecordedRequest, index: number) => FakeReply | Promise<FakeReply>;

export interface FakeAnthropicOptions {
  /** Replies for main-model calls, used in order. */
  replies?: FakeReply[];
  /** Computes each reply instead of (or after) the queue. */
  respond?: Responder;
  /** What to answer when the queue is empty and no responder is set (default: "ok"). */
  fallback?: FakeReply;
  /**
   * Answer side calls (quota probe, Claude Code's tool-less helper queries) with a neutral reply outside the
   * script (default true). Set false when a scripted turn itself carries no tools.
   */
  sideCalls?: boolean;
}

export interface FakeAnthropic {
  /** Base URL for ANTHROPIC_BASE_URL / the SDK's `baseURL`, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** The main-model `POST /v1/messages` requests (the ones scripted replies answered). */
  messages(): RecordedRequest[];
  /** Append replies to the queue. */
  enqueue(...replies: FakeReply[]): void;
  /** Replace the responder (undefined: back to the queue). */
  respond(fn: Responder | undefined): void;
  /** Requests whose client hung up before the (delayed) answer: a cancel reached the wire. */
  hungUp(): number;
  close(): Promise<void>;
}

/**
 * Whether a messages request is a side call rather than the agent's turn: the quota probe (`max_tokens: 1`), and
 * tool-less helper queries of Claude Code (it sends its agent turns with its tools, always; a call from it
 * without tools is a helper — 2.1.x asks for a session title when given `--session-id`), or tool-less calls to a
 * haiku model. They get a neutral answer and leave the queue alone, so a script counts only the agent's turns.
 */
function isSideCall(body: any, headers: Record<string, string | string[] | undefined>): boolean {
  if (!body || typeof body !== 'object') return false;
  if (body.max_tokens === 1) return true;
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  if (hasTools) return false;
  const fromClaudeCode = headers['x-app'] === 'cli' || /claude-cli/.test(String(headers['user-agent'] ?? ''));
  return fromClaudeCode || /haiku/i.test(String(body.model ?? ''));
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_fake${Date.now().toString(36)}${(counter++).toString(36)}`;

function normalise(reply: FakeReply): Exclude<FakeReply, string> {
  return typeof reply === 'string' ? { content: [{ type: 'text', text: reply }] } : reply;
}

/** The Messages API `message` object for a reply. */
function messageOf(reply: Exclude<FakeReply, string>, model: string) {
  const content = reply.content.map((b) =>
    b.type === 'text'
      ? { type: 'text', text: b.text }
      : { type: 'tool_use', id: b.id ?? nextId('toolu'), name: b.name, input: b.input },
  );
  const stop = reply.stop_reason ?? (content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
  return {
    id: nextId('msg'),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: {
      input_tokens: reply.usage?.input_tokens ?? 10,
      output_tokens: reply.usage?.output_tokens ?? 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

function sse(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Stream a message the way the real API does: start, one block at a time with deltas, delta, stop. */
function stream(res: ServerResponse, message: ReturnType<typeof messageOf>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const { content, usage, stop_reason } = message;
  sse(res, 'message_start', {
    type: 'message_start',
    message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
  });
  sse(res, 'ping', { type: 'ping' });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      const text = (block as { text: string }).text;
      // Two deltas when there is text enough, as the real API splits text into chunks.
      const half = Math.ceil(text.length / 2);
      for (const part of text.length > 1 ? [text.slice(0, half), text.slice(half)] : [text]) {
        sse(res, 'content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: part },
        });
      }
    } else {
      const b = block as { id: string; name: string; input: unknown };
      sse(res, 'content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
      });
      sse(res, 'content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) },
      });
    }
    sse(res, 'content_block_stop', { type: 'content_block_stop', index });
  });
  sse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': nextId('req') });
  res.end(JSON.stringify(body));
}

/**
 * Start a fake Anthropic Messages API on 127.0.0.1 (a free port).
 *
 * @example
 * const api = await startFakeAnthropic({ replies: [
 *   { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo hi' } }] },
 *   'All done.',
 * ] });
 * // ANTHROPIC_BASE_URL=api.url ANTHROPIC_API_KEY=x claude -p hi --output-format stream-json --verbose
 * api.messages()[1].body.messages; // the tool_result the client sent back
 * await api.close();
 */
export async function startFakeAnthropic(opts: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const queue: FakeReply[] = [...(opts.replies ?? [])];
  let responder = opts.respond;
  const requests: RecordedRequest[] = [];
  let scriptedCount = 0;
  let hungUp = 0;

  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'body is not JSON' } });
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    const isMessages = method === 'POST' && path === '/v1/messages';
    const record: RecordedRequest = {
      method,
      path,
      headers: req.headers,
      body,
      scripted: isMessages && !(opts.sideCalls !== false && isSideCall(body, req.headers)),
    };
    requests.push(record);
    // Claude Code probes reachability with HEAD / before its first call.
    if (method === 'HEAD' || (method === 'GET' && path === '/')) {
      res.writeHead(200).end();
      return;
    }
    if (method === 'POST' && path === '/v1/messages/count_tokens') {
      json(res, 200, { input_tokens: Math.max(1, Math.round(raw.length / 4)) });
      return;
    }
    if (!isMessages) {
      // Anything else (telemetry, model lists) gets an empty success so the client carries on.
      json(res, 200, path.startsWith('/v1/models') ? { data: [], has_more: false } : {});
      return;
    }
    const model = String(body?.model ?? 'claude-fake');
    let reply: Exclude<FakeReply, string>;
    if (!record.scripted) {
      reply = normalise(body?.max_tokens === 1 ? '.' : 'Side answer');
    } else {
      const index = scriptedCount++;
      const next = queue.length ? queue.shift() : undefined;
      reply = normalise(next ?? (responder ? await responder(record, index) : (opts.fallback ?? 'ok')));
    }
    if (reply.hold) await reply.hold;
    if (reply.delayMs && !(await delayReply(res, reply.delayMs))) {
      hungUp++;
      return;
    }
    if (reply.error) {
      json(res, reply.error.status, {
        type: 'error',
        error: { type: reply.error.type ?? 'api_error', message: reply.error.message },
      });
      return;
    }
    const message = messageOf(reply, model);
    if (body?.stream) stream(res, message);
    else json(res, 200, message);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    messages: () => requests.filter((r) => r.scripted),
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    respond: (fn) => {
      responder = fn;
    },
    hungUp: () => hungUp,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
