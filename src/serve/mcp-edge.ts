// The one edge between the MCP wire and the pipeline. Every transport hands a parsed `tools/call` here, and so does
// the SDK `Server`'s handler: the edge reads the call, looks its tool up and checks visibility once, makes the
// pipeline's CallRequest, runs it and encodes the answer once per protocol era (tool-result.ts). A plain call (the
// exact simple shape, a tool that never asks its client for input) is answered here without the SDK's per-message
// parsing and dispatch — on stdio that was ~85 % of the server's CPU per call (docs/performance.md); anything else
// goes to the SDK `Server`, whose handler comes back through `runCall`. Which way a call goes is decided before it
// runs, from what its capability declares (`interactive`): no call runs twice, and no registry entry is changed.
import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type RequestId,
  type Server,
} from '@modelcontextprotocol/server';
import { Cancellation } from '../core/cancellation.ts';
import type { Capability } from '../core/capability.ts';
import type { ClientChannel, LogLevel, McpCallInfo, Principal, TransportKind } from '../core/context.ts';
import { paramHeadersOf } from '../core/mcp-param-headers.ts';
import { declaresTasksExtension } from '../core/mcp-tasks-extension.ts';
import type { CallRequest, Outcome } from '../core/pipeline.ts';
import { type Entry, visible } from '../core/registry.ts';
import { parseTraceparent, type TraceContext, traceFromMeta } from '../core/trace-context.ts';
import type { Hub } from '../hub.ts';
import { callToolResultJson, modernCallToolResultJson } from './tool-result.ts';

/** `legacy`: a 2025-era connection or session (initialize); `modern`: a stateless 2026-07-28 request. */
export type Era = McpCallInfo['era'];

/** A `tools/call` as the edge reads it off the wire (REST's has no JSON-RPC id: its X-Request-Id, if any). */
export interface ToolCall {
  id?: RequestId;
  name: string;
  arguments?: Record<string, unknown>;
  meta?: Record<string, unknown>;
}

/** Who makes a call, over what, and how it reaches its client: what a door knows besides the call. */
export interface Caller {
  principal: Principal;
  transport: TransportKind;
  /** The MCP-only part of the call's context (absent on REST). */
  mcp?: McpCallInfo;
  /**
   * The protocol server of the connection or session (absent on REST and on a stateless 2026-07-28 plain call,
   * which have no way back to the client): sampling, elicitation and progress go through it, related to the call.
   */
  server?: Server;
  /** Cancelled by the SDK (its handler's signal) … */
  signal?: AbortSignal;
  /** … or by the door (made for this call alone). */
  cancellation?: Cancellation;
  log?: (level: LogLevel, data: unknown) => Promise<void>;
  /** The caller's trace from the HTTP `traceparent` header; the `_meta` keys of the call itself win over it. */
  trace?: TraceContext;
  /** How the call asks its client for input, when not through `server` (a task's: mcp-tasks.ts). */
  client?: ClientChannel;
}

/** How a door answers a call the edge took from it. */
export interface Reply {
  /** The JSON-RPC result of call `id`, as JSON text. */
  result(id: RequestId, resultJson: string): void;
  /**
   * A JSON-RPC error for call `id`: `code` (default -32603: the pipeline itself threw, or the result cannot be
   * encoded), or a protocol error a task-augmented call was refused with.
   */
  error(id: RequestId, message: string, code?: number): void;
  /** End the call's response stream now (SEP-1699), where the door can resume it. */
  closeStream?: () => void;
}

const META_PREFIX = 'io.modelcontextprotocol/';
const MODERN = '2026-07-28';
/** MCP log levels by severity, as the SDK orders them for `logging/setLevel`. */
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
/** Longest JSON-RPC id kept as a call's `requestId` (ids are the client's; the audit trail stores them). */
const MAX_REQUEST_ID = 128;

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The call in `message` when it is a `tools/call` in the plain shape for `era`: exactly jsonrpc, id, method and
 * params; a string or safe-integer id; params of name, object arguments and `_meta` only; no progress token; and —
 * for `legacy` — no 2026 envelope, for `modern` exactly the 2026-07-28 envelope without a log level.
 */
