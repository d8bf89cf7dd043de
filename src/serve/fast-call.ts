// The measured fast path for the hot loop: a plain `tools/call` that needs nothing but the call itself is
// answered straight through the pipeline, skipping the SDK's per-message dispatch. Everything else — and any
// call whose shape is not exactly the simple case — goes to the SDK unchanged. docs/performance.md says what
// this bypasses and why it is safe.
import type { Cancellation } from '../core/cancellation.ts';
import type { ClientChannel, LogLevel, McpCallInfo, Principal, TransportKind } from '../core/context.ts';
import { paramHeadersOf } from '../core/mcp-param-headers.ts';
import type { Outcome } from '../core/pipeline.ts';
import { visible } from '../core/registry.ts';
import type { Hub } from '../hub.ts';
import { mcpRequestId } from './mcp-server.ts';

const META_PREFIX = 'io.modelcontextprotocol/';
const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const MODERN = '2026-07-28';

/** A JSON-RPC `tools/call` request in the simple shape the fast path serves. */
export interface FastCall {
  id: string | number;
  name: string;
  args: Record<string, unknown>;
  meta: Record<string, unknown> | undefined;
}

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The call, when `message` is a `tools/call` the fast path may serve for `era`: a valid id, a known tool the
 * principal may see that does not advertise parameter headers, and none of progress, multi-round-trip input or
 * (for `legacy`) a 2026 envelope. Undefined means: let the SDK handle it.
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
  if (!entry || !visible(principal, entry.capability) || entry.mcpNative) return undefined;
  if (era === 'modern' && paramHeadersOf(entry.tool.inputSchema).length > 0) return undefined;
  return { id, name: params.name, args: (params.arguments as Record<string, unknown>) ?? {}, meta };
}

export interface FastCallContext {
  principal: Principal;
  transport: TransportKind;
  era: 'legacy' | 'modern';
  /** Made for this call alone; the transport aborts it on cancel. */
  cancellation: Cancellation;
  mcp: McpCallInfo;
  client?: ClientChannel;
  log?: (level: LogLevel, data: unknown) => Promise<void>;
}

/**
 * Run a fast call. Returns its outcome (the transport encodes it), or undefined when the capability asked for input
 * (`input_required`): it is then marked so later calls skip the fast path, and the caller hands the original
 * message to the SDK, which runs the multi-round-trip exchange. Only the asking round runs twice, and asking
 * for input has no side effects by contract; any other MCP-native result is answered here as it is.
 */
export async function runFastCall(hub: Hub, call: FastCall, fc: FastCallContext): Promise<Outcome | undefined> {
  const outcome: Outcome = await hub.pipeline.call({
    principal: fc.principal,
    name: call.name,
    input: call.args,
    transport: fc.transport,
    requestId: mcpRequestId(call.id),
    cancellation: fc.cancellation,
    meta: call.meta,
    mcp: fc.mcp,
    client: fc.client,
    log: fc.log,
  });
  if (outcome.ok && outcome.raw?.mcp?.resultType === 'input_required') {
    const entry = hub.services.registry.get(call.name);
    if (entry) entry.mcpNative = true;
    return undefined;
  }
  return outcome;
}
