// What the pipeline tells the observers of every call: the in-flight gauges when it starts; metrics (in memory for
// `system.metrics`, Prometheus for /metrics), one `call` event on the bus and the audit record when it ends; with
// telemetry on, the call's span from start to end. The hub lists them in the pipeline (`assemblePipeline` in
// src/hub.ts); none of them may change the answer.
import type { EventBus } from '../core/context.ts';
import { isoTime } from '../core/iso-time.ts';
import type { CallState, Outcome } from '../core/pipeline.ts';
import type { Tracer } from '../core/trace-context.ts';
import type { AuditWriter } from './audit.ts';
import { bucketOf } from './latency-histogram.ts';
import type { CallMetrics } from './metrics.ts';
import type { PromMetrics } from './prometheus.ts';

export class CallObservers {
  constructor(
    private readonly metrics: CallMetrics,
    private readonly prom: PromMetrics,
    private readonly bus: EventBus,
    readonly audit: AuditWriter,
    /** Present when telemetry is on. */
    private readonly tracer?: Tracer,
    /** The state of a capability's circuit, for its span. */
    private readonly breakerState: (capability: string) => string = () => 'closed',
  ) {}

  /**
   * A call passed lookup: its span starts (a child of the caller's `traceparent`, else a new trace) and becomes the
   * call's trace, so what the call passes on and the audit record name this span. Names and attributes follow
   * OpenTelemetry's MCP conventions where they have one (docs/operations.md, "Telemetry (OTLP)").
   */
  readonly spanStarted = (state: CallState): void => {
    const { req, entry } = state;
    const span = (this.tracer as Tracer).start(
      `tools/call ${entry.tool.name}`,
      req.trace,
      {
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': entry.tool.name,
        'mcp.session.id': req.mcp?.sessionId,
        'jsonrpc.request.id': req.requestId,
        'switchboard.capability': entry.capability.name,
        'switchboard.principal': req.principal.id,
        'switchboard.transport': req.transport,
      },
      'server',
    );
    state.span = span;
    state.ctx.span = span;
    state.ctx.trace = span.trace;
  };

  /** A call ended: its span gets the outcome, the cache's answer and the circuit's state, and ends. */
  readonly spanEnded = (state: CallState, outcome: Outcome): void => {
    const span = state.span;
    if (!span) return;
    const failure = failureOf(outcome);
    span.set({
      'switchboard.outcome': failure ?? 'ok',
      'switchboard.cache.hit': state.cache === undefined ? undefined : state.cache === 'hit',
      'switchboard.breaker.state': this.breakerState(state.entry.capability.name),
    });
    // An MCP tool's error result is `tool_error` in the MCP conventions.
    span.end(failure === 'isError' ? 'tool_error' : failure);
  };

  /** A call passed lookup: count it in flight. */
  readonly started = (state: CallState): void => {
    this.metrics.started(state.entry.capability.name);
    this.prom.started(state.entry.capability.name, state.req.transport);
  };

  /** A call ended: its latency and outcome, in memory and for Prometheus. */
  readonly measured = (state: CallState, outcome: Outcome): void => {
    const seconds = state.durationMs / 1000;
    // Both keep the one latency histogram type: the bucket is found once for the two.
    const bucket = bucketOf(seconds);
    const failure = failureOf(outcome);
    this.metrics.finished(state.entry.capability.name, seconds, failure !== undefined, state.req.transport, bucket);
    this.prom.finished(state.entry.capability.name, state.req.transport, seconds, failure, bucket);
    if (state.cache) {
      this.metrics.cached(state.entry.capability.name, state.cache);
      this.prom.cached(state.entry.capability.name, state.cache);
    }
  };

  /** A call ended: one `call` event on the bus (stored events mask secret-looking keys and cap large values). */
  readonly published = (state: CallState, outcome: Outcome): void => {
    this.bus.publish({
      type: 'call',
      name: state.entry.capability.name,
      // Raw on the in-process bus; outwardEvent() redacts wherever an event leaves the process.
      input: state.req.input,
      ...(outcome.ok ? { output: outcome.raw ? outcome.raw.content : outcome.value } : { error: outcome.error }),
      principal: state.req.principal.id,
      transport: state.req.transport,
      requestId: state.ctx.requestId,
      durationMs: Math.round(state.durationMs * 1000) / 1000,
      at: isoTime(Date.now()),
    });
  };
}

/**
 * What the metrics count a call's failure as: its error code, or `isError` when the tool answered an error result
 * (a plugin hook that exited non-zero, an upstream tool's error) — a failed run, though not a fault of the capability
 * (the breaker does not count it). Undefined for a success.
 */
function failureOf(outcome: Outcome): string | undefined {
  if (!outcome.ok) return outcome.error.code;
  return outcome.raw?.isError ? 'isError' : undefined;
}
