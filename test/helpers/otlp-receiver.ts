// Test helper: an OTLP/HTTP traces receiver on a loopback port. It decodes each export request with the
// OpenTelemetry JS libraries' own protobuf definitions (the generated root of @opentelemetry/otlp-transformer) and
// keeps the spans, flattened, in the order they came.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import root from '@opentelemetry/otlp-transformer/build/src/generated/root.js';

type AnyValue = {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: unknown;
  doubleValue?: number | null;
};
type KeyValues = { key?: string | null; value?: AnyValue | null }[] | null;
/** ExportTraceServiceRequest as protobufjs decodes it (the generated root declares itself only as a Root). */
interface DecodedRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValues } | null;
    scopeSpans?: {
      scope?: { name?: string | null } | null;
      spans?: {
        traceId?: Uint8Array;
        spanId?: Uint8Array;
        parentSpanId?: Uint8Array;
        name?: string | null;
        kind?: number | null;
        attributes?: KeyValues;
        status?: { code?: number | null; message?: string | null } | null;
        startTimeUnixNano?: unknown;
        endTimeUnixNano?: unknown;
      }[];
    }[];
  }[];
}
const v1 = (
  root as unknown as {
    opentelemetry: {
      proto: {
        collector: {
          trace: {
            v1: {
              ExportTraceServiceRequest: { decode(bytes: Uint8Array): DecodedRequest };
              ExportTraceServiceResponse: { encode(message: object): { finish(): Uint8Array } };
            };
          };
        };
      };
    };
  }
).opentelemetry.proto.collector.trace.v1;
const { ExportTraceServiceRequest, ExportTraceServiceResponse } = v1;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a trace's root. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  startNs: bigint;
  endNs: bigint;
  /** The resource's `service.name`. */
  service: string;
  /** The instrumentation scope's name. */
  scope: string;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url: string;
  spans: ReceivedSpan[];
  /** Export requests received, with the path and content type each came with. */
  requests: { path: string; contentType: string }[];
  close(): Promise<void>;
}

const hex = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('hex');

function anyValue(v: AnyValue | null | undefined): string | number | boolean {
  if (!v) return '';
  if (v.stringValue != null) return v.stringValue;
  if (v.boolValue != null) return v.boolValue;
  if (v.doubleValue != null) return v.doubleValue;
  if (v.intValue != null) return Number(v.intValue);
  return '';
}

function attributesOf(list: KeyValues | undefined) {
  const out: Record<string, string | number | boolean> = {};
  for (const a of list ?? []) out[a.key ?? ''] = anyValue(a.value);
  return out;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', contentType: String(req.headers['content-type']) });
      const body = ExportTraceServiceRequest.decode(Buffer.concat(chunks));
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: hex(s.traceId),
              spanId: hex(s.spanId),
              parentSpanId: hex(s.parentSpanId),
              name: s.name ?? '',
              kind: s.kind ?? 0,
              attributes: attributesOf(s.attributes),
              status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
              startNs: BigInt(String(s.startTimeUnixNano ?? 0)),
              endNs: BigInt(String(s.endTimeUnixNano ?? 0)),
              service,
              scope: ss.scope?.name ?? '',
            });
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end(ExportTraceServiceResponse.encode({}).finish());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
