// Turn one `[[servers]]` entry into what a connection needs: variables expanded per server (a missing one fails
// that server alone, naming the server and field), the transport decided, and a fingerprint to spot changes.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { expandString } from '../../config/load.ts';
import type { Config, ServerConfig } from '../../config/schema.ts';
import type { Fence } from '../../core/sandbox.ts';
import type { ResolvedServer, UpstreamTransport } from '../../mcp-client/server-spec.ts';

/** What a server entry falls back on: the `[stdio]` and `[sandbox]` defaults, and the hub folders a fence guards. */
export interface ServerDefaults {
  maxMessageBytes: number;
  idleTimeoutMs: number;
  sandbox: Config['sandbox'];
  /** The hub's own state (hidden from fenced servers) and the folders that decide what it runs (read-only). */
  hubDirs: { hide: string[]; protect: string[] };
}

/** The defaults of `config` for servers of the project in `projectDir`. */
export function serverDefaults(config: Config, projectDir: string, env: NodeJS.ProcessEnv): ServerDefaults {
  return {
    maxMessageBytes: config.stdio.max_message_bytes,
    idleTimeoutMs: config.stdio.idle_timeout_ms,
    sandbox: config.sandbox,
    hubDirs: {
      hide: [
        join(projectDir, '.switchboard'),
        env.SWITCHBOARD_HOME ? resolve(projectDir, env.SWITCHBOARD_HOME) : join(env.HOME ?? homedir(), '.switchboard'),
      ],
      protect: [
        ...[...config.plugins.paths, ...config.handlers.paths].map((p) => resolve(projectDir, p)),
        // Read live for what the hub runs (mekara's scripts, Meerkat's project servers): never a fenced server's to edit.
        join(projectDir, '.mekara'),
        join(projectDir, '.rkat'),
      ],
    },
  };
}

/** `~/x` is under the user's home, a relative path under the project; variables are expanded first. */
function fencePath(path: string, projectDir: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? homedir();
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return isAbsolute(path) ? path : resolve(projectDir, path);
}

/**
 * The fence of the stdio server `name`: its own `sandbox` setting (an entry's, or none for an agent's server) over
 * the `[sandbox]` default; undefined when off. `expand` expands `${VAR}` in the paths (default: from `env`).
 */
export function fenceOf(
  name: string,
  own: ServerConfig['sandbox'],
  defaults: ServerDefaults,
  projectDir: string,
  env: NodeJS.ProcessEnv,
  expand: (v: string, path: string) => string = (v, path) => expandString(v, `server '${name}': ${path}`, env),
): Fence | undefined {
  if (own === 'off') return undefined;
  const base = defaults.sandbox;
  if (!base.enabled && own === undefined) return undefined;
  const paths = (list: string[] | undefined, key: string) =>
    (list ?? []).map((p, i) => fencePath(expand(p, `${key}[${i}]`), projectDir, env));
  const project = createHash('sha256').update(projectDir).digest('hex').slice(0, 8);
  const cache = env.XDG_CACHE_HOME ?? join(env.HOME ?? homedir(), '.cache');
  return {
    read: [...paths(base.read, 'sandbox.read'), ...paths(own?.read, 'sandbox.read')],
    write: [...paths(base.write, 'sandbox.write'), ...paths(own?.write, 'sandbox.write')],
    network: own?.network ?? base.network ?? true,
    required: own?.required ?? base.required ?? false,
    hide: defaults.hubDirs.hide,
    protect: defaults.hubDirs.protect,
    // The name becomes a folder name: anything but letters, digits, _ and - is replaced (an agent's server names are free).
    home: join(cache, 'switchboard', 'fenced-homes', `${name.replace(/[^A-Za-z0-9_-]/g, '_')}-${project}`),
  };
}

export type Resolution = { ok: true; server: ResolvedServer } | { ok: false; message: string };

/**
 * Expand and check one server entry; `defaults` (from {@link serverDefaults}) apply where the entry sets nothing.
 *
 * @example
 * const r = resolveServer(config.servers[0], process.env, '/repo', serverDefaults(config, '/repo', process.env));
 * if (!r.ok) log(r.message); // "server 'tickets': headers.Authorization: environment variable TICKETS_TOKEN is not set …"
 */
export function resolveServer(
  cfg: ServerConfig,
  env: NodeJS.ProcessEnv,
  projectDir: string,
  defaults: ServerDefaults,
): Resolution {
  const field = (path: string) => `server '${cfg.name}': ${path}`;
  try {
    const expand = (v: string, path: string) => expandString(v, field(path), env);
    const expandMap = (m: Record<string, string>, path: string) =>
      Object.fromEntries(Object.entries(m).map(([k, v]) => [k, expand(v, `${path}.${k}`)]));
    const transport: UpstreamTransport = cfg.command ? 'stdio' : (cfg.transport ?? 'http');
    const url = cfg.url === undefined ? undefined : expand(cfg.url, 'url');
    if (url !== undefined) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return { ok: false, message: `${field('url')}: '${url}' is not a URL (expected http://… or https://…).` };
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        return { ok: false, message: `${field('url')}: expected an http:// or https:// URL, got ${parsed.protocol}` };
    }
    const cwd = cfg.cwd === undefined ? undefined : expand(cfg.cwd, 'cwd');
    const server: ResolvedServer = {
      name: cfg.name,
      transport,
      ...(cfg.command ? { command: expand(cfg.command, 'command') } : {}),
      args: cfg.args.map((a, i) => expand(a, `args[${i}]`)),
      env: expandMap(cfg.env, 'env'),
      // A stdio server runs in the project directory unless told otherwise, wherever Switchboard was started from.
      ...(transport === 'stdio'
        ? { cwd: cwd === undefined ? projectDir : isAbsolute(cwd) ? cwd : resolve(projectDir, cwd) }
        : {}),
      ...(url !== undefined ? { url } : {}),
      headers: expandMap(cfg.headers, 'headers'),
      timeoutMs: cfg.timeout_ms,
      startupTimeoutMs: cfg.startup_timeout_ms,
      maxMessageBytes: cfg.max_message_bytes ?? defaults.maxMessageBytes,
      ...(transport === 'stdio'
        ? (() => {
            const fence = fenceOf(cfg.name, cfg.sandbox, defaults, projectDir, env, expand);
            return { idleTimeoutMs: cfg.idle_timeout_ms ?? defaults.idleTimeoutMs, ...(fence ? { fence } : {}) };
          })()
        : {}),
      allow: cfg.tools.allow,
      deny: cfg.tools.deny,
      roles: cfg.roles,
      ...(cfg.oauth
        ? {
            oauth: {
              ...(cfg.oauth.client_id ? { clientId: expand(cfg.oauth.client_id, 'oauth.client_id') } : {}),
              ...(cfg.oauth.client_secret
                ? { clientSecret: expand(cfg.oauth.client_secret, 'oauth.client_secret') }
                : {}),
              scopes: cfg.oauth.scopes,
              shared: cfg.oauth.shared,
              ...(cfg.oauth.client_metadata_url ? { clientMetadataUrl: cfg.oauth.client_metadata_url } : {}),
              clientName: cfg.oauth.client_name,
            },
          }
        : {}),
      fingerprint: '',
    };
    server.fingerprint = createHash('sha256').update(JSON.stringify(server)).digest('hex').slice(0, 16);
    return { ok: true, server };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}
