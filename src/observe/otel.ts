// The OpenTelemetry SDK behind core's Tracer: a provider with a batch processor and the OTLP/HTTP (protobuf)
// exporter. Imported only when telemetry is on (telemetry.ts). The provider is the hub's own, not registered as
// the global one: Switchboard passes its spans' context on itself (`traceparent` in `_meta`, HTTP headers, env).
import {
  type Context,
  createTraceState,
  type Span as OtelSpan,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Span, SpanAttributes, TraceContext, Tracer } from '../core/trace-context.ts';
import { version } from '../version.ts';
import type { Telemetry, TelemetrySettings } from './telemetry.ts';

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT } as const;

class ExportedSpan implements Span {
  readonly trace: TraceContext;

  constructor(readonly span: OtelSpan) {
    const sc = span.spanContext();
    const state = sc.traceState?.serialize();
    this.trace = {
      traceId: sc.traceId,
      spanId: sc.spanId,
      flags: sc.traceFlags.toString(16).padStart(2, '0'),
      ...(state ? { tracestate: state } : {}),
    };
  }

  set(attributes: SpanAttributes): void {
    for (const key in attributes) {
      const value = attributes[key];
      if (value !== undefined) this.span.setAttribute(key, value);
    }
  }

  end(error?: string): void {
    if (error !== undefined) {
      this.span.setAttribute(ATTR_ERROR_TYPE, error);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: error });
    }
    this.span.end(now());
  }
}

/**
 * One clock for every span, in epoch ms with a fraction: the process's monotonic clock from its fixed origin. The
 * SDK anchors a span to `Date.now()` (whole ms) unless it inherits its parent's clock, so a child started within the
 * millisecond its parent did could seem to start before it.
 */
const now = () => performance.timeOrigin + performance.now();

export function startOtel(settings: TelemetrySettings): Telemetry {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName, [ATTR_SERVICE_VERSION]: version }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.url, headers: settings.headers }))],
  });
  const otel = provider.getTracer('switchboard', version);
  // A parent that is one of our own spans is passed as that span; any other (the caller's) as a remote context.
  const ours = new WeakMap<TraceContext, OtelSpan>();
  const contextOf = (parent: TraceContext | undefined): Context => {
    if (!parent) return ROOT_CONTEXT;
    const own = ours.get(parent);
    if (own) return trace.setSpan(ROOT_CONTEXT, own);
    return trace.setSpanContext(ROOT_CONTEXT, {
      traceId: parent.traceId,
      spanId: parent.spanId,
      traceFlags: Number.parseInt(parent.flags, 16),
      isRemote: true,
      ...(parent.tracestate ? { traceState: createTraceState(parent.tracestate) } : {}),
    });
  };
  const tracer: Tracer = {
    start(name, parent, attributes, kind) {
      const span = otel.startSpan(
        name,
        { kind: kind ? KINDS[kind] : SpanKind.INTERNAL, startTime: now() },
        contextOf(parent),
      );
      const exported = new ExportedSpan(span);
      exported.set(attributes);
      ours.set(exported.trace, span);
      return exported;
    },
  };
  return {
    tracer,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}
