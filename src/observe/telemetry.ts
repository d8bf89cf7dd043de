// Whether spans are exported over OTLP, and where to: the standard OTEL_* variables and the `[telemetry]` table.
// The OpenTelemetry SDK is imported (otel.ts) only when it is on, so a hub without telemetry loads none of it and
// its calls pay nothing for it (docs/decisions.md, "Spans over OTLP").
import type { Logger } from 'pino';
import type { Config } from '../config/schema.ts';
import type { Tracer } from '../core/trace-context.ts';

/** Where and as what spans are exported. */
export interface TelemetrySettings {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
}

/** Exporting telemetry: its tracer, and the end that sends what is still queued. */
export interface Telemetry {
  tracer: Tracer;
  /** Send the queued spans now. */
  flush(): Promise<void>;
  /** Send the queued spans and stop. */
  shutdown(): Promise<void>;
}

const DEFAULT_BASE = 'http://localhost:4318';

/**
 * The export settings, or undefined when telemetry is off. On with `[telemetry] enabled = true` or an `endpoint`,
 * or with an OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT; off with `enabled = false`, and
 * always with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none (the standard switches). The table's keys win
 * over the variables.
 */
export function telemetrySettings(cfg: Config['telemetry'], env: NodeJS.ProcessEnv): TelemetrySettings | undefined {
  if (cfg?.enabled === false) return undefined;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return undefined;
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!cfg?.enabled && !cfg?.endpoint && !signal && !base) return undefined;
  // As the OTLP exporter specification says: the per-signal URL is used as is, a base URL gets `/v1/traces`.
  const url = cfg?.endpoint ? tracesUrl(cfg.endpoint) : signal || tracesUrl(base || DEFAULT_BASE);
  return {
    url,
    headers: {
      ...parseHeaders(env.OTEL_EXPORTER_OTLP_HEADERS),
      ...parseHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
      ...cfg?.headers,
    },
    serviceName: cfg?.service_name ?? (env.OTEL_SERVICE_NAME?.trim() || 'switchboard'),
  };
}

function tracesUrl(base: string): string {
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/** OTEL_EXPORTER_OTLP_HEADERS: `key=value` pairs separated by commas, values URL-encoded. */
function parseHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of text?.split(',') ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    try {
      out[key] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      out[key] = pair.slice(at + 1).trim();
    }
  }
  return out;
}

/** Start exporting when telemetry is on (loading the OpenTelemetry SDK then, and only then). */
export async function startTelemetry(
  cfg: Config['telemetry'],
  env: NodeJS.ProcessEnv,
  logger: Logger,
): Promise<Telemetry | undefined> {
  const settings = telemetrySettings(cfg, env);
  if (!settings) return undefined;
  const { startOtel } = await import('./otel.ts');
  logger.info({ url: settings.url, service: settings.serviceName }, 'exporting spans over OTLP');
  const otel = startOtel(settings);
  // A collector that is down loses spans, never a call or the hub's close.
  const warn = (err: unknown) =>
    logger.warn({ err: (err as Error).message, url: settings.url }, 'spans could not be exported');
  return {
    tracer: otel.tracer,
    flush: () => otel.flush().catch(warn),
    shutdown: () => otel.shutdown().catch(warn),
  };
}
