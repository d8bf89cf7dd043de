// The fast branch of the one call path: a plain `tools/call` that needs nothing but the call itself is answered
// straight through the pipeline, skipping the SDK's per-message parsing, validation and dispatch (on stdio that
// is ~85 % of the server's CPU per call, on 2025 HTTP sessions most of the rest is the SDK's web-standard
// Request/Response plumbing: docs/performance.md). The call is built by the same adapter (call-request.ts) and
// encoded by the same encoder (tool-result.ts) as on the SDK path; anything else — any call whose shape is not
// exactly the simple case, and any call of a capability declared `interactive` — goes to the SDK unchanged.
import type { RequestId, Server } from '@modelcontextprotocol/server';
import { Cancellation } from '../core/cancellation.ts';
import type { Capability } from '../core/capability.ts';
import type { McpCallInfo, Principal, TransportKind } from '../core/context.ts';
import { paramHeadersOf } from '../core/mcp-param-headers.ts';
import { type Registry, visible } from '../core/registry.ts';
import type { Hub } from '../hub.ts';
import { type CallOrigin, callRequestOf, mcpCallInfoOf, type ToolCall } from './call-request.ts';
import { callToolResultJson } from './tool-result.ts';

const META_PREFIX = 'io.modelcontextprotocol/';
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const MODERN = '2026-07-28';
/** MCP log levels by severity, as the SDK orders them for `logging/setLevel`. */
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** A JSON-RPC `tools/call` request in the simple shape the fast branch serves. */
export interface FastCall extends ToolCall {
  arguments: Record<string, unknown>;
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The call, when `message` is a `tools/call` the fast branch may serve for `era`: a valid id, a known tool the
 * principal may see that neither advertises parameter headers nor may ask the client for input (`interactive`), and
 * none of progress, multi-round-trip input or (for `legacy`) a 2026 envelope. Undefined means: let the SDK handle it.
 */
export function fastCallOf(
  hub: Hub,
  principal: Principal,
  message: unknown,
  era: 'legacy' | 'modern',
): FastCall | undefined {
  if (!isPlain(message) || message.jsonrpc !== '2.0' || message.method !== 'tools/call') return undefined;
  for (const key in message)
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  const id = message.id;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  const params = message.params;
  if (!isPlain(params) || typeof params.name !== 'string') return undefined;
  if (params.arguments !== undefined && !isPlain(params.arguments)) return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return undefined;
  const meta = params._meta;
  if (meta !== undefined) {
    if (!isPlain(meta) || meta.progressToken !== undefined) return undefined;
    if (era === 'legacy') {
      for (const key in meta) if (key.startsWith(META_PREFIX)) return undefined;
    } else if (
      meta[PROTOCOL_VERSION_KEY] !== MODERN ||
      !isPlain(meta[CLIENT_CAPABILITIES_KEY]) ||
      meta['io.modelcontextprotocol/logLevel'] !== undefined
    ) {
      return undefined;
    }
  } else if (era === 'modern') return undefined;
  const entry = hub.services.registry.get(params.name);
  if (!entry || !visible(principal, entry.capability)) return undefined;
  const args = (params.arguments as Record<string, unknown>) ?? {};
  if (mayAskClient(hub.services.registry, entry.capability, args)) return undefined;
  if (era === 'modern' && paramHeadersOf(entry.tool.inputSchema).length > 0) return undefined;
  return { id, name: params.name, arguments: args, meta };
}

/**
 * Whether the call may be answered with `inputRequired`: its capability, or the one it forwards to (catalog.call),
 * is declared `interactive`. The pipeline looks the call up again in the same turn, so it runs what was routed.
 */
function mayAskClient(registry: Registry, capability: Capability, args: Record<string, unknown>): boolean {
  if (capability.interactive) return true;
  if (!capability.forwards) return false;
  try {
    return registry.get(capability.forwards(args).name)?.capability.interactive === true;
  } catch {
    return false; // Input the pipeline refuses, whichever path runs it.
  }
}

/** How a connection's transport answers a fast call, or gives its message to the SDK after all. */
export interface FastReply {
  /** The JSON-RPC result of call `id`, as JSON text. */
  result(id: RequestId, resultJson: string): void;
  /** A JSON-RPC error for call `id` (the pipeline itself threw, or the result cannot be encoded). */
  error(id: RequestId, message: string): void;
  /** End the call's response stream now (SEP-1699), where the transport can resume it. */
  closeStream?: () => void;
}

/**
 * The fast branch of one 2025-era connection (stdio) or session (HTTP): its calls in flight, so a cancellation
 * or the connection's end reaches them as the SDK's reach its handlers. A cancelled call gets no answer, as on
 * the SDK path; a timed-out one does.
 */
export class FastCalls {
  /** `cancelled` is the client's doing; the pipeline aborts a call's Cancellation on timeout too. */
  private readonly inFlight = new Map<RequestId, { cancellation: Cancellation; cancelled: boolean }>();
  /** Per-session state, made once the session's client has initialized (it depends on the session, not the call). */
  private session?: { server: Server; caps: Record<string, unknown>; mcp: McpCallInfo };
  /** Severity below which logs are dropped, from the client's `logging/setLevel` (none: all are sent). */
  private logThreshold = 0;