export function plainShapeOf(message: unknown, era: Era): ToolCall | undefined {
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
      meta[PROTOCOL_VERSION_META_KEY] !== MODERN ||
      !isPlain(meta[CLIENT_CAPABILITIES_META_KEY]) ||
      meta['io.modelcontextprotocol/logLevel'] !== undefined
    ) {
      return undefined;
    }
  } else if (era === 'modern') return undefined;
  return { id, name: params.name, arguments: (params.arguments as Record<string, unknown>) ?? {}, meta };
}

/** What starts a 2025-11-25 task-augmented call for the edge (mcp-tasks-2025.ts `callOnSession`). */
export type TaskStarter = (
  hub: Hub,
  call: ToolCall,
  caller: Caller,
  entry: Entry,
  task: { ttl?: number },
) => Promise<{ task: Record<string, unknown> } | undefined>;

/** The `task` param of a 2025-11-25 task-augmented `tools/call`, if `message` is one. */
export function taskParamOf(message: unknown): { ttl?: number } | undefined {
  const params = isPlain(message) && message.method === 'tools/call' ? message.params : undefined;
  return isPlain(params) && isPlain(params.task) ? (params.task as { ttl?: number }) : undefined;
}

/**
 * The call without its `task`, and without a progress token: the request is answered with the task at once, so
 * there is no request left for progress to relate to (the task's status is what the client follows).
 */
function withoutTaskParam(message: unknown): unknown {
  const { params, ...rest } = message as { params: Record<string, unknown> };
  const { task: _task, _meta, ...others } = params;
  const { progressToken: _progress, ...meta } = (isPlain(_meta) ? _meta : {}) as Record<string, unknown>;
  return { ...rest, params: { ...others, ...(_meta !== undefined ? { _meta: meta } : {}) } };
}

type Headers = Record<string, string | string[] | undefined>;

