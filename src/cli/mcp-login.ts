// `switchboard mcp login|logout NAME`: log in to an OAuth-protected upstream server (authorization code + PKCE,
// the redirect on a loopback port), or forget the login. Acts on the project's store directly, as `token` does; a
// running hub on the same store picks a new login up within seconds (it reads the store while a login is required).
import { resolve } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { argv } from '../core/argv.ts';
import { SwitchboardError } from '../core/errors.ts';
import { login } from '../core/mcp-client/oauth/login.ts';
import {
  LOCAL_LOGIN,
  legacyKeyOf,
  migrateLoginKeys,
  principalOptionKey,
  SHARED_LOGIN,
} from '../core/mcp-client/oauth/login-keys.ts';
import { loadSealingKey, type SealingKey } from '../core/mcp-client/oauth/sealed.ts';
import { startChild } from '../core/process.ts';
import { openProjectStore } from '../hub.ts';
import { resolveServer } from '../sources/upstream/resolve.ts';
import { CliError, printJson } from './output.ts';

interface LoginOptions {
  cwd: string;
  principal?: string;
  port?: string;
  browser?: boolean;
  json?: boolean;
}

/** The server's entry in effect, resolved (variables expanded), refusing what cannot log in with a fix. */
function oauthServer(name: string, cwd: string) {
  const { config } = loadConfig(resolve(cwd));
  const entry = config.servers.find((s) => s.name === name);
  if (!entry) {
    const known = config.servers.map((s) => s.name);
    throw new CliError(`No MCP server '${name}'.${known.length ? ` Configured: ${known.join(', ')}.` : ''}`);
  }
  if (!entry.url)
    throw new CliError(`Server '${name}' runs a command (stdio); OAuth login is for remote servers (url).`, 2);
  if (!entry.oauth)
    throw new CliError(
      `Server '${name}' has no [servers.oauth] table, so Switchboard does not log in to it. Add one (it may be empty) under its entry:\n\n  [[servers]]\n  name = "${name}"\n  url = "${entry.url}"\n  oauth = {}\n\nthen run: switchboard mcp login ${name}`,
      2,
    );
  const r = resolveServer(entry, process.env, resolve(cwd), config.stdio.max_message_bytes);
  if (!r.ok) throw new CliError(r.message, 2);
  return r.server;
}

/** Whose login: `--principal ID` (a token, `oauth:SUBJECT` or `agent:SESSION` of a team hub), else the local person's. */
function keyOf(server: { oauth?: { shared: boolean } }, principal?: string): string {
  if (server.oauth?.shared) {
    if (principal !== undefined)
      throw new CliError(
        'This server is shared (oauth.shared = true): one login serves everyone; drop --principal.',
        2,
      );
    return SHARED_LOGIN;
  }
  if (principal === undefined) return LOCAL_LOGIN;
  try {
    return principalOptionKey(principal);
  } catch (err) {
    if (err instanceof SwitchboardError) throw new CliError(err.message, 2);
    throw err;
  }
}

/** Start the desktop's browser on `url`, quietly; people without one copy the printed URL. */
function openBrowser(url: string): void {
  // The URL names a service the upstream chose: only http(s), and never through a shell (cmd's `start` would read
  // the `&` of a query string as a command separator).
  if (!/^https?:\/\//i.test(url)) return;
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', argv().nonOption(url).build()]
      : process.platform === 'win32'
        ? ['rundll32', argv().flag('url.dll,FileProtocolHandler').nonOption(url).build()]
        : ['xdg-open', argv().nonOption(url).build()];
  try {
    startChild(cmd, args, { stdio: 'ignore', detached: true })
      .on('error', () => {})
      .unref();
  } catch {}
}

const hasDesktop = () =>
  process.platform === 'darwin' ||
  process.platform === 'win32' ||
  !!process.env.DISPLAY ||
  !!process.env.WAYLAND_DISPLAY;

/** `mcp login NAME [--principal ID] [--port N] [--no-browser]` */
export async function mcpLogin(name: string, opts: LoginOptions): Promise<void> {
  const server = oauthServer(name, opts.cwd);
  const key = keyOf(server, opts.principal);
  let port = 0;
  if (opts.port !== undefined) {
    port = Number(opts.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new CliError(`--port: expected a port number 1-65535, got '${opts.port}'.`, 2);
  }
  const sealingKey = loadSealingKey() as SealingKey;
  const store = await openProjectStore(opts.cwd);
  try {
    // Logins stored under a token's bare name move to token:<name> first, so this login replaces the token's own.
    const { kept } = await migrateLoginKeys(store.oauthLogins, () => sealingKey);
    for (const k of kept)
      process.stderr.write(`Note: the OAuth login ${k} stays under its old key, which no caller uses.\n`);
    const record = await login({
      server,
      key,
      store: store.oauthLogins,
      sealingKey,
      port,
      open: (url) => {
        process.stderr.write(`Open this URL to log in to '${name}':\n\n  ${url.href}\n\nWaiting for the redirect…\n`);
        if (opts.browser !== false && process.stdout.isTTY && hasDesktop()) openBrowser(url.href);
      },
    });
    if (opts.json) return printJson({ server: name, principal: key, scope: record.scope, expiresAt: record.expiresAt });
    process.stdout.write(
      `Logged in to '${name}'${key === LOCAL_LOGIN || key === SHARED_LOGIN ? '' : ` as ${key}`}` +
        `${record.scope ? ` (scope: ${record.scope})` : ''}${record.expiresAt ? `; the token expires ${record.expiresAt} and is refreshed before then` : ''}.\n` +
        'A running Switchboard on this project picks the login up within seconds.\n',
    );
  } finally {
    await store.close();
  }
}

/** `mcp logout NAME [--principal ID | --all]` */
export async function mcpLogout(name: string, opts: { cwd: string; principal?: string; all?: boolean }): Promise<void> {
  const store = await openProjectStore(opts.cwd);
  try {
    let removed: number;
    if (opts.all) removed = await store.oauthLogins.delete(name);
    else {
      const key =
        opts.principal !== undefined
          ? keyOf({}, opts.principal)
          : (await store.oauthLogins.get(name, SHARED_LOGIN))
            ? SHARED_LOGIN
            : LOCAL_LOGIN;
      // A token's login stored before keys were namespaced (under its bare name) is that token's too.
      const legacy = legacyKeyOf(key);
      removed =
        (await store.oauthLogins.delete(name, key)) + (legacy ? await store.oauthLogins.delete(name, legacy) : 0);
    }
    process.stdout.write(
      removed
        ? `Logged out of '${name}' (${removed} login${removed === 1 ? '' : 's'} removed). Its tokens are gone from the store.\n`
        : `No login to '${name}'${opts.principal ? ` for ${opts.principal}` : ''} was stored.\n`,
    );
  } finally {
    await store.close();
  }
}
