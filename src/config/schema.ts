// The configuration schema: the single source of truth for what `.switchboard/config.toml` may say.
// Strict objects: an unknown key is an error that names it. Defaults live here and nowhere else.
// Past ~400 lines on purpose: every key of config.toml on one page, as docs/configuration.md reads it.
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

/** The largest newline-delimited JSON message read over stdio unless configured: the MCP SDK's own default. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A stdio message size limit: from 1 KiB up to 256 MiB (a line becomes one string; V8 caps strings near 512 MB). */
const messageBytes = z
  .number()
  .int()
  .min(1024)
  .max(256 * 1024 * 1024);

/** Upstream server names: they become the first segment of tool names (`filesystem__read_file`). */
export const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const GlobListSchema = z
  .object({
    allow: z.array(z.string().min(1)).default([]),
    deny: z.array(z.string().min(1)).default([]),
  })
  .strict();

/**
 * How Switchboard logs in to an OAuth-protected remote server (`[servers.oauth]`, docs/oauth.md#upstream-servers).
 * The table's presence turns OAuth on; every field is optional: without a client_id the authorization server is
 * discovered and the client registered (a client ID metadata document when `client_metadata_url` is given and the
 * server supports it, else dynamic registration).
 */
export const ServerOAuthSchema = z
  .object({
    /** A client registered with the authorization server beforehand (no dynamic registration). */
    client_id: z.string().min(1).optional(),
    /** Its secret, normally `${VAR}`; left out for a public client. */
    client_secret: z.string().min(1).optional(),
    /** Scopes asked for at login, beside those the server names in its challenge. */
    scopes: z
      .array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'a scope is one word of printable ASCII'))
      .default([]),
    /** One login for every caller (a team account); otherwise each principal logs in as themselves. */
    shared: z.boolean().default(false),
    /** An https URL serving this client's metadata document (SEP-991), used as client_id where supported. */
    client_metadata_url: z.url({ protocol: /^https$/, error: 'expected an https:// URL' }).optional(),
    /** The name the authorization server shows on its consent page. */
    client_name: z.string().min(1).default('Switchboard'),
  })
  .strict();

/**
 * Meerkat's `.rkat/mcp.toml` spellings of a server entry, as Switchboard's own, so its `[[servers]]` tables work
 * pasted unchanged: `transport = "streamable-http"` is `http` (the default for a url), `connect_timeout_secs` is
 * `startup_timeout_ms` (both bound connect + handshake + the first tools/list). `mcp import --from meerkat` writes
 * the result; the server schema reads through it.
 */
export function fromMeerkatSpelling(entry: Record<string, unknown>): {
  entry: Record<string, unknown>;
  issues: { path: string; message: string }[];
} {
  const out: Record<string, unknown> = { ...entry };
  const issues: { path: string; message: string }[] = [];
  if (out.transport === 'streamable-http') out.transport = 'http';
  if ('connect_timeout_secs' in out) {
    const secs = out.connect_timeout_secs;
    delete out.connect_timeout_secs;
    const path = 'connect_timeout_secs';
    if (!Number.isInteger(secs) || (secs as number) < 1)
      issues.push({
        path,
        message: `expected a whole number of seconds, at least 1 (Meerkat's name for startup_timeout_ms), got ${JSON.stringify(secs)}`,
      });
    else if (out.startup_timeout_ms !== undefined)
      issues.push({
        path,
        message: 'give either connect_timeout_secs (seconds, as Meerkat writes it) or startup_timeout_ms, not both',
      });
    else out.startup_timeout_ms = (secs as number) * 1000;
  }
  return { entry: out, issues };
}

function readMeerkatSpelling(entry: unknown, ctx: z.RefinementCtx): unknown {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return entry;
  const read = fromMeerkatSpelling(entry as Record<string, unknown>);
  for (const i of read.issues) ctx.addIssue({ code: 'custom', path: [i.path], message: i.message });
  return read.entry;
}

