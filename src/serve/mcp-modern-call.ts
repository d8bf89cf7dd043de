// The 2026-07-28 fast path of /mcp (mcp-http.ts): a stateless `tools/call` is looked up once, its parameter headers
// checked against its body, and — when its headers are exactly what the SDK would accept — answered by the edge
// without building a protocol server for the request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JSONRPCRequest, RequestId } from '@modelcontextprotocol/server';
import { Cancellation } from '../core/cancellation.ts';
import type { Principal } from '../core/context.ts';
import { checkParamHeaders, paramHeadersOf } from '../core/mcp-param-headers.ts';
import type { Hub } from '../hub.ts';
import { jsonRpcError, TransportErrorCode } from './jsonrpc-errors.ts';
import {
  answersHere,
  header,
  type Lookup,
  mcpCallInfoOf,
  plainShapeOf,
  resultJsonOf,
  runCall,
  shownEntry,
  traceFromHeaders,
} from './mcp-edge.ts';
import { jsonRpcResultText } from './tool-result.ts';

const MODERN_VERSION = '2026-07-28';

/** Whether a 2026-07-28 `tools/call`'s headers are exactly what the SDK's handler accepts without a word. */
function exactModernHeaders(req: IncomingMessage): boolean {
  if (header(req, 'mcp-protocol-version') !== MODERN_VERSION || header(req, 'mcp-method') !== 'tools/call')
    return false;
  const accept = header(req, 'accept') ?? '';
  if (!accept.includes('application/json') && !accept.includes('*/*')) return false;
  return (header(req, 'content-type') ?? '').toLowerCase().startsWith('application/json');
}

/**
 * A 2026-07-28 `tools/call`: its tool is looked up once; the headers that repeat parameters are checked against
 * the body; and a plain call whose headers are exactly right is answered by the edge without building a protocol
 * server for the request. Anything else is the SDK handler's, handed the lookup so it does not repeat it.
 */
export async function answerModernCall(
  hub: Hub,
  req: IncomingMessage,
  res: ServerResponse,
  message: JSONRPCRequest,
  body: unknown,
  principal: Principal,
): Promise<Lookup | 'answered' | undefined> {
  const { id } = message;
  const params = message.params as { name?: unknown; arguments?: unknown } | undefined;
  if (typeof params?.name !== 'string') return undefined; // The SDK's handler says what is wrong.
  const entry = shownEntry(hub, principal, params.name);
  const lookup: Lookup = { name: params.name, ...(entry ? { entry } : {}) };
  const declared = entry ? paramHeadersOf(entry.tool.inputSchema) : [];
  const check = declared.length ? checkParamHeaders(declared, params?.arguments, req.headers) : undefined;
  if (check && !check.ok) {
    jsonRpcError(
      res,
      400,
      TransportErrorCode.HeaderMismatch,
      `Bad Request: the headers and body disagree: ${check.message}`,
      {
        data: { mismatch: { header: check.header, body: check.message } },
        id,
      },
    );
    return 'answered';
  }
  if (!entry || !exactModernHeaders(req)) return lookup;
  const call = plainShapeOf(body, 'modern');
  if (!call || header(req, 'mcp-name')?.trim() !== call.name || !answersHere(hub, entry, call, 'modern')) return lookup;
  const cancellation = new Cancellation();
  const onClose = () => {
    if (!res.writableEnded) cancellation.abort();
  };
  res.once('close', onClose);
  const trace = traceFromHeaders(req.headers);
  const caller = {
    principal,
    transport: 'http' as const,
    mcp: mcpCallInfoOf({ envelope: call.meta }),
    cancellation,
    ...(trace ? { trace } : {}),
  };
  const outcome = await runCall(hub, call, caller, entry);
  res.off('close', onClose);
  if (res.destroyed) return 'answered';
  const text = jsonRpcResultText(call.id as RequestId, resultJsonOf(outcome, 'modern'));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
  res.end(text);
  return 'answered';
}
