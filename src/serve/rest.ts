// The REST face: GET /v1/tools, POST /v1/tools/{name} (body = input), GET /v1/openapi.json and
// GET /v1/events (SSE). A call goes through the same edge as MCP's (mcp-edge.ts `runCall`); outcomes map to status
// codes through the one error table.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Cancellation } from '../core/cancellation.ts';
import { listedTools } from '../core/catalog/exposure.ts';
import type { BusEvent, Principal } from '../core/context.ts';
import { IDEMPOTENCY_META_KEY } from '../core/creating.ts';
import { type ErrorInfo, httpStatus } from '../core/errors.ts';
import type { Hub } from '../hub.ts';
import { outwardEvent } from '../observe/redact.ts';
import { runCall, type ToolCall, traceFromHeaders } from './mcp-edge.ts';
import { buildOpenApi } from './openapi.ts';
import { rawContent } from './tool-result.ts';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  opts: { pretty?: boolean } = {},
): void {
  // Pretty only for documents people open and read whole (the OpenAPI document); calls stay compact.
  const text = opts.pretty ? `${JSON.stringify(body, null, 2)}\n` : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: ErrorInfo): void {
  const headers: Record<string, string> = {};
  const retry = error.details?.retryAfterMs;
  if (typeof retry === 'number') headers['retry-after'] = String(Math.max(1, Math.ceil(retry / 1000)));
  sendJson(res, httpStatus(error.code), { error }, headers);
}

export async function listTools(hub: Hub, principal: Principal): Promise<unknown> {
  await hub.catalogReady();
  return {
    tools: listedTools(hub.services.registry, hub.config.get(), principal).map(({ tool }) => ({
      ...tool,
      path: `/v1/tools/${tool.name}`,
    })),
  };
}

export async function callTool(
  hub: Hub,
  res: ServerResponse,
  req: IncomingMessage,
  name: string,
  input: unknown,
  principal: Principal,
): Promise<void> {
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    return sendError(res, {
      code: 'INVALID_REQUEST',
      message: 'The request body must be a JSON object (the tool input), or empty.',
    });
  }
  const cancellation = new Cancellation();
  // A client that goes away cancels its call.
  const onClose = () => {
    if (!res.writableEnded) cancellation.abort();
  };
  res.on('close', onClose);
  let decoded: string;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    res.off('close', onClose);
    return sendError(res, {
      code: 'INVALID_REQUEST',
      message: `The tool name in the path is not valid percent-encoding: '${name.slice(0, 100)}'.`,
    });
  }
  const idempotencyKey = req.headers['idempotency-key'];
  const requestId = requestIdFrom(req.headers['x-request-id']);
  const call: ToolCall = {
    name: decoded,
    ...(input === undefined ? {} : { arguments: input as Record<string, unknown> }),
    ...(requestId === undefined ? {} : { id: requestId }),
    // The IETF Idempotency-Key header reaches a creating capability the way MCP's _meta key does.
    ...(idempotencyKey === undefined ? {} : { meta: { [IDEMPOTENCY_META_KEY]: idempotencyKey } }),
  };
  const trace = traceFromHeaders(req.headers);
  const outcome = await runCall(hub, call, { principal, transport: 'rest', cancellation, ...(trace ? { trace } : {}) });
  res.off('close', onClose);
  if (res.destroyed) return;
  if (!outcome.ok) return sendError(res, outcome.error);
  if (outcome.raw) return sendJson(res, outcome.raw.isError ? 500 : 200, rawContent(outcome.raw));
  sendJson(res, 200, outcome.value ?? null);
}

/** A caller's X-Request-Id, when it is a sane one (it ends up in logs and audit records). */
function requestIdFrom(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' && /^[\x21-\x7e]{1,128}$/.test(header) ? header : undefined;
}

export function openApi(hub: Hub, principal: Principal): unknown {
  return buildOpenApi(hub.services.registry, principal);
}

/** How a stream shows events, and what else it sends (the dashboard's stream: src/serve/dashboard/routes.ts). */
export interface EventStreamOptions {
  /** The event as this caller may see it, or undefined to skip it; default: every event, redacted. */
  view?: (event: BusEvent) => BusEvent | undefined;
  /** Called once the stream is open with a writer of named SSE events; returns its own clean-up. */
  extra?: (send: (type: string, data: unknown) => void) => () => void;
  /**
   * Called once the stream is open with a function that ends it, sending `why` as a last `end` event (the token
   * that opened it was revoked: `HttpAuth.watch`); returns its own clean-up.
   */
  endOn?: (end: (why: ErrorInfo) => void) => () => void;
}

/** Stream bus events as SSE. `?recent=N` first replays the last N stored events. */
export async function streamEvents(
  hub: Hub,
  req: IncomingMessage,
  res: ServerResponse,
  opts: EventStreamOptions = {},
): Promise<void> {
  const view = opts.view ?? outwardEvent;
  const url = new URL(req.url ?? '/', 'http://localhost');
  const recent = Math.min(1000, Math.max(0, Number(url.searchParams.get('recent') ?? 0) || 0));
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write(': switchboard events\n\n');
  const send = (type: string, data: unknown) => res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  const write = (event: BusEvent) => {
    const shown = view(event);
    if (shown) send(event.type, shown);
  };
  if (recent) for (const { event } of await hub.services.store.events.recent(recent)) write(event);
  const unsubscribe = hub.services.bus.subscribe(write);
  const stopExtra = opts.extra?.(send);
  const stopEnd = opts.endOn?.((why) => {
    send('end', { error: why });
    res.end();
  });
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  keepAlive.unref();
  await new Promise<void>((resolve) => res.on('close', resolve));
  clearInterval(keepAlive);
  stopExtra?.();
  stopEnd?.();
  unsubscribe();
}
