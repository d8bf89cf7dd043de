// Test helper: a fake Gemini API (generateContent and streamGenerateContent?alt=sse) on 127.0.0.1 with scripted
// replies. `@google/genai` talks to it through `httpOptions.baseUrl`; it records every request.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delayReply, readBody } from './fake-api.ts';

/** A scripted reply: a plain string is the model's text. */
export type FakeGeminiReply =
  | string
  | {
      text?: string;
      function_calls?: { name: string; args: Record<string, unknown>; id?: string; thoughtSignature?: string }[];
      usage?: { promptTokenCount?: number; candidatesTokenCount?: number };
      delayMs?: number;
      /** Answer with this HTTP error instead (Google's error body). */
      error?: { status: number; message: string };
    };

export interface RecordedGeminiRequest {
  method: string;
  /** The path without the query, e.g. `/v1beta/models/gemini-test:streamGenerateContent`. */
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

export interface FakeGemini {
  /** Base URL for `httpOptions.baseUrl` (the SDK adds `/v1beta/models/…`). */
  url: string;
  requests: RecordedGeminiRequest[];
  /** The generateContent / streamGenerateContent requests. */
  generations(): RecordedGeminiRequest[];
  enqueue(...replies: FakeGeminiReply[]): void;
  /** Requests whose client hung up before the (delayed) answer: a cancel reached the wire. */
  hungUp(): number;
  close(): Promise<void>;
}

const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

/**
 * Start a fake Gemini API on 127.0.0.1 (a free port).
 *
 * @example
 * const api = await startFakeGemini({ replies: [{ function_calls: [{ name: 'lookup', args: { q: 'x' } }] }, 'Done.'] });
 * const ai = new GoogleGenAI({ apiKey: 'x', httpOptions: { baseUrl: api.url } });
 */
export async function startFakeGemini(
  opts: { replies?: FakeGeminiReply[]; fallback?: FakeGeminiReply } = {},
): Promise<FakeGemini> {
  const queue: FakeGeminiReply[] = [...(opts.replies ?? [])];
  const requests: RecordedGeminiRequest[] = [];
  let hungUp = 0;
  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const [path, query = ''] = (req.url ?? '/').split('?');
    const record: RecordedGeminiRequest = {
      method: req.method ?? 'GET',
      path,
      query,
      headers: req.headers,
      body: raw ? JSON.parse(raw) : undefined,
    };
    requests.push(record);
    const route = ROUTE.exec(path);
    if (record.method !== 'POST' || !route) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { code: 404, message: `no route ${path}`, status: 'NOT_FOUND' } }));
      return;
    }
    const next = queue.length ? queue.shift() : (opts.fallback ?? 'ok');
    const reply = typeof next === 'string' ? { text: next } : (next as Exclude<FakeGeminiReply, string>);
    if (reply.delayMs && !(await delayReply(res, reply.delayMs))) {
      hungUp++;
      return;
    }
    if (reply.error) {
      res
        .writeHead(reply.error.status, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ error: { code: reply.error.status, message: reply.error.message, status: 'UNAVAILABLE' } }),
        );
      return;
    }
    const usageMetadata = {
      promptTokenCount: reply.usage?.promptTokenCount ?? 10,
      candidatesTokenCount: reply.usage?.candidatesTokenCount ?? 5,
      totalTokenCount: (reply.usage?.promptTokenCount ?? 10) + (reply.usage?.candidatesTokenCount ?? 5),
    };
    const calls = (reply.function_calls ?? []).map(({ thoughtSignature, ...call }) => ({
      functionCall: call,
      ...(thoughtSignature ? { thoughtSignature } : {}),
    }));
    const chunk = (parts: unknown[], last: boolean) => ({
      candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
      ...(last ? { usageMetadata } : {}),
      modelVersion: route[1],
    });
    const text = reply.text ?? '';
    if (route[2] === 'generateContent') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(chunk([...(text ? [{ text }] : []), ...calls], true)));
      return;
    }
    // Streaming: the text in two pieces, then the function calls with the finish reason and the usage.
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const half = Math.ceil(text.length / 2);
    for (const piece of [text.slice(0, half), text.slice(half)].filter(Boolean))
      res.write(`data: ${JSON.stringify(chunk([{ text: piece }], false))}\r\n\r\n`);
    res.end(`data: ${JSON.stringify(chunk(calls, true))}\r\n\r\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    generations: () => requests.filter((r) => ROUTE.test(r.path)),
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    hungUp: () => hungUp,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