/** A request header's value as the MCP doors read it: the first, when a client sent it more than once. */
export function header(req: { headers: Headers }, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A caller's trace from the W3C `traceparent` and `tracestate` HTTP headers, when it sent a valid one. */
export function traceFromHeaders(headers: Headers): TraceContext | undefined {
  const parent = header({ headers }, 'traceparent');
  return parent === undefined ? undefined : parseTraceparent(parent, header({ headers }, 'tracestate'));
}

/** The edge's lookup of a call's tool, handed on with the call where it goes to the SDK (a 2026 request's server). */
export interface Lookup {
  name: string;
  /** Absent: no tool of that name is shown to the caller (the pipeline answers why). */
  entry?: Entry;
}

/** The registry entry of tool `name` when `principal` may see it: the edge's one lookup of a call. */
export function shownEntry(hub: Hub, principal: Principal, name: string): Entry | undefined {
  const entry = hub.services.registry.get(name);
  return entry && visible(principal, entry.capability) ? entry : undefined;
}

/**
 * Whether the edge answers `call` of `entry` itself: its capability, and the one it forwards to (catalog.call),
 * never asks the client for input (`interactive`), and — for `modern` — its tool declares no parameter headers
 * (the SDK's handler checks those against the body). Otherwise the call goes to the SDK `Server`.
 */
export function answersHere(hub: Hub, entry: Entry, call: ToolCall, era: Era): boolean {
  const { capability } = entry;
  if (capability.interactive) return false;
  const target = runsAs(hub, capability, call);
  if (target.interactive) return false;
  // A call that may become a task is the SDK handler's, which runs it through callOrTask: a `required` one always
  // (a call without a task is refused there), an `optional` one when its 2026-07-28 client declared the extension.
  // A 2025 session's task-augmented call never reaches here (its `task` param is not the plain shape).
  if (
    target.task === 'required' ||
    (era === 'modern' && target.task && declaresTasksExtension(call.meta?.[CLIENT_CAPABILITIES_META_KEY]))
  )
    return false;
  return era === 'legacy' || paramHeadersOf(entry.tool.inputSchema).length === 0;
}

/** What a call of `capability` runs: the capability itself, or the tool it forwards to (catalog.call). */
export function runsAs(hub: Hub, capability: Capability, call: ToolCall): Capability {
  if (!capability.forwards) return capability;
  try {
    return hub.services.registry.get(capability.forwards(call.arguments ?? {}).name)?.capability ?? capability;
  } catch {
    return capability; // Input the pipeline refuses, whichever way it runs.
  }
}

/** A call's `requestId` from its id: the client's text, cut at 128 characters (the audit trail cleans the rest). */
export function requestIdOf(id: RequestId): string {
  const text = String(id);
  return text.length > MAX_REQUEST_ID ? text.slice(0, MAX_REQUEST_ID) : text;
}

/** The MCP-only part of a call's context: a 2025 session's from its server, a 2026 request's from its envelope. */
export function mcpCallInfoOf(source: {
  server?: Server;
  envelope?: Record<string, unknown>;
  inputResponses?: Record<string, unknown>;
  requestState?: string;
  closeStream?: () => void;
  sessionId?: string;
}): McpCallInfo {
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

/**
 * Run `call` through the pipeline: the one place a call from the wire becomes a CallRequest. `entry` is the one
 * the edge found for it in this same turn, when it did (the pipeline then does not look it up again).
 */
export function runCall(hub: Hub, call: ToolCall, caller: Caller, entry?: Entry): Promise<Outcome> {
  const trace = traceFromMeta(call.meta) ?? caller.trace;
  const request: CallRequest = {
    principal: caller.principal,
    name: call.name,
    input: call.arguments ?? {},
    transport: caller.transport,
    ...(call.id !== undefined ? { requestId: requestIdOf(call.id) } : {}),
    ...(caller.signal ? { signal: caller.signal } : {}),
    ...(caller.cancellation ? { cancellation: caller.cancellation } : {}),
    ...(entry ? { entry } : {}),
    ...(trace ? { trace } : {}),
    meta: call.meta,
    mcp: caller.mcp,
    client: caller.client ?? clientChannelOf(call, caller),
    progress: progressOf(call, caller.server),
    log: caller.log,
  };
  return hub.pipeline.call(request);
}

/** A call's outcome as the JSON text of its CallToolResult in `era`'s encoding (tool-result.ts). */
export function resultJsonOf(outcome: Outcome, era: Era): string {
  return era === 'modern' ? modernCallToolResultJson(outcome) : callToolResultJson(outcome);
}

/** The channel of a call whose client takes no requests (shared: nothing writes to it). */
const NO_CLIENT: ClientChannel = Object.freeze({});

/**
 * Sampling and elicitation for a call, as the client declared them. Server-to-client requests exist only on 2025
 * sessions; each is related to the call (`relatedRequestId`), so on HTTP it rides the call's own response stream,
 * and is given up when the call is cancelled.
 */
function clientChannelOf(call: ToolCall, caller: Caller): ClientChannel {
  const { server, mcp } = caller;
  const caps = mcp?.clientCapabilities;
  if (!server || mcp?.era !== 'legacy' || !(caps?.sampling || caps?.elicitation)) return NO_CLIENT;
  const client: ClientChannel = {};
  // The signal is read when a request is made: a door's Cancellation makes its AbortSignal only then.
  const related = () => ({ relatedRequestId: call.id, signal: caller.signal ?? caller.cancellation?.signal });
  if (caps?.sampling) client.sample = (params) => server.createMessage(params as any, related());
  if (caps?.elicitation) client.elicit = (params) => server.elicitInput(params as any, related());
  return client;
}

/** Progress notifications for a call that asked for them (`_meta.progressToken`), related to its request. */
function progressOf(call: ToolCall, server: Server | undefined): CallRequest['progress'] {
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

/**
 * The edge of one 2025-era connection (stdio) or session (HTTP): its plain calls in flight, so a cancellation or
 * the connection's end reaches them as the SDK's reach its handlers. A cancelled call gets no answer, as on the
 * SDK's way; a timed-out one does.
 */
export class ConnectionEdge {
  /** `cancelled` is the client's doing; the pipeline aborts a call's Cancellation on timeout too. */
  private readonly inFlight = new Map<RequestId, { cancellation: Cancellation; cancelled: boolean }>();
  /** What a call's context takes from the session, made once its client has initialized. */
  private session?: { server: Server; caps: Record<string, unknown>; mcp: McpCallInfo };
  /** Severity below which logs are dropped, from the client's `logging/setLevel` (none: all are sent). */
  private logThreshold = 0;

  constructor(
    private readonly hub: Hub,
    private readonly principal: Principal,
    private readonly transport: TransportKind,
    private readonly sessionId?: string,
    /**
     * Starts a 2025-11-25 task-augmented call (mcp-tasks-2025.ts `callOnSession`), which the SDK (2.4.0) cannot
     * answer: its tools/call result schema refuses a CreateTaskResult. Answers the task, or throws the refusal.
     */
    private readonly startTask?: TaskStarter,
  ) {}

  /**
   * Answer `message` when it is a plain call `server`'s initialized client may make here; returns whether it did
   * (through the reply `open` makes for the call, before the call starts). False: the message is the SDK's.
   */
  take(server: Server | undefined, message: unknown, open: (id: RequestId) => Reply, trace?: TraceContext): boolean {
    // Only once a 2025-era session is initialized; everything else (handshake, 2026 envelopes) is the SDK's.
    const caps = server?.getClientCapabilities() as Record<string, unknown> | undefined;
    if (!server || !caps) return false;
    const task = this.startTask ? taskParamOf(message) : undefined;
    const call = plainShapeOf(task ? withoutTaskParam(message) : message, 'legacy');
    if (!call) return false;
    const entry = shownEntry(this.hub, this.principal, call.name);
    if (!entry || (!task && !answersHere(this.hub, entry, call, 'legacy'))) return false;
    const id = call.id as RequestId;
    if (this.session?.server !== server || this.session.caps !== caps) {
      const mcp = mcpCallInfoOf({ server, ...(this.sessionId ? { sessionId: this.sessionId } : {}) });
      this.session = { server, caps, mcp };
    }
    const reply = open(id);
    const cancellation = new Cancellation();
    const flight = { cancellation, cancelled: false };
    this.inFlight.set(id, flight);
    const { mcp } = this.session;
    const caller: Caller = {
      principal: this.principal,
      transport: this.transport,
      mcp: reply.closeStream ? { ...mcp, closeStream: reply.closeStream } : mcp,
      server,
      cancellation,
      log: this.logOf(server, id),
      ...(trace ? { trace } : {}),
    };
    if (task && this.startTask) {
      // The task is answered at once; its call runs on under the task's own cancellation.
      this.inFlight.delete(id);
      this.startTask(this.hub, call, caller, entry, task).then(
        (made) => reply.result(id, JSON.stringify(made)),
        (err) => reply.error(id, (err as Error).message, (err as { code?: number }).code),
      );
      return true;
    }
    runCall(this.hub, call, caller, entry).then(
      (outcome) => {
        this.inFlight.delete(id);
        if (flight.cancelled) return;
        try {
          reply.result(id, resultJsonOf(outcome, 'legacy'));
        } catch (err) {
          reply.error(id, (err as Error).message); // A result JSON cannot encode (a BigInt, a cycle).
        }
      },
      (err) => {
        this.inFlight.delete(id);
        reply.error(id, (err as Error).message);
      },
    );
    return true;
  }

  /**
   * See a message after the SDK has: a cancellation reaches a plain call as the SDK's reaches its handlers, and
   * the client's `logging/setLevel` applies to plain calls' logs as to the SDK's.
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
   * A plain call's log: the session's level applies, and the message is related to the call, so on HTTP it rides
   * the call's response stream — what the SDK's per-request `ctx.mcpReq.log` does.
   */
  private logOf(server: Server, id: RequestId): Caller['log'] {
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
