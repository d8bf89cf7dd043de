// Test helper: a fake OpenAI chat-completions endpoint on 127.0.0.1 with scripted replies, streaming and not.
// The `openai` package (or any OpenAI-compatible client) talks to it through `baseURL`; it records every request.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delayReply, type RecordedJsonRequest, recordJsonRequest } from './fake-api.ts';

/** A scripted reply: a plain string is the assistant's text. */
export type FakeChatReply =
  | string
  | {
      content?: string;
      tool_calls?: { name: string; arguments: Record<string, unknown> | string; id?: string }[];
      /** Default: `tool_calls` when tool calls are present, else `stop`. */
      finish_reason?: string;
      usage?: { prompt_tokens?: number; completion_tokens?: number };
      delayMs?: number;
      /** Answer with this HTTP error instead. */
      error?: { status: number; message: string };
    };

/** A request the fake received (every path). */
export type RecordedChatRequest = RecordedJsonRequest;

export type ChatResponder = (req: RecordedChatRequest, index: number) => FakeChatReply | Promise<FakeChatReply>;

export interface FakeOpenAI {
  /** Base URL including `/v1`, for the `openai` package's `baseURL`. */
  url: string;
  requests: RecordedChatRequest[];
  /** The `POST /v1/chat/completions` requests. */
  completions(): RecordedChatRequest[];
  enqueue(...replies: FakeChatReply[]): void;
  respond(fn: ChatResponder | undefined): void;
  /** Requests whose client hung up before the (delayed) answer: a cancel reached the wire. */
  hungUp(): number;
  close(): Promise<void>;
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_fake${Date.now().toString(36)}${(counter++).toString(36)}`;

function normalise(reply: FakeChatReply): Exclude<FakeChatReply, string> {
  return typeof reply === 'string' ? { content: reply } : reply;
}

/**
 * Start a fake OpenAI chat-completions API on 127.0.0.1 (a free port).
 *
 * @example
 * const api = await startFakeOpenAI({ replies: [{ tool_calls: [{ name: 'lookup', arguments: { q: 'x' } }] }, 'Done.'] });
 * const client = new OpenAI({ baseURL: api.url, apiKey: 'x' });
 * await api.close();
 */
export async function startFakeOpenAI(
  opts: { replies?: FakeChatReply[]; respond?: ChatResponder; fallback?: FakeChatReply } = {},
): Promise<FakeOpenAI> {
  const queue: FakeChatReply[] = [...(opts.replies ?? [])];
  let responder = opts.respond;
  const requests: RecordedChatRequest[] = [];
  let index = 0;
  let hungUp = 0;
  const server: Server = createServer(async (req, res: ServerResponse) => {
    const record = await recordJsonRequest(req, res, requests, '/v1/chat/completions');
    if (!record) return;
    const body = record.body;
    const i = index++;
    const next = queue.length ? queue.shift() : undefined;
    const reply = normalise(next ?? (responder ? await responder(record, i) : (opts.fallback ?? 'ok')));
    if (reply.delayMs && !(await delayReply(res, reply.delayMs))) {
      hungUp++;
      return;
    }
    if (reply.error) {
      res
        .writeHead(reply.error.status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: reply.error.message, type: 'api_error' } }));
      return;
    }
    const toolCalls = (reply.tool_calls ?? []).map((c) => ({
      id: c.id ?? nextId('call'),
      type: 'function' as const,
      function: {
        name: c.name,
        arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
      },
    }));
    const finish = reply.finish_reason ?? (toolCalls.length ? 'tool_calls' : 'stop');
    const usage = {
      prompt_tokens: reply.usage?.prompt_tokens ?? 10,
      completion_tokens: reply.usage?.completion_tokens ?? 5,
      total_tokens: (reply.usage?.prompt_tokens ?? 10) + (reply.usage?.completion_tokens ?? 5),
    };
    const id = nextId('chatcmpl');
    const created = Math.floor(Date.now() / 1000);
    const model = String(body?.model ?? 'gpt-fake');
    if (body?.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: Record<string, unknown>, finish_reason: string | null, extra: object = {}) =>
        res.write(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`,
        );
      chunk({ role: 'assistant', content: '' }, null);
      if (reply.content) {
        const half = Math.ceil(reply.content.length / 2);
        chunk({ content: reply.content.slice(0, half) }, null);
        if (reply.content.length > half) chunk({ content: reply.content.slice(half) }, null);
      }
      toolCalls.forEach((c, n) => {
        chunk(
          {
            tool_calls: [{ index: n, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }],
          },
          null,
        );
        chunk({ tool_calls: [{ index: n, function: { arguments: c.function.arguments } }] }, null);
      });
      chunk({}, finish);
      if (body?.stream_options?.include_usage)
        res.write(
          `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`,
        );
      res.end('data: [DONE]\n\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.content ?? null,
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finish,
          },
        ],
        usage,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    completions: () => requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions'),
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
