// The configuration schema: the single source of truth for what `.switchboard/config.toml` may say.
// Strict objects: an unknown key is an error that names it. Defaults live here and nowhere else, each once, on its
// key: a table's `.prefault({})` parses an absent table as an empty one, so its keys' own defaults fill it.
// The larger tables have files of their own beside it (schema-servers.ts, schema-agents.ts, schema-auth.ts); this file
// composes them and re-exports what they define, so importers keep one place to import the configuration from.
import { z } from 'zod';
import { AgentsSchema } from './schema-agents.ts';
import { OAuthResourceSchema, secureUrl } from './schema-auth.ts';
import { DEFAULT_MAX_MESSAGE_BYTES, messageBytes, SandboxFields, ServerSchema } from './schema-servers.ts';

export { type AgentsConfig, PERMISSION_MODES, type PermissionMode } from './schema-agents.ts';
export { OAuthResourceSchema, secureOrLoopback } from './schema-auth.ts';
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  fromMeerkatSpelling,
  SERVER_KEYS,
  SERVER_NAME,
  type ServerConfig,
  type ServerOAuthConfig,
  ServerOAuthSchema,
  ServerSchema,
} from './schema-servers.ts';

const port = z.number().int().min(0).max(65535);

const RateLimitSchema = z
  .object({
    /** Calls allowed per window (also the burst size). */
    limit: z.number().int().min(1),
    window_ms: z.number().int().min(1),
  })
  .strict();

const BreakerSchema = z
  .object({
    /** Consecutive execution failures that open the circuit. */
    threshold: z.number().int().min(1).default(5),
    /** How long the circuit stays open before a probe is let through. */
    reset_ms: z.number().int().min(1).default(30_000),
    /** Probes allowed at once while half-open. */
    half_open_probes: z.number().int().min(1).default(1),
  })
  .strict();

/** Limits that can be set globally, per capability and per token. */
const LimitsSchema = z
  .object({
    timeout_ms: z.number().int().min(1).optional(),
    rate_limit: RateLimitSchema.optional(),
    breaker: BreakerSchema.optional(),
    /** Keep a successful result this many ms for identical input and roles (0: never; docs/configuration.md). */
    cache_ms: z.number().int().min(0).optional(),
  })
  .strict();

/** Exposure filter: globs over capability names (`task.*`, `system.health`); deny wins over allow. */
export const ExposeSchema = z
  .object({
    allow: z.array(z.string().min(1)).default([]),
    deny: z.array(z.string().min(1)).default([]),
  })
  .strict();

/** How a catalog is offered to a client: every tool, or pinned tools plus the catalog search tools (docs/catalog.md). */
export const CATALOG_EXPOSURES = ['full', 'search'] as const;

