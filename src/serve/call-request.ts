// The one adapter from an MCP `tools/call` to the pipeline's CallRequest, whichever way the call arrived: the SDK
// `Server`'s handler, or a fast branch that parsed the message itself. What the call may send its client —
// sampling, elicitation, progress, logs — goes through the session's protocol server, always related to the
// call's own request id, so on HTTP it rides the call's own response stream.
import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type RequestId,
  type Server,
} from '@modelcontextprotocol/server';
import type { Cancellation } from '../core/cancellation.ts';
import type { ClientChannel, LogLevel, McpCallInfo, Principal, TransportKind } from '../core/context.ts';
import type { CallRequest } from '../core/pipeline.ts';

/** A `tools/call` as every path reads it. */
export interface ToolCall {
  id: RequestId;
  name: string;
  arguments?: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

/** Who makes the call, over what, and how it reaches its client. */
export interface CallOrigin {
  principal: Principal;
  transport: TransportKind;
  mcp: McpCallInfo;
  /**
   * The protocol server of the connection or session (absent on a stateless 2026-07-28 fast call, which has no
   * way back to the client): sampling, elicitation and progress go through it, related to the call's id.
   */
  server?: Server;
  /** Cancelled by the SDK (its handler's signal) … */
  signal?: AbortSignal;
  /** … or, on a fast branch, by the branch (made for this call alone). */
  cancellation?: Cancellation;
  log?: (level: LogLevel, data: unknown) => Promise<void>;
}

/** Longest JSON-RPC id kept as a call's `requestId` (ids are the client's; the audit trail stores them). */
const MAX_REQUEST_ID = 128;

/**
 * A call's `requestId` from its JSON-RPC id, on every MCP path: what the client's own logs show. The id is the
 * client's text, cut at 128 characters (the audit trail cleans what its format cannot hold).
 */
export function mcpRequestId(id: RequestId): string {
  const text = String(id);
  return text.length > MAX_REQUEST_ID ? text.slice(0, MAX_REQUEST_ID) : text;
}

/** What McpCallInfo is made from: the request's 2026 envelope (if any) and what the transport knows. */
export interface McpInfoSource {
  /** The session's protocol server: a 2025 session's negotiated version and capabilities. */
  server?: Server;
  /** The request's `io.modelcontextprotocol/*` envelope (2026-07-28), or its `_meta` on a fast branch. */
  envelope?: Record<string, unknown>;
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  closeStream?: () => void;
  sessionId?: string;
}

/** The MCP-only part of a call's context: one builder for the SDK handlers and the fast branches. */
export function mcpCallInfoOf(source: McpInfoSource): McpCallInfo {
  const { server, envelope } = source;
  const modern = typeof envelope?.[PROTOCOL_VERSION_META_KEY] === 'string';
  return {
    era: modern ? 'modern' : 'legacy',
    protocolVersion: modern
      ? (envelope?.[PROTOCOL_VERSION_META_KEY] as string)
      : server?.getNegotiatedProtocolVersion(),
    clientCapabilities: (modern ? envelope?.[CLIENT_CAPABILITIES_META_KEY] : server?.getClientCapabilities()) as
      | Record<string, unknown>
      | undefined,
    ...(source.inputResponses ? { inputResponses: source.inputResponses } : {}),
    ...(source.requestState !== undefined ? { requestState: source.requestState } : {}),
    ...(source.closeStream ? { closeStream: source.closeStream } : {}),
    ...(source.sessionId ? { sessionId: source.sessionId } : {}),
  };
}

/** The channel of a call whose client takes no requests (shared: nothing writes to it). */
const NO_CLIENT: ClientChannel = Object.freeze({});

/**
 * Sampling and elicitation for a call, as the client declared them. Server-to-client requests exist only on 2025
 * sessions; each is related to the call (`relatedRequestId`), so on HTTP it rides the call's own response stream,
 * and is given up when the call is cancelled.
 */
function clientChannelOf(server: Server | undefined, call: ToolCall, origin: CallOrigin): ClientChannel {
  const caps = origin.mcp.clientCapabilities;
  if (!server || origin.mcp.era !== 'legacy' || !(caps?.sampling || caps?.elicitation)) return NO_CLIENT;
  const client: ClientChannel = {};
  // The signal is read when a request is made: a fast call's Cancellation makes its AbortSignal only then.
  const related = () => ({ relatedRequestId: call.id, signal: origin.signal ?? origin.cancellation?.signal });
  if (caps?.sampling) client.sample = (params) => server.createMessage(params as any, related());
  if (caps?.elicitation) client.elicit = (params) => server.elicitInput(params as any, related());
  return client;
}

/** Progress notifications for a call that asked for them (`_meta.progressToken`), related to its request. */
function progressOf(server: Server | undefined, call: ToolCall): CallRequest['progress'] {
  const progressToken = call.meta?.progressToken;
  if (server === undefined || progressToken === undefined) return undefined;
  return (progress, total, message) =>
    server.notification(
      {
        method: 'notifications/progress',
        params: {
          progressToken: progressToken as string | number,
          progress,
          ...(total !== undefined ? { total } : {}),
          ...(message ? { message } : {}),
        },
      },
      { relatedRequestId: call.id },
    );
}

/** The pipeline's CallRequest for a `tools/call`: the one adapter every MCP path uses. */
export function callRequestOf(call: ToolCall, origin: CallOrigin): CallRequest {
  return {
    principal: origin.principal,
    name: call.name,
    input: call.arguments ?? {},
    transport: origin.transport,
    requestId: mcpRequestId(call.id),
    ...(origin.signal ? { signal: origin.signal } : {}),
    ...(origin.cancellation ? { cancellation: origin.cancellation } : {}),
    meta: call.meta,
    mcp: origin.mcp,
    client: clientChannelOf(origin.server, call, origin),
    progress: progressOf(origin.server, call),
    log: origin.log,
  };
}