  constructor(
    private readonly hub: Hub,
    private readonly principal: Principal,
    private readonly transport: TransportKind,
    private readonly sessionId?: string,
  ) {}

  /**
   * Serve `message` when it is a plain `tools/call` and `server`'s client has initialized; returns whether it
   * did (it then answers through the reply `open` makes for the call, before the call starts).
   */
  take(server: Server | undefined, message: unknown, open: (call: FastCall) => FastReply): boolean {
    // Only once a 2025-era session is initialized; everything else (handshake, 2026 envelopes) is the SDK's.
    const caps = server?.getClientCapabilities() as Record<string, unknown> | undefined;
    if (!server || !caps) return false;
    const call = fastCallOf(this.hub, this.principal, message, 'legacy');
    if (!call) return false;
    if (this.session?.server !== server || this.session.caps !== caps) {
      const mcp = mcpCallInfoOf({ server, ...(this.sessionId ? { sessionId: this.sessionId } : {}) });
      this.session = { server, caps, mcp };
    }
    const reply = open(call);
    const cancellation = new Cancellation();
    const flight = { cancellation, cancelled: false };
    this.inFlight.set(call.id, flight);
    const { mcp } = this.session;
    const request = callRequestOf(call, {
      principal: this.principal,
      transport: this.transport,
      mcp: reply.closeStream ? { ...mcp, closeStream: reply.closeStream } : mcp,
      server,
      cancellation,
      log: this.logOf(server, call.id),
    });
    this.hub.pipeline.call(request).then(
      (outcome) => {
        this.inFlight.delete(call.id);
        if (flight.cancelled) return;
        try {
          reply.result(call.id, callToolResultJson(outcome));
        } catch (err) {
          reply.error(call.id, (err as Error).message); // A result JSON cannot encode (a BigInt, a cycle).
        }
      },
      (err) => {
        this.inFlight.delete(call.id);
        reply.error(call.id, (err as Error).message);
      },
    );
    return true;
  }

  /**
   * See a message after the SDK has: a cancellation reaches a fast call as the SDK's reaches its handlers, and
   * the client's `logging/setLevel` applies to fast calls' logs as to the SDK's.
   */
  observe(message: unknown): void {
    const m = message as { method?: unknown; params?: { requestId?: unknown; level?: unknown } } | null;
    if (m?.method === 'notifications/cancelled') {
      const id = m.params?.requestId;
      const flight = typeof id === 'string' || typeof id === 'number' ? this.inFlight.get(id) : undefined;
      if (!flight) return;
      flight.cancelled = true;
      flight.cancellation.abort();
    } else if (m?.method === 'logging/setLevel') {
      const severity = LOG_LEVELS.indexOf(m.params?.level as string);
      if (severity !== -1) this.logThreshold = severity;
    }
  }

  /**
   * A fast call's log: the session's level applies, and the message is related to the call, so on HTTP it rides
   * the call's response stream — what the SDK's per-request `ctx.mcpReq.log` does.
   */
  private logOf(server: Server, id: RequestId): CallOrigin['log'] {
    return async (level, data) => {
      if (LOG_LEVELS.indexOf(level) < this.logThreshold) return;
      await server
        .notification({ method: 'notifications/message', params: { level, data } }, { relatedRequestId: id })
        .catch(() => {});
    };
  }

  /** The connection or session ended: every call still running is aborted, as the SDK aborts its handlers. */
  closeAll(): void {
    for (const flight of this.inFlight.values()) {
      flight.cancelled = true;
      flight.cancellation.abort();
    }
    this.inFlight.clear();
  }
}
