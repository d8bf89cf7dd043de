// The `[[servers]]` part of the configuration schema (src/config/schema.ts composes it): an upstream MCP server
// entry, its OAuth login and Meerkat's spellings of it, and the stdio message size limit both sides use.
import { z } from 'zod';

/** The largest newline-delimited JSON message read over stdio unless configured: the MCP SDK's own default. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** A stdio message size limit: from 1 KiB up to 256 MiB (a line becomes one string; V8 caps strings near 512 MB). */
export const messageBytes = z
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

/**
 * A stdio server's fence (docs/security.md#fenced-servers): what it may read and write besides what every server
 * gets (the system's programs and libraries read-only, its working directory read-write, a private /tmp), and
 * whether it may use the network. Paths are absolute, `~/…` (the user's home) or relative to the project directory.
 * In `[sandbox]` it is the default for every stdio server; in a `[[servers]]` entry its lists add to the default's
 * and its `network` and `required` replace them.
 */
export const SandboxFields = {
  /** Extra paths the server may read (not write). */
  read: z.array(z.string().min(1)).optional(),
  /** Extra paths the server may read and write. */
  write: z.array(z.string().min(1)).optional(),
  /** Whether the server may open network connections (loopback included); the default lets `npx` download. */
  network: z.boolean().optional(),
  /** Refuse to start the server when the fence cannot be built (no bubblewrap, another system) instead of warning. */
  required: z.boolean().optional(),
};

/** `sandbox = "off"` (run unfenced) or a table of {@link SandboxFields}. */
export const ServerSandboxSchema = z.union([z.literal('off'), z.object(SandboxFields).strict()], {
  error: 'expected "off" or a table with read, write, network, required',
});

/**
 * When a server's tool definitions reach clients (docs/security.md#pinned-tools): `first-use` approves what the
 * server lists the first time and withholds any later change until `switchboard mcp approve`; `manual` withholds
 * everything until approved (servers added from a registry); `off` passes every listing through.
 */
export const APPROVAL_MODES = ['first-use', 'manual', 'off'] as const;

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
    tools: GlobListSchema.prefault({}),
    /** Roles that may see and call this server's tools, resources and prompts (empty: everyone). */
    roles: z.array(z.string()).default([]),
    /** A stdio server's longest answer line in bytes; unset: `[stdio] max_message_bytes`. */
    max_message_bytes: messageBytes.optional(),
    /** OAuth login for a remote server (docs/oauth.md#upstream-servers). */
    oauth: ServerOAuthSchema.optional(),
    /** A stdio server's fence; unset: the `[sandbox]` default. */
    sandbox: ServerSandboxSchema.optional(),
    /** Stop a stdio server unused for this long (0: never); unset: `[stdio] idle_timeout_ms`. */
    idle_timeout_ms: z.number().int().min(0).optional(),
    /** When its tool definitions reach clients: approved on first use (default), only when approved, or always. */
    approval: z
      .enum(APPROVAL_MODES, {
        error: (iss) => `expected first-use, manual or off, got ${JSON.stringify(iss.input)}`,
      })
      .default('first-use'),
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
    for (const key of ['sandbox', 'idle_timeout_ms'] as const)
      if (s.url && s[key] !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `server '${s.name}' has a url: ${key} applies to a server Switchboard starts (command); remove it`,
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
