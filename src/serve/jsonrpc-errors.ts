// The JSON-RPC error codes Switchboard answers with: the SDK's `ProtocolErrorCode` where it has a name, and the few
// codes of MCP's transports it uses on the wire without exporting one. Every literal code in src/ is one of these.
import type { ServerResponse } from 'node:http';

export { ProtocolErrorCode } from '@modelcontextprotocol/server';

/** Codes the SDK's transports send but do not name; the values are the wire's and never change. */
export const TransportErrorCode = {
  /** JSON-RPC's implementation-defined server error: a request refused before it reaches MCP (guard, limit, hub). */
  Refused: -32000,
  /** The Mcp-Session-Id names no open session (what the SDK's own transport answers): start a new one. */
  SessionNotFound: -32001,
  /** No credentials, or not valid ones (HTTP 401): the same code, as the client must start over with a token. */
  Unauthorized: -32001,
  /** 2026-07-28: the `Mcp-*` headers and the body disagree (SEP-2243, the draft schema's `HEADER_MISMATCH`). */
  HeaderMismatch: -32020,
} as const;

/**
 * ClaudeBench's own server-error codes, which its clients read (src/serve/claudebench/, off by default): the wire
 * values of its JSON-RPC contract.
 */
export const ClaudeBenchErrorCode = {
  RateLimited: -32000,
  CircuitOpen: -32001,
  Unauthorized: -32002,
} as const;

/** Answer an HTTP request with a JSON-RPC error (`id` null unless given) and the HTTP `status`. */
export function jsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  extra: { data?: unknown; id?: unknown } = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  const error = extra.data === undefined ? { code, message } : { code, message, data: extra.data };
  res.end(JSON.stringify({ jsonrpc: '2.0', error, id: extra.id ?? null }));
}
