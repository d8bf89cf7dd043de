// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` a call arrives with — in its MCP
// `_meta` (2026-07-28 names the keys) or an HTTP header — is continued by the call and passed on to what the call
// reaches (an upstream server's `_meta`, a plugin hook's TRACEPARENT). With telemetry off, nothing is minted for a
// call that brings no trace: a call pays for tracing only when its caller traces. With it on, the call's exported
// span is its trace (`Tracer`, below; src/observe/telemetry.ts).
import { randomBytes } from 'node:crypto';

/** The trace a call belongs to, and its own span in it. */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** The span this context names as parent when passed on: 16 lowercase hex digits, not all zero. */
  spanId: string;
  /** The trace flags byte as two hex digits (`01`: sampled). */
  flags: string;
  /** The vendors' `tracestate`, passed on unchanged (at most 512 characters, as the spec lets a receiver cut). */
  tracestate?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
const MAX_TRACESTATE = 512;

/**
 * A caller's trace from a `traceparent` value (and its `tracestate`), or undefined when there is none or it is not
 * valid — an invalid one is ignored, as the spec says a receiver must (the call then simply is not traced). Version
 * 00 must be exactly four fields; a later version may add fields, which are ignored; version ff is invalid.
 */
export function parseTraceparent(traceparent: unknown, tracestate?: unknown): TraceContext | undefined {
  if (typeof traceparent !== 'string' || traceparent.length > 512) return undefined;
  const m = TRACEPARENT.exec(traceparent.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  const state = typeof tracestate === 'string' ? tracestate.trim().slice(0, MAX_TRACESTATE) : '';
  return { traceId, spanId, flags, ...(state ? { tracestate: state } : {}) };
}

/** The caller's trace from an MCP request's `_meta` (`traceparent`, `tracestate`). */
export function traceFromMeta(meta: Record<string, unknown> | undefined): TraceContext | undefined {
  return meta?.traceparent === undefined ? undefined : parseTraceparent(meta.traceparent, meta.tracestate);
}

/** A span of its own for a call in the caller's trace: same trace id and flags, a new span id. */
export function childSpan(parent: TraceContext): TraceContext {
  let spanId = randomBytes(8).toString('hex');
  while (spanId === ZERO_SPAN) spanId = randomBytes(8).toString('hex');
  return { ...parent, spanId };
}

/** The `traceparent` value that names `trace`'s span as the parent of what it calls. */
export function traceparentOf(trace: TraceContext): string {
  return `00-${trace.traceId}-${trace.spanId}-${trace.flags}`;
}

/** The W3C HTTP headers (`traceparent`, `tracestate`) that pass `trace` on. */
export function traceHeaders(trace: TraceContext): Record<string, string> {
  return traceFields(trace, { parent: 'traceparent', state: 'tracestate' });
}

/** `_meta` keys (MCP) or environment variables (TRACEPARENT, TRACESTATE) that pass `trace` on. */
export function traceFields(trace: TraceContext, keys: { parent: string; state: string }): Record<string, string> {
  return {
    [keys.parent]: traceparentOf(trace),
    ...(trace.tracestate ? { [keys.state]: trace.tracestate } : {}),
  };
}

/** Attribute values a span takes (OpenTelemetry's primitive ones); undefined ones are left out. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/**
 * A span being recorded for export (telemetry on: src/observe/telemetry.ts). `trace` names it as parent: what the
 * span's work calls is passed `trace`, so the exported span and the `traceparent` sent on are one.
 */
export interface Span {
  readonly trace: TraceContext;
  /** Add attributes as they become known. */
  set(attributes: SpanAttributes): void;
  /** End it; `error` (an error code, `isError`, an exit status) marks it failed. */
  end(error?: string): void;
}

/**
 * Starts spans; on `Services` only when telemetry is on, so core names it without depending on OpenTelemetry.
 * `parent` absent starts a new trace.
 */
export interface Tracer {
  start(name: string, parent: TraceContext | undefined, attributes: SpanAttributes, kind?: 'server' | 'client'): Span;
}
