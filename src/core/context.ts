// What a handler sees of the world for one call: who called, how, a cancel signal, progress and logging,
// and the shared services (store, bus, registry). Transports build it; sources only read it.
import type { Logger } from 'pino';
import type { CancelWatch } from './cancellation.ts';
import type { ErrorInfo } from './errors.ts';
import type { LoadProblems } from './load-problems.ts';
import type { CallRequest, Outcome } from './pipeline.ts';
import type { EffectiveProfile } from './profile.ts';
import type { Registry } from './registry.ts';
import type { ServerContributions } from './server-contributions.ts';
import type { Span, TraceContext, Tracer } from './trace-context.ts';

export type TransportKind = 'stdio' | 'http' | 'rest' | 'cli' | 'internal';

/** How a caller was identified (`Principal.kind`). */
export const PRINCIPAL_KINDS = ['token', 'oauth', 'stdio', 'cli', 'anonymous', 'internal'] as const;

/** Who is calling. `roles` decide what they see and may call. */
export interface Principal {
  id: string;
  roles: string[];
  /**
   * How the caller was identified: a Switchboard token, an OAuth access token (id `oauth:<sub>`), the stdio peer,
   * the local CLI, or nobody (no tokens exist).
   */
  kind?: (typeof PRINCIPAL_KINDS)[number];
  /**
   * Exposure filter over capability names (`[expose]`, the token's own filter, `serve --only/--except`, the
   * profile's allow/deny).
   */
  sees?: (capability: string) => boolean;
  /** The profile the caller selected or is bound to (read it with `profileFor`, src/core/profile.ts). */
  profile?: EffectiveProfile;
}

/** One event per call, published on the bus after the call ends. */
export interface CallEvent {
  type: 'call';
  name: string;
  input: unknown;
  output?: unknown;
  error?: ErrorInfo;
  principal: string;
  transport: TransportKind;
  requestId: string;
  durationMs: number;
  at: string;
}

/** Events about the hub itself: registry changes, instance expiry, config changes. */
export interface HubEvent {
  type: 'registry.changed' | 'instance.registered' | 'instance.expired' | 'config.changed' | 'task.changed' | string;
  at: string;
  [key: string]: unknown;
}

export type BusEvent = CallEvent | HubEvent;

/** In-process publish/subscribe; a Redis-backed implementation can replace it for scale-out. */
export interface EventBus {
  publish(event: BusEvent): void;
  subscribe(listener: (event: BusEvent) => void): () => void;
}

/** Server-to-client requests, present only when the calling MCP client can answer them. */
export interface ClientChannel {
  sample?: (params: Record<string, unknown>) => Promise<unknown>;
  elicit?: (params: Record<string, unknown>) => Promise<unknown>;
}

export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error';

/**
 * What a call carries only when it arrives over MCP (absent over REST, the CLI and internal calls).
 * Handlers that use it must keep working without it.
 */
export interface McpCallInfo {
  /** `legacy`: a 2025-era session (initialize); `modern`: a stateless 2026-07-28 request. */
  era: 'legacy' | 'modern';
  /** The protocol revision the request was made under, when known. */
  protocolVersion?: string;
  /** Capabilities the client declared: per request on 2026-07-28, at initialize on 2025 sessions. */
  clientCapabilities?: Record<string, unknown>;
  /**
   * Multi-round-trip answers (SEP-2322): the client's results for the `inputRequests` of an earlier
   * {@link inputRequired} result, keyed as they were asked. Untrusted input: validate before use.
   */
  inputResponses?: Record<string, unknown>;
  /**
   * The `requestState` string of an earlier `inputRequired` result, echoed back by the client. The transport
   * seals it when it leaves and verifies it when it returns, so a handler sees only state it minted.
   */
  requestState?: string;
  /**
   * End this call's response stream now (SEP-1699 polling); the client reconnects with `Last-Event-ID` and
   * receives the result from the session's event store. Present only on resumable 2025 HTTP sessions.
   */
  closeStream?: () => void;
  /**
   * The `Mcp-Session-Id` of a 2025 Streamable HTTP session: a stable key for per-client state (script stacks).
   * Absent over stdio (the process is the client) and on stateless 2026-07-28 requests.
   */
  sessionId?: string;
}

