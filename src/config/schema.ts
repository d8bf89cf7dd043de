// The configuration schema: the single source of truth for what `.switchboard/config.toml` may say.
// Strict objects: an unknown key is an error that names it. Defaults live here and nowhere else.
import { z } from 'zod';

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
  })
  .strict();

/** Exposure filter: globs over capability names (`task.*`, `system.health`); deny wins over allow. */
export const ExposeSchema = z
  .object({
    allow: z.array(z.string().min(1)).default([]),
    deny: z.array(z.string().min(1)).default([]),
  })
  .strict();

export const POLICY_DEFAULTS = {
  timeout_ms: 30_000,
  breaker: { threshold: 5, reset_ms: 30_000, half_open_probes: 1 },
  max_concurrent_per_principal: 64,
  capabilities: {},
  tokens: {},
};

const PolicySchema = z
  .object({
    /** Default per-call timeout for capabilities that set none. */
    timeout_ms: z.number().int().min(1).default(30_000),
    /** Default rate limit per principal × capability; absent means unlimited unless a capability sets one. */
    rate_limit: RateLimitSchema.optional(),
    /** Default circuit breaker for every capability. */
    breaker: BreakerSchema.default(POLICY_DEFAULTS.breaker),
    /** Calls one principal may have running at once, over all transports (excess: RATE_LIMITED). */
    max_concurrent_per_principal: z.number().int().min(1).default(64),
    /** Per-capability overrides, keyed by capability name (`[policy.capabilities."task.create"]`). */
    capabilities: z.record(z.string(), LimitsSchema).default({}),
    /** Per-token overrides, keyed by token name; they win over capability and default limits. */
    tokens: z
      .record(
        z.string(),
        // Breakers guard a capability for everyone, so they are set per capability, not per token.
        LimitsSchema.omit({ breaker: true }).extend({ expose: ExposeSchema.optional() }).strict(),
      )
      .default({}),
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
        /** Extra Host names accepted besides the loopback names and the bound host. */
        allowed_hosts: z.array(z.string()).default([]),
        /** Extra browser Origins accepted (exact origins like `https://app.example.com`). */
        allowed_origins: z.array(z.string()).default([]),
      })
      .strict()
      .default({
        host: '127.0.0.1',
        port: 7777,
        max_body_bytes: 4 * 1024 * 1024,
        allowed_hosts: [],
        allowed_origins: [],
      }),
    store: z
      .object({
        kind: z.enum(['sqlite']).default('sqlite'),
        /** Relative to the project directory. */
        path: z.string().default('.switchboard/state.db'),
      })
      .strict()
      .default({ kind: 'sqlite', path: '.switchboard/state.db' }),
    handlers: z
      .object({
        /** Folders of handler modules (`*.ts`, `*.js`, `*.mjs`), relative to the project directory. */
        paths: z.array(z.string()).default(['.switchboard/handlers']),
      })
      .strict()
      .default({ paths: ['.switchboard/handlers'] }),
    policy: PolicySchema.default(POLICY_DEFAULTS),
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
      .default({ enabled: true, retention_days: 30, max_input_bytes: 4096 }),
    expose: ExposeSchema.default({ allow: [], deny: [] }),
    system: z
      .object({
        /** An instance that sends no heartbeat for this long expires and its tasks return to pending. */
        instance_ttl_ms: z.number().int().min(100).default(30_000),
      })
      .strict()
      .default({ instance_ttl_ms: 30_000 }),
    events: z
      .object({
        /** How many recent events the store keeps for `switchboard://events` and late subscribers. */
        retain: z.number().int().min(0).default(1000),
      })
      .strict()
      .default({ retain: 1000 }),
    stdio: z
      .object({
        /** Roles of the stdio caller; `*` means all roles. */
        roles: z.array(z.string()).default(['*']),
      })
      .strict()
      .default({ roles: ['*'] }),
  })
  .strict();

export type Config = z.output<typeof ConfigSchema>;
