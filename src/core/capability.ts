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