export interface CallContext {
  principal: Principal;
  transport: TransportKind;
  /** Unique per call; appears in events, logs and the audit record. */
  requestId: string;
  /** Aborted on timeout, client cancel or disconnect. Pass it to everything that can wait. */
  signal: AbortSignal;
  /**
   * The same cancellation as `signal`, as a callback: code that only needs to react to it (the upstream proxy's
   * hot path) uses this and no AbortController is made for the call. Set on every pipeline call.
   */
  cancellation?: CancelWatch;
  /** Report progress; forwarded as `notifications/progress` when the client asked for it. */
  progress: (progress: number, total?: number, message?: string) => Promise<void>;
  /** Log to the client (MCP `notifications/message`) and to stderr. */
  log: (level: LogLevel, data: unknown) => Promise<void>;
  client: ClientChannel;
  /** Raw MCP request `_meta`, when the call came over MCP. */
  meta?: Record<string, unknown>;
  /** MCP-only request data (client capabilities, multi-round-trip input); absent on other transports. */
  mcp?: McpCallInfo;
  /**
   * This call's span in its caller's W3C trace (the caller sent a `traceparent`): pass it on to what the call reaches
   * (`traceFields`, core/trace-context.ts). Absent when the caller does not trace and telemetry is off.
   */
  trace?: TraceContext;
  /**
   * This call's exported span, when telemetry is on (its `trace` is `trace` above): a source adds what only it
   * learns, such as the upstream round trip.
   */
  span?: Span;
  services: Services;
}

/** Long-lived services shared by every call. */
export interface Services {
  registry: Registry;
  store: HubStore;
  bus: EventBus;
  logger: Logger;
  /** Identity of this Switchboard process (for several instances sharing one store). */
  instanceId: string;
  /** The project directory (`--cwd`, where `.switchboard/` lives); handlers resolve project paths against it. */
  projectDir: string;
  startedAt: Date;
  /** Read-only view of metrics per capability; see observe/metrics. */
  metrics: MetricsView;
  /** Live configuration access; see config/. */
  config: ConfigAccess;
  /** Health checks contributed by components (`store`, `breakers`, `upstream`, `plugins`, …). */
  health: HealthRegistry;
  /** Feature status for `system.capabilities`. */
  features: FeatureRegistry;
  /** Upstream servers sources bring besides the config file (a plugin's `mcp_servers`). */
  servers: ServerContributions;
  /** Files found but not usable (a handler module that fails to load, an invalid plugin manifest, a broken script). */
  problems: LoadProblems;
  /**
   * Resolves when the catalog may be listed (the hub's `catalogReady`): a search waits for it as `tools/list` does.
   * Set once the hub has started its sources.
   */
  catalogReady?: () => Promise<void>;
  /**
   * Run a call through the hub's pipeline, as a transport would (set when the pipeline is assembled): code mode
   * (`catalog.run`) calls each tool a program asks for through it, as its caller.
   */
  callTool?: (req: CallRequest) => Promise<Outcome>;
  /**
   * Why a name no capability has is still worth explaining: a tool an upstream server offers but that is withheld
   * until an operator approves its definition (src/sources/upstream/pins.ts). Set by the upstream source.
   */
  withheld?: (name: string, principal: Principal) => ErrorInfo | undefined;
  /** Starts the spans exported over OTLP; present only when telemetry is on (src/observe/telemetry.ts). */
  tracer?: Tracer;
}

