// The capability: one typed unit of work with Zod input/output, annotations, roles and policy.
// Every source (builtin, handler modules, plugins, scripts, agents, upstream) contributes these.
import type { z } from 'zod';
import type { CallContext } from './context.ts';

/** MCP tool annotations, passed through to `tools/list` unchanged. */
export interface Annotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** Per-capability limits; the pipeline enforces them. */
export interface Policy {
  /** Abort the handler through its signal after this many ms (default from config, 30 000). */
  timeoutMs?: number;
  /** When true, progress notifications from the handler restart the timeout (an inactivity timeout). */
  progressResetsTimeout?: boolean;
  rateLimit?: { limit: number; windowMs: number };
  breaker?: { threshold: number; resetMs: number };
  /**
   * Answer identical input from principals with the same roles from a cache for `ttlMs` (ClaudeBench's
   * `@Instrumented(ttl)`). Only successful, serialisable results are kept; declare it only for a result that depends
   * on the input and the caller's roles alone. Shared by every instance on Redis unless `perInstance` (an answer that
   * describes this instance, such as `system.health`).
   */
  cache?: { ttlMs: number; perInstance?: boolean };
}

/** A content block a handler can return verbatim (MCP content: text, image, audio, resource, resource_link). */
export type ContentBlock = { type: string; [key: string]: unknown };

const RAW = Symbol.for('switchboard.rawResult');

/** A handler result that is sent as given instead of being serialised from the output value. */
export interface RawResult {
  [RAW]: true;
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  /** An MCP result object that MCP transports send verbatim (see {@link mcpResult}). */
  mcp?: Record<string, unknown>;
}

/**
 * Return MCP content blocks as they are (images, audio, embedded resources).
 *
 * @example
 * handle: () => rawResult([{ type: 'image', data: PNG_BASE64, mimeType: 'image/png' }])
 */
export function rawResult(
  content: ContentBlock[],
  extra: { structuredContent?: Record<string, unknown>; isError?: boolean } = {},
): RawResult {
  return { [RAW]: true, content, ...extra };
}

/**
 * Return an MCP result object verbatim over MCP (for example a multi-round-trip `input_required` result).
 * Other transports see its `content`, `structuredContent` and `isError`, if any; an `input_required` result fails there with UNAVAILABLE,
 * since only an MCP client can answer it.
 *
 * @example
 * handle: () => mcpResult({ content: [{ type: 'text', text: 'hi' }], _meta: { 'example/x': 1 } })
 */
export function mcpResult(result: Record<string, unknown>): RawResult {
  const content = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  const structured = result.structuredContent;
  return {
    [RAW]: true,
    content,
    ...(structured && typeof structured === 'object'
      ? { structuredContent: structured as Record<string, unknown> }
      : {}),
    ...(result.isError === true ? { isError: true } : {}),
    mcp: result,
  };
}

/** One request a server asks the client to fulfil before it retries the call (SEP-2322). */
export type InputRequest =
  | { method: 'elicitation/create'; params: Record<string, unknown> }
  | { method: 'sampling/createMessage'; params: Record<string, unknown> }
  | { method: 'roots/list'; params?: Record<string, unknown> };

/**
 * Ask the MCP client for input and to call again (multi-round-trip requests, SEP-2322). The client fulfils each
 * request, then retries the call with the answers in `ctx.mcp.inputResponses` under the same keys, and
 * `requestState` echoed in `ctx.mcp.requestState`. On 2025 sessions Switchboard fulfils the requests itself
 * (server-to-client requests) and re-runs the handler. Check `ctx.mcp` first: other transports cannot answer.
 * The capability declares `interactive: true`.
 *
 * @example
 * interactive: true,
 * handle: (_input, ctx) => {
 *   const answer = ctx.mcp?.inputResponses?.name as { action?: string; content?: { name?: string } } | undefined;
 *   if (answer?.action === 'accept') return `Hello, ${answer.content?.name}!`;
 *   return inputRequired({ name: { method: 'elicitation/create', params: { message: 'Your name?', requestedSchema } } });
 * }
 */
