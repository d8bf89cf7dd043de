// Turn one `[[servers]]` entry into what a connection needs: variables expanded per server (a missing one fails
// that server alone, naming the server and field), the transport decided, and a fingerprint to spot changes.
import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { expandString } from '../../config/load.ts';
import type { ServerConfig } from '../../config/schema.ts';
import type { ResolvedServer, UpstreamTransport } from '../../mcp-client/server-spec.ts';

export type Resolution = { ok: true; server: ResolvedServer } | { ok: false; message: string };

/**
 * Expand and check one server entry; `stdioMaxMessageBytes` (`[stdio] max_message_bytes`) applies unless the entry
 * sets its own `max_message_bytes`.
 *
 * @example
 * const r = resolveServer(config.servers[0], process.env, '/repo', config.stdio.max_message_bytes);
 * if (!r.ok) log(r.message); // "server 'tickets': headers.Authorization: environment variable TICKETS_TOKEN is not set …"
 */
export function resolveServer(
  cfg: ServerConfig,
  env: NodeJS.ProcessEnv,
  projectDir: string,
  stdioMaxMessageBytes: number,
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
      maxMessageBytes: cfg.max_message_bytes ?? stdioMaxMessageBytes,
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
