// What the fake model APIs (fake-anthropic.ts, fake-openai.ts, fake-openai-responses.ts, fake-gemini.ts) share.
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Wait `ms` before answering, or less when the client hangs up (a cancel); true when there is still someone to
 * answer.
 */
export async function delayReply(res: ServerResponse, ms: number): Promise<boolean> {
  await new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    res.on('close', () => {
      clearTimeout(t);
      resolve();
    });
  });
  return !(res.destroyed || res.writableEnded);
}

/** The whole request body as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A request as the OpenAI fakes record it: method, path without the query, headers, parsed JSON body. */
export interface RecordedJsonRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

/**
 * Read and record a JSON request, answering it at once (400 or 404, OpenAI's error shape) when its body is not JSON
 * or it is not `POST route`; the recorded request when the fake is to answer it.
 */
export async function recordJsonRequest(
  req: IncomingMessage,
  res: ServerResponse,
  requests: RecordedJsonRequest[],
  route: string,
): Promise<RecordedJsonRequest | undefined> {
  const raw = await readBody(req);
  let body: any;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"body is not JSON"}}');
    return undefined;
  }
  const path = (req.url ?? '/').split('?')[0];
  const record = { method: req.method ?? 'GET', path, headers: req.headers, body };
  requests.push(record);
  if (record.method === 'POST' && path === route) return record;
  res.writeHead(404, { 'content-type': 'application/json' }).end(`{"error":{"message":"no route ${path}"}}`);
  return undefined;
}