export function inputRequired(inputRequests: Record<string, InputRequest>, requestState?: string): RawResult {
  const requests = Object.fromEntries(
    Object.entries(inputRequests).map(([key, r]) => [key, { method: r.method, params: r.params ?? {} }]),
  );
  return mcpResult({
    resultType: 'input_required',
    ...(Object.keys(requests).length ? { inputRequests: requests } : {}),
    ...(requestState !== undefined ? { requestState } : {}),
  });
}

/** Whether a result asks the client for input (an `input_required` MCP result). */
export function isInputRequired(value: RawResult): boolean {
  return value.mcp?.resultType === 'input_required';
}

export function isRawResult(value: unknown): value is RawResult {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[RAW] === true;
}

export interface Capability<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** `domain.action`, the one identity everywhere. */
  name: string;
  title?: string;
  description: string;
  input: I;
  /** When present, sent as `outputSchema`; results are also `structuredContent`. */
  output?: O;
  annotations?: Annotations;
  /** Who may see and call it; absent or empty means every principal. */
  roles?: string[];
  policy?: Policy;
  /** Where it came from (`builtin`, `handlers:/path/file.ts`, `plugin:x`…), for listings and diagnostics. */
  source?: string;
  /** Feature name it belongs to, for `system.capabilities` (defaults to the domain). */
  feature?: string;
  /** Optional JSON Schema to advertise instead of the one derived from `input` (upstream tools). */
  inputJsonSchema?: Record<string, unknown>;
  outputJsonSchema?: Record<string, unknown>;
  /**
   * The call this one stands for (`catalog.call`): the pipeline continues as the call it returns, so roles, limits,
   * breaker, timeout, audit and metrics are the named tool's. Throws a SwitchboardError when the input names none.
   */
  forwards?: (input: unknown) => { name: string; input: unknown };
  /**
   * It runs other capabilities' code on the caller's behalf (the hook tools' plugin hooks, an agent's built-in
   * tools), and runs only what that caller could call directly (`mayCallThrough`, docs/security.md rule 2).
   * Declared so that test/policy/call-through.test.ts checks each one; `forwards` implies it.
   */
  reachesOthers?: true;
  /**
   * Seen whatever the caller's exposure filter (`[expose]`, a token's, `--only`); roles still apply. Only for tools
   * that reveal or run nothing the filter hides (the catalog's: a filter that lets `task.*` through searches those).
   */
  throughFilters?: boolean;
  /**
   * It may answer with {@link inputRequired} (ask the MCP client for input, then run again with the answers). MCP
   * transports give its calls to the SDK's multi-round-trip handling before they run; a capability that asks
   * without declaring it fails INTERNAL. Not needed for `ctx.client.elicit` / `sample`, which work on every path.
   */
  interactive?: true;
  /**
   * Its calls may take long (a test run, a script, an agent turn): a client that declared MCP's tasks extension
   * (`io.modelcontextprotocol/tasks`, protocol 2026-07-28) is answered with a task when the call has not finished at
   * once, and polls it (docs/tasks.md). `optional`: any other client gets the answer as before; `required`: a client
   * without the extension is refused, and one with it always gets a task.
   */
  task?: 'optional' | 'required';
  handle: (input: z.output<I>, ctx: CallContext) => unknown | Promise<unknown>;
}

/**
 * Declare a capability. An identity function that gives the handler typed input.
 *
 * @example
 * export default defineCapability({
 *   name: 'demo.echo', description: 'Echo the text back.',
 *   input: z.object({ text: z.string() }), output: z.object({ text: z.string() }),
 *   handle: ({ text }) => ({ text }),
 * });
 */
export function defineCapability<I extends z.ZodType, O extends z.ZodType = z.ZodType>(
  cap: Capability<I, O>,
): Capability<I, O> {
  return cap;
}

/** Structural check used when loading user modules (which may use another copy of this package). */
export function isCapability(value: unknown): value is Capability {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.name === 'string' && typeof v.handle === 'function' && typeof v.input === 'object' && v.input !== null
  );
}