const ServerFields = z
  .object({
    name: z
      .string()
      .regex(SERVER_NAME, 'expected 1-64 characters of A-Z a-z 0-9 _ - (it becomes the tool name prefix)'),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    url: z.string().min(1).optional(),
    headers: z.record(z.string(), z.string()).default({}),
    /** `http` is Streamable HTTP (Meerkat's `streamable-http` reads as it). */
    transport: z
      .enum(['stdio', 'http', 'sse'], {
        error: (iss) => `expected stdio, http (or streamable-http) or sse, got ${JSON.stringify(iss.input)}`,
      })
      .optional(),
    enabled: z.boolean().default(true),
    /** Per-call timeout; progress notifications from the server extend it. */
    timeout_ms: z.number().int().min(1).default(60_000),
    /** How long connecting and listing may take before the server counts as failed (and is retried). */
    startup_timeout_ms: z.number().int().min(1).default(30_000),
    /** Globs over the server's own tool names; deny wins over allow; empty allow means all. */
    tools: GlobListSchema.default({ allow: [], deny: [] }),
    /** Roles that may see and call this server's tools, resources and prompts (empty: everyone). */
    roles: z.array(z.string()).default([]),
    /** A stdio server's longest answer line in bytes; unset: `[stdio] max_message_bytes`. */
    max_message_bytes: messageBytes.optional(),
    /** OAuth login for a remote server (docs/oauth.md#upstream-servers). */
    oauth: ServerOAuthSchema.optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    if (s.command && s.oauth)
      ctx.addIssue({
        code: 'custom',
        path: ['oauth'],
        message: `server '${s.name}' runs a command: OAuth is for remote servers (url); a stdio server gets its credentials from env`,
      });
    if (s.oauth?.client_secret && !s.oauth.client_id)
      ctx.addIssue({
        code: 'custom',
        path: ['oauth', 'client_secret'],
        message: `server '${s.name}' has oauth.client_secret without oauth.client_id: give the pre-registered client's id too`,
      });
    if (s.url && s.max_message_bytes !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['max_message_bytes'],
        message: `server '${s.name}' has a url: max_message_bytes limits the lines a stdio server (command) writes; remove it`,
      });
    if (s.command && s.url)
      ctx.addIssue({
        code: 'custom',
        path: ['url'],
        message: `server '${s.name}' has both command and url: give command (+ args, env, cwd) for a stdio server or url (+ headers, transport) for a remote one`,
      });
    if (!s.command && !s.url)
      ctx.addIssue({
        code: 'custom',
        path: ['command'],
        message: `server '${s.name}' needs either command (a stdio server) or url (a Streamable HTTP or SSE server)`,
      });
    if (s.command && s.transport && s.transport !== 'stdio')
      ctx.addIssue({
        code: 'custom',
        path: ['transport'],
        message: `server '${s.name}' runs a command, so its transport is stdio, not ${s.transport}`,
      });
    if (s.url && s.transport === 'stdio')
      ctx.addIssue({
        code: 'custom',
        path: ['transport'],
        message: `server '${s.name}' has a url, so its transport is http or sse, not stdio`,
      });
  });

/**
 * One upstream MCP server (`[[servers]]`): a child process over stdio (`command`) or a URL (`url`, Streamable HTTP
 * unless `transport = "sse"`). Strings keep their `${VAR}` references here; they are expanded per server when it
 * connects, so one server's missing variable fails that server alone. Meerkat's spellings are read too.
 */
export const ServerSchema = z.preprocess(readMeerkatSpelling, ServerFields);

/** The keys a `[[servers]]` entry takes, named when one is unknown (Meerkat's spellings included). */
export const SERVER_KEYS = [...Object.keys(ServerFields.shape), 'connect_timeout_secs'];

export type ServerConfig = z.output<typeof ServerSchema>;
export type ServerOAuthConfig = z.output<typeof ServerOAuthSchema>;

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
        // Breakers and result caches are a capability's for everyone, so they are set per capability, not per token.
        LimitsSchema.omit({ breaker: true, cache_ms: true }).extend({ expose: ExposeSchema.optional() }).strict(),
      )
      .default({}),
  })
  .strict();

/**
 * claude's `--permission-mode`s, from the least to the most a headless session may do: `plan` changes nothing,
 * `dontAsk` and `default` run only what claude's own settings pre-approve (nobody answers a prompt in `-p` mode),
 * `acceptEdits` also edits files, `auto` lets a classifier approve commands, `bypassPermissions` runs anything.
 * The order is how a grant is compared: a session may use a mode at or below the one it was granted.
 */