export interface CapabilityMetrics {
  calls: number;
  errors: number;
  inFlight: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number; mean: number };
  /** Calls and errors per transport (stdio, http, rest, cli, internal). */
  transports: Record<string, { calls: number; errors: number }>;
  /** For a capability that keeps results (`policy.cache`): calls answered from them, and calls that ran. */
  cache?: { hits: number; misses: number };
}

export interface MetricsView {
  snapshot(): Record<string, CapabilityMetrics>;
  /** Each capability's latency histogram since start, as instances on a shared store publish it to be merged. */
  latency(): Record<string, LatencySnapshot>;
}

/**
 * A latency histogram in portable form (src/observe/latency-histogram.ts): counts of fixed buckets, which add up
 * exactly across instances.
 */
export interface LatencySnapshot {
  /** The buckets' layout; histograms of another layout are not merged. */
  layout: string;
  /** The non-empty buckets, as [bucket index, observations]. */
  buckets: [number, number][];
  /** Seconds. */
  sum: number;
  min: number;
  max: number;
}

/**
 * The configuration core/ reads itself. config/ owns the whole schema (src/config/schema.ts); core/ imports nothing
 * above it, so it names only these fields, and `Config` has them (test/core/layers.test.ts checks).
 */
export interface KernelConfig {
  policy: { timeout_ms: number };
  store: { idempotency_retention_hours: number };
  profiles: Record<string, { allow: string[]; deny: string[]; exposure?: 'full' | 'search'; pin?: string[] }>;
  catalog: { exposure: 'full' | 'search'; pin: string[] };
}

/**
 * The types of the layers above core/, registered by declaration merging so `Services` carries them whole without
 * core/ importing them: src/config/schema.ts adds `config: Config`, src/store/contract.ts adds `store: Store`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by declaration merging (see above).
export interface HubTypes {}

/** The hub's configuration: `Config`, as config/ registers it in {@link HubTypes}. */
export type HubConfig = HubTypes extends { config: infer C extends KernelConfig } ? C : KernelConfig;
/** The hub's shared state: the `Store` contract, as store/ registers it in {@link HubTypes}. */
export type HubStore = HubTypes extends { store: infer S } ? S : unknown;

/** A value in effect that the configuration files do not give: `serve --port 0` binds a port the file never names. */
export interface ConfigOverride {
  /** Dotted key (`server.port`). */
  key: string;
  value: unknown;
  /** Where it came from (`serve --port 0`). */
  from: string;
  /** What the configuration says there (the files, or the default). */
  configured: unknown;
}

export interface ConfigAccess {
  /** The effective configuration (user + project, expanded, validated). */
  get(): HubConfig;
  /** The configuration in effect as written: user + project or the last change, `${VAR}` unexpanded, no defaults. */
  raw(): Record<string, unknown>;
  /** Validate and apply a whole new configuration; invalid → SwitchboardError INVALID_INPUT, nothing applied. */
  replace(next: unknown, opts?: { persist?: boolean }): Promise<HubConfig>;
  /** Apply an RFC 7396 merge patch; the result is validated before it applies. */
  patch(patch: unknown, opts?: { persist?: boolean }): Promise<HubConfig>;
  /** Path of the project config file that `persist` writes. */
  projectFile: string;
  /** Values in effect that the configuration files do not give (`serve --port`), each with where it came from. */
  overridden(): ConfigOverride[];
  onChange(listener: (config: HubConfig) => void): () => void;
}

export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy';
export interface HealthCheck {
  status: HealthStatus;
  detail?: string;
}
export interface HealthRegistry {
  register(name: string, check: () => HealthCheck | Promise<HealthCheck>): void;
  run(): Promise<{ status: HealthStatus; services: Record<string, HealthCheck> }>;
}

export type FeatureStatus = 'Available' | 'DisabledByPolicy' | 'NotConfigured';
export interface Feature {
  name: string;
  status: FeatureStatus;
  contractVersion: string;
  description: string;
  reason?: string;
}
export interface FeatureRegistry {
  set(feature: Feature): void;
  list(): Feature[];
}