/** Profile names: they appear in URLs (`/mcp/NAME`) and on the command line, so URL-safe and short. */
export const PROFILE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A named tool set (`[profiles.NAME]`, docs/catalog.md#profiles): `allow`/`deny` globs over capability names, like
 * `[expose]`, applied on top of roles and every other filter; `exposure` and `pin` are catalog search settings.
 */
export const ProfileSchema = z
  .object({
    allow: z.array(z.string().min(1)).default([]),
    deny: z.array(z.string().min(1)).default([]),
    /** See catalog search: unset takes `[catalog] exposure`. */
    exposure: z.enum(CATALOG_EXPOSURES).optional(),
    /** See catalog search: the tools listed even in `search` exposure (globs over capability names). */
    pin: z.array(z.string().min(1)).optional(),
  })
  .strict();

const ProfilesSchema = z
  .record(
    z.string().regex(PROFILE_NAME, {
      error: (issue) =>
        `profile name ${JSON.stringify(issue.input)} is invalid: a profile name is 1 to 64 characters from A-Z, a-z, 0-9, '_' and '-' (it is used in URLs as /mcp/NAME)`,
    }),
    ProfileSchema,
  )
  .default({});

const PolicySchema = z
  .object({
    /** Default per-call timeout for capabilities that set none. */
    timeout_ms: z.number().int().min(1).default(30_000),
    /** Default rate limit per principal × capability; absent means unlimited unless a capability sets one. */
    rate_limit: RateLimitSchema.optional(),
    /** Default circuit breaker for every capability. */
    breaker: BreakerSchema.prefault({}),
    /** Calls one principal may have running at once, over all transports (excess: RATE_LIMITED). */
    max_concurrent_per_principal: z.number().int().min(1).default(64),
    /** Per-capability overrides, keyed by capability name (`[policy.capabilities."task.create"]`). */
    capabilities: z.record(z.string(), LimitsSchema).default({}),
    /** Per-token overrides, keyed by token name; they win over capability and default limits. */
    tokens: z
      .record(
        z.string(),
        // Breakers and result caches are a capability's for everyone, so they are set per capability, not per token.
        LimitsSchema.omit({ breaker: true, cache_ms: true }).extend({ expose: ExposeSchema.optional() }).strict(),
      )
      .default({}),
  })
  .strict();

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Span export over OTLP/HTTP (docs/operations.md, "Telemetry (OTLP)"). Read at start: a change applies when
 * Switchboard restarts. No default table: a configuration without it reads back without one from system.config.
 */
const TelemetrySchema = z
  .object({
    /** true: export (to `endpoint`, else the OTEL_EXPORTER_OTLP_* one, else localhost:4318); false: never. */
    enabled: z.boolean().optional(),
    /** The collector's OTLP/HTTP base URL, as OTEL_EXPORTER_OTLP_ENDPOINT: spans go to `<endpoint>/v1/traces`. */
    endpoint: z
      .url({
        protocol: /^https?$/,
        error: 'expected the http:// or https:// base URL of an OTLP/HTTP receiver, e.g. http://127.0.0.1:4318',
      })
      .refine((u) => !/[?#]/.test(u), 'expected a base URL without a query or fragment, e.g. http://127.0.0.1:4318')
      .optional(),
    /** The `service.name` of the exported spans (default: OTEL_SERVICE_NAME, else `switchboard`). */
    service_name: z.string().trim().min(1).max(200).optional(),
    /** Headers sent with each export (a collector's API key), over those of OTEL_EXPORTER_OTLP_HEADERS. */
    headers: z
      .record(
        z.string().regex(HEADER_NAME, 'expected an HTTP header name such as x-api-key'),
        z.string().refine((v) => !/[\r\n]/.test(v), 'a header value must be one line'),
      )
      .optional(),
  })
  .strict();

export const ConfigSchema = z
  .object({
    server: z
      .object({
        host: z.string().default('127.0.0.1'),
        port: port.default(7777),
        /** Largest accepted HTTP request body in bytes (413 above it). */
        max_body_bytes: z
          .number()
          .int()
          .min(1024)
          .default(4 * 1024 * 1024),
        /** Items per page of tools/list, resources/list, resources/templates/list and prompts/list. */
        page_size: z.number().int().min(1).max(10_000).default(500),
        /**
         * 2025-era MCP sessions open at once on this instance (src/serve/session-capacity.ts). When full, an initialize ends an idle session (one
         * never used after its initialize first, then the one idle longest) instead of being refused.
         */
        max_sessions: z.number().int().min(1).max(1_000_000).default(1000),
        /** Sessions one principal may hold at once; beyond it, its own idlest session ends to make room. */
        max_sessions_per_principal: z.number().int().min(1).max(1_000_000).default(100),
        /** A session without a request for this long ends; its client gets 404 and initializes again. */
        session_idle_timeout_ms: z
          .number()
          .int()
          .min(1_000)
          .max(7 * 24 * 3_600_000)
          .default(3_600_000),
        /**
         * The first tools/resources/prompts list waits for upstream servers connecting without a cached catalog, each
         * up to its own `startup_timeout_ms`: clients that ignore list_changed (Codex) see only what the first list
         * holds. Set, this bounds that whole wait in ms; 0 answers at once.
         */
        first_list_wait_ms: z.number().int().min(0).max(60_000).optional(),
        /** Extra Host names accepted besides the loopback names and the bound host. */
        allowed_hosts: z.array(z.string()).default([]),
        /** Extra browser Origins accepted (exact origins like `https://app.example.com`). */
        allowed_origins: z.array(z.string()).default([]),
        /**
         * The address clients reach this server at (behind a reverse proxy, the proxy's): an origin such as
         * `https://switchboard.example.com`. It names the OAuth resource and its metadata; its host is accepted.
         */
        public_url: secureUrl('https://switchboard.example.com')
          .refine(
            (u) => /^[a-z]+:\/\/[^/?#]+\/?$/i.test(u),
            'expected an origin without a path, e.g. https://switchboard.example.com',
          )
          .optional(),
      })
      .strict()
      .prefault({}),
    store: z
      .object({
        /** `sqlite`: one file on this machine; `redis`: shared by several instances (docs/scale-out.md). */
        kind: z.enum(['sqlite', 'redis']).default('sqlite'),
        /** Relative to the project directory (sqlite). */
        path: z.string().default('.switchboard/state.db'),
        /** The Redis server (redis). */
        url: z
          .string()
          .regex(/^rediss?:\/\/\S+$/, 'expected a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379')
          .default('redis://127.0.0.1:6379'),
        /** Prepended to every Redis key: instances that serve one deployment share it, others must not. */
        prefix: z.string().min(1).max(100).default('switchboard:'),
        /** How long an idempotency key of a creating call (task.create) is remembered, in hours. */
        idempotency_retention_hours: z.number().positive().max(8784).default(24),
      })
      .strict()
      .prefault({}),
    handlers: z
      .object({
        /** Folders of handler modules (`*.ts`, `*.js`, `*.mjs`), relative to the project directory. */
        paths: z.array(z.string()).default(['.switchboard/handlers']),
        /** Under `serve`, load the modules again when a file in their folders changes. */
        watch: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    plugins: z
      .object({
        /** Extra plugin folders (a plugin, or a folder of plugins), relative to the project directory. */
        paths: z.array(z.string().min(1)).default([]),
        /** When non-empty, only these plugins load (by manifest name or folder name). */
        enabled: z.array(z.string().min(1)).default([]),
        /** These plugins never load. */
        disabled: z.array(z.string().min(1)).default([]),
        /** Re-read manifests when one changes, and update the catalog. */
        watch: z.boolean().default(true),
        /**
         * Also load the plugins Claude Code has enabled (`enabledPlugins` in its settings files), from its plugin
         * cache or marketplace folders, so Han users need not list each folder in `paths`.
         */
        claude_code: z.boolean().default(true),
        /** Hook run records older than this many days are pruned (task.metrics looks back 30 days at most). 0 keeps all. */
        retention_days: z.number().min(0).default(90),
      })
      .strict()
      .prefault({}),
    policy: PolicySchema.prefault({}),
    audit: z
      .object({
        /** Write one audit record per call to the store. */
        enabled: z.boolean().default(true),
        /** Records older than this many days are pruned at start and once an hour. 0 keeps everything. */
        retention_days: z.number().min(0).default(30),
        /** Cap on the stored (redacted) input of one record, in bytes. */
        max_input_bytes: z.number().int().min(256).max(65_536).default(4096),
      })
      .strict()
      .prefault({}),
    auth: z
      .object({
        /** Accept OAuth access tokens from an identity provider beside Switchboard's own tokens (docs/oauth.md). */
        oauth: OAuthResourceSchema.optional(),
      })
      .strict()
      // No default: a configuration without [auth] reads back from system.config without a table whose name the
      // redaction masks (`auth`), so get → set round-trips.
      .optional(),
    expose: ExposeSchema.prefault({}),
    /** Named tool sets a client selects by URL (`/mcp/NAME`), token or `serve --profile` (docs/catalog.md#profiles). */
    profiles: ProfilesSchema,
    /** What `tools/list` shows (docs/catalog.md): every tool, or the pinned ones and the catalog's search tools. */
    catalog: z
      .object({
        /** `full`: every tool the caller may see; `search`: `pin` plus the catalog's own tools (search, describe, call, run). */
        exposure: z.enum(CATALOG_EXPOSURES).default('full'),
        /** Globs over capability names (`task.*`) listed as they are when `exposure` is `search`. */
        pin: z.array(z.string().min(1)).default([]),
        /** Code mode (`catalog.run`, docs/catalog.md#code-mode): the limits of one program. */
        run: z
          .object({
            /** Wall-clock limit of one program, tool calls included (at most 10 minutes: the call's own cap). */
            timeout_ms: z.number().int().min(100).max(600_000).default(30_000),
            /** Heap of one program's engine, in bytes (at least 1 MiB). */
            memory_bytes: z
              .number()
              .int()
              .min(1024 * 1024)
              .default(64 * 1024 * 1024),
            /** Programs running at once, each on an engine thread of its own; the next waits for one to end. */
            max_running: z.number().int().min(1).max(64).default(4),
            /** Tool calls one program may make; the next one is refused. */
            max_calls: z.number().int().min(1).max(10_000).default(100),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    /** Upstream MCP servers, aggregated as `server__tool` (user and project scope merge by name; project wins). */
    servers: z
      .array(ServerSchema)
      .default([])
      .superRefine((servers, ctx) => {
        const seen = new Set<string>();
        for (const [i, s] of servers.entries()) {
          if (seen.has(s.name))
            ctx.addIssue({
              code: 'custom',
              path: [i, 'name'],
              message: `server '${s.name}' is defined twice in one file; remove one of them`,
            });
          seen.add(s.name);
        }
      }),
    system: z
      .object({
        /** An instance that sends no heartbeat for this long expires and its tasks return to pending. */
        instance_ttl_ms: z.number().int().min(100).default(30_000),
        /** Offer test.circuit, a tool that fails on purpose to exercise a circuit breaker (docs/system.md). */
        test_tools: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    events: z
      .object({
        /** How many recent events the store keeps for `switchboard://events` and late subscribers. */
        retain: z.number().int().min(0).default(1000),
      })
      .strict()
      .prefault({}),
    scripts: z
      .object({
        /** Serve the script tools and the NL scripts as prompts. */
        enabled: z.boolean().default(true),
        /** Time limit of one shell auto step (it is killed with its process group after this). */
        step_timeout_ms: z.number().int().min(100).default(600_000),
        /** Time limit of one script tool call (all the auto steps it runs before the agent is needed). */
        call_timeout_ms: z.number().int().min(100).default(1_800_000),
        /** Cap on one auto step's captured output, in bytes. */
        max_output_bytes: z
          .number()
          .int()
          .min(1024)
          .default(1024 * 1024),
        /** Finished runs (and their journals) older than this many days are deleted at start. 0 keeps them. */
        retention_days: z.number().min(0).default(7),
        /**
         * Unfinished runs whose client is gone (a stdio Switchboard that ended, an HTTP session or run_id nobody
         * came back to) are deleted after this many days without a call. 0 keeps them.
         */
        unfinished_retention_days: z.number().min(0).default(7),
      })
      .strict()
      .prefault({}),
    stdio: z
      .object({
        /** Roles of the stdio caller; `*` means all roles. */
        roles: z.array(z.string()).default(['*']),
        /** The longest message (one line) read over stdio, in bytes: from the client, and from upstream stdio servers. */
        max_message_bytes: messageBytes.default(DEFAULT_MAX_MESSAGE_BYTES),
        /**
         * Stop an upstream stdio server nobody has called for this long, in ms (0: never); it starts again on the
         * next call, and its tools stay listed from the cached catalog meanwhile. A server may set its own.
         */
        idle_timeout_ms: z.number().int().min(0).default(600_000),
      })
      .strict()
      .prefault({}),
    /** The fence every upstream stdio server runs in unless its entry says otherwise (docs/security.md#fenced-servers). */
    sandbox: z
      .object({
        /** false: servers run unfenced unless their entry has a `sandbox` table. */
        enabled: z.boolean().default(true),
        ...SandboxFields,
      })
      .strict()
      .prefault({}),
    /** The MCP server registry `switchboard mcp search` and `mcp add --from-registry` read (docs/upstream.md#registry). */
    registry: z
      .object({
        /** The registry API's base URL (the official registry's, or a company mirror's). */
        url: z
          .url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' })
          .default('https://registry.modelcontextprotocol.io'),
        /** How long a registry answer is reused, in ms (0: ask every time). */
        cache_ms: z.number().int().min(0).default(3_600_000),
      })
      .strict()
      .prefault({}),
    workspace: z
      .object({
        /**
         * Directories besides the project directory that agent sessions and scripts may work in (absolute, or
         * relative to the project directory); nothing outside these and the project is ever a working directory.
         */
        extra_dirs: z.array(z.string().min(1)).default([]),
      })
      .strict()
      .prefault({}),
    agents: AgentsSchema.prefault({}),
    /** Other tools' own wire formats, served beside Switchboard's for their clients as they are (off by default). */
    compat: z
      .object({
        /** Serve ClaudeBench's JSON-RPC endpoint, POST /rpc, over the same capabilities (coming-from-claudebench.md). */
        claudebench_rpc: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    telemetry: TelemetrySchema.optional(),
  })
  .strict();

export type Config = z.output<typeof ConfigSchema>;

// Registers the whole configuration as the hub's (`ctx.services.config.get()`): core/ names only the fields it reads
// (KernelConfig) and imports nothing above it (docs/decisions.md, "A kernel at the ground floor").
declare module '../core/context.ts' {
  interface HubTypes {
    config: Config;
  }
}