export const PERMISSION_MODES = ['plan', 'dontAsk', 'default', 'acceptEdits', 'auto', 'bypassPermissions'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** `[agents.providers.claude-cli]`: the `claude` binary run per turn. */
const ClaudeCliProviderSchema = z
  .object({
    /** The command; a bare name is looked up on PATH and in the project's and Switchboard's node_modules/.bin. */
    command: z.string().min(1).default('claude'),
    /** The most any claude-cli session may use (agent.json grants up to this; see docs/agents.md#permissions). */
    permission_mode: z.enum(PERMISSION_MODES).default('acceptEdits'),
    /** Extra environment for the child (`${VAR}` expands); ANTHROPIC_* and CLAUDE_* of the hub pass through. */
    env: z.record(z.string(), z.string()).default({}),
    /** Default model (`--model`); unset lets claude choose. */
    model: z.string().min(1).optional(),
  })
  .strict();

/** `[agents.providers.anthropic]` / `.openai]` / `.gemini]`: a model API reached over HTTP. */
const ApiProviderSchema = (defaultModel: string) =>
  z
    .object({
      /** The key; when unset the provider's environment variable is read (never tool input). */
      api_key: z.string().min(1).optional(),
      /** Base URL; when unset the provider's `*_BASE_URL` variable, else the public endpoint. */
      base_url: z.string().url().optional(),
      model: z.string().min(1).default(defaultModel),
    })
    .strict();

const AGENTS_DEFAULTS = {
  default_provider: 'claude-cli' as const,
  max_tokens: 4096,
  max_model_calls: 50,
  turn_timeout_ms: 1_800_000,
  sync_timeout_ms: 600_000,
  max_running: 20,
  max_output_chars: 20_000,
  builtins: true,
  shell: true,
  providers: {
    'claude-cli': { command: 'claude', permission_mode: 'acceptEdits' as const, env: {} },
    anthropic: { model: 'claude-sonnet-5' },
    openai: { model: 'gpt-5.4' },
    gemini: { model: 'gemini-3.5-flash' },
  },
};

/** `[agents]`: sub-agent sessions (see docs/agents.md). */
const AgentsSchema = z
  .object({
    /** Provider when neither the call nor the agent definition names one. */
    default_provider: z.enum(['claude-cli', 'anthropic', 'openai', 'gemini']).default('claude-cli'),
    /** Default max tokens per model call on the API providers. */
    max_tokens: z.number().int().min(1).default(4096),
    /** Model calls one turn may make on the API providers before it stops (a tool loop that never ends). */
    max_model_calls: z.number().int().min(1).max(1000).default(50),
    /** A turn (every provider) is cancelled after this long. */
    turn_timeout_ms: z.number().int().min(1000).default(1_800_000),
    /** Time limit of a synchronous agent__start / agent__resume call; longer runs belong to `async`. */
    sync_timeout_ms: z.number().int().min(1000).default(600_000),
    /** Turns that may run at once in this process; more are refused with RATE_LIMITED. */
    max_running: z.number().int().min(1).default(20),
    /** Final texts longer than this are cut in tool results (the transcript keeps everything). */
    max_output_chars: z.number().int().min(100).default(20_000),
    /** Whether `enable_builtins` may be used at all (an agent.json must still allow them). */
    builtins: z.boolean().default(true),
    /** Whether `builtin_config.enable_shell` may be used at all (an agent.json must still say `"shell": true`). */
    shell: z.boolean().default(true),
    providers: z
      .object({
        'claude-cli': ClaudeCliProviderSchema.default(AGENTS_DEFAULTS.providers['claude-cli']),
        anthropic: ApiProviderSchema('claude-sonnet-5').default(AGENTS_DEFAULTS.providers.anthropic),
        openai: ApiProviderSchema('gpt-5.4').default(AGENTS_DEFAULTS.providers.openai),
        gemini: ApiProviderSchema('gemini-3.5-flash').default(AGENTS_DEFAULTS.providers.gemini),
      })
      .strict()
      .default(AGENTS_DEFAULTS.providers),
  })
  .strict();

/** Whether a URL may name an authorization server or a public address: https, or http on a loopback host (tests, local IdPs). */
export function secureOrLoopback(text: string): boolean {
  try {
    const u = new URL(text);
    return (
      u.protocol === 'https:' || (u.protocol === 'http:' && /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/.test(u.hostname))
    );
  } catch {
    return false;
  }
}

const secureUrl = (example: string) =>
  z.string().refine(secureOrLoopback, `expected an https:// URL (http:// only on a loopback host), e.g. ${example}`);

/** `[auth.oauth]`: Switchboard as an OAuth 2.1 resource server accepting JWT access tokens from one issuer. */
export const OAuthResourceSchema = z
  .object({
    /** The authorization server, exactly as its tokens' `iss` claim says it. */
    issuer: secureUrl('https://login.example.com/realms/team'),
    /** The `aud` tokens must carry and the resource identifier Switchboard publishes; unset: `[server] public_url`, else the bound URL. */
    audience: z.string().min(1).optional(),
    /** Where the issuer's signing keys are; unset: `jwks_uri` from the issuer's RFC 8414 or OpenID metadata. */
    jwks_uri: secureUrl('https://login.example.com/realms/team/protocol/openid-connect/certs').optional(),
    /** Scopes published in the protected resource metadata; unset: the scopes `roles` maps. */
    scopes_supported: z.array(z.string().min(1)).optional(),
    /** Scope → Switchboard roles. A token's roles are the union over its scopes (and groups). */
    roles: z.record(z.string().min(1), z.array(z.string().min(1))).default({}),
    /** The claim holding the caller's groups (`groups`, `roles`, …), for `group_roles`. */
    groups_claim: z.string().min(1).optional(),
    /** Group (a value of `groups_claim`) → Switchboard roles. */
    group_roles: z.record(z.string().min(1), z.array(z.string().min(1))).default({}),
    /** Seconds of clock difference tolerated when checking `exp` and `nbf`. */
    clock_tolerance_s: z.number().int().min(0).max(600).default(30),
    /** A token signed by a key not in the cached key set refetches the set at most this often (ms). */
    jwks_cooldown_ms: z.number().int().min(0).max(3_600_000).default(30_000),
    /** The dashboard's client id at the issuer (a public client, redirect URI `<public_url>/ui/`); unset: no OAuth sign-in on /ui. */
    dashboard_client_id: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (Object.keys(o.group_roles).length > 0 && !o.groups_claim)
      ctx.addIssue({
        code: 'custom',
        path: ['group_roles'],
        message:
          'group_roles needs groups_claim: name the token claim that lists the groups, e.g. groups_claim = "groups"',
      });
    if (Object.keys(o.roles).length === 0 && Object.keys(o.group_roles).length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['roles'],
        message:
          'maps no scope to a role, so every OAuth caller would be refused; add e.g. [auth.oauth.roles] "switchboard:agent" = ["agent"]',
      });
  });

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
         * How long the first tools/resources/prompts list waits, in ms, for sources still discovering what they offer
         * (upstream servers connecting without a cached catalog). Clients that ignore list_changed (Codex) see
         * only what the first list holds. 0 answers at once.
         */
        first_list_wait_ms: z.number().int().min(0).max(60_000).default(3_000),
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
      .default({
        host: '127.0.0.1',
        port: 7777,
        max_body_bytes: 4 * 1024 * 1024,
        page_size: 500,
        first_list_wait_ms: 3_000,
        allowed_hosts: [],
        allowed_origins: [],
      }),
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
      .default({
        kind: 'sqlite',
        path: '.switchboard/state.db',
        url: 'redis://127.0.0.1:6379',
        prefix: 'switchboard:',
        idempotency_retention_hours: 24,
      }),
    handlers: z
      .object({
        /** Folders of handler modules (`*.ts`, `*.js`, `*.mjs`), relative to the project directory. */
        paths: z.array(z.string()).default(['.switchboard/handlers']),
      })
      .strict()
      .default({ paths: ['.switchboard/handlers'] }),
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
      .default({ paths: [], enabled: [], disabled: [], watch: true, claude_code: true, retention_days: 90 }),
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
    auth: z
      .object({
        /** Accept OAuth access tokens from an identity provider beside Switchboard's own tokens (docs/oauth.md). */
        oauth: OAuthResourceSchema.optional(),
      })
      .strict()
      // No default: a configuration without [auth] reads back from system.config without a table whose name the
      // redaction masks (`auth`), so get → set round-trips.
      .optional(),
    expose: ExposeSchema.default({ allow: [], deny: [] }),
    /** Named tool sets a client selects by URL (`/mcp/NAME`), token or `serve --profile` (docs/catalog.md#profiles). */
    profiles: ProfilesSchema,
    /** What `tools/list` shows (docs/catalog.md): every tool, or the pinned ones and the catalog's search tools. */
    catalog: z
      .object({
        /** `full`: every tool the caller may see; `search`: `pin` plus catalog.search, catalog.describe, catalog.call. */
        exposure: z.enum(CATALOG_EXPOSURES).default('full'),
        /** Globs over capability names (`task.*`) listed as they are when `exposure` is `search`. */
        pin: z.array(z.string().min(1)).default([]),
      })
      .strict()
      .default({ exposure: 'full', pin: [] }),
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
      })
      .strict()
      .default({
        enabled: true,
        step_timeout_ms: 600_000,
        call_timeout_ms: 1_800_000,
        max_output_bytes: 1024 * 1024,
        retention_days: 7,
      }),
    stdio: z
      .object({
        /** Roles of the stdio caller; `*` means all roles. */
        roles: z.array(z.string()).default(['*']),
        /** The longest message (one line) read over stdio, in bytes: from the client, and from upstream stdio servers. */
        max_message_bytes: messageBytes.default(DEFAULT_MAX_MESSAGE_BYTES),
      })
      .strict()
      .default({ roles: ['*'], max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES }),
    workspace: z
      .object({
        /**
         * Directories besides the project directory that agent sessions and scripts may work in (absolute, or
         * relative to the project directory); nothing outside these and the project is ever a working directory.
         */
        extra_dirs: z.array(z.string().min(1)).default([]),
      })
      .strict()
      .default({ extra_dirs: [] }),
    agents: AgentsSchema.default(AGENTS_DEFAULTS),
  })
  .strict();

export type AgentsConfig = z.output<typeof AgentsSchema>;
export type Config = z.output<typeof ConfigSchema>;
