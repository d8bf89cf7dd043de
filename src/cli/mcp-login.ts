// `switchboard mcp login|logout NAME`: log in to an OAuth-protected upstream server (authorization code + PKCE,
// the redirect on a loopback port), or forget the login. Acts on the project's store directly, as `token` does; a
// running hub on the same store picks a new login up within seconds (it reads the store while a login is required).
import { resolve } from 'node:path';
import { loadConfig, type Raw } from '../config/load.ts';
import {
  allServers,
  notWritable,
  planServerEdit,
  type ScopedServer,
  type ServerEdit,
  writeServerEdit,
} from '../config/server-entries.ts';
import { argv } from '../core/argv.ts';
import { SwitchboardError } from '../core/errors.ts';
import { startIndependent } from '../core/process.ts';
import { openProjectStore } from '../hub.ts';
import { login } from '../mcp-client/oauth/login.ts';
import {
  LOCAL_LOGIN,
  legacyKeyOf,
  migrateLoginKeys,
  principalOptionKey,
  SHARED_LOGIN,
} from '../mcp-client/oauth/login-keys.ts';
import { loadSealingKey, type SealingKey } from '../mcp-client/oauth/sealed.ts';
import type { ResolvedServer } from '../mcp-client/server-spec.ts';
import { resolveServer, serverDefaults } from '../sources/upstream/resolve.ts';
import { CliError, printJson } from './output.ts';

interface LoginOptions {
  cwd: string;
  principal?: string;
  port?: string;
  browser?: boolean;
  json?: boolean;
}

/**
 * The server's entry in effect, resolved (variables expanded), refusing what cannot log in with a fix. A remote
 * server without [servers.oauth] comes with the edit that adds `oauth = {}`: asking to log in is asking for OAuth.
 */
function oauthServer(name: string, cwd: string): { server: ResolvedServer; addOAuth?: ServerEdit } {
  const { config } = loadConfig(cwd);
  let entry = config.servers.find((s) => s.name === name);
  if (!entry) {
    const known = config.servers.map((s) => s.name);
    throw new CliError(`No MCP server '${name}'.${known.length ? ` Configured: ${known.join(', ')}.` : ''}`);
  }
  if (!entry.url)
    throw new CliError(`Server '${name}' runs a command (stdio); OAuth login is for remote servers (url).`, 2);
  let addOAuth: ServerEdit | undefined;
  if (!entry.oauth) {
    addOAuth = planAddOAuth(name, cwd);
    entry = addOAuth.config.servers.find((s) => s.name === name) ?? entry;
  }
  const r = resolveServer(entry, process.env, cwd, serverDefaults(config, cwd, process.env));
  if (!r.ok) throw new CliError(r.message, 2);
  return { server: r.server, ...(addOAuth ? { addOAuth } : {}) };
}

const withOAuth = (entry: Raw): Raw => (entry.oauth ? entry : { ...entry, oauth: {} });

/**
 * The edit adding `oauth = {}` to the entry in effect (the project's where both scopes name the server), checked
 * writable before anyone goes to the browser; written once the login succeeds, so an abandoned login leaves the file
 * as it was. Where the file cannot be edited in place, the refusal shows the change to make in it.
 */
function planAddOAuth(name: string, cwd: string): ServerEdit {
  const where = allServers(cwd).find((s) => s.entry.name === name) as ScopedServer;
  let edit: ServerEdit | undefined;
  let why: string | undefined;
  try {
    edit = planServerEdit(where.scope, cwd, name, withOAuth);
    why = notWritable(edit.file);
  } catch (err) {
    why = (err as Error).message;
  }
  if (edit && !why) return edit;
  throw new CliError(
    `Server '${name}' has no [servers.oauth] table, so Switchboard does not log in to it, and cannot add one: ${why?.replace(/\.$/, '')}.\n\n` +
      `${addOAuthByHand(name, where.file, edit)}\n\nthen run: switchboard mcp login ${name}`,
    2,
  );
}

/**
 * How to add `oauth = {}` by hand, correct where it is pasted: the lines the edit changes in the file, with the
 * entry's lines before them (a line appended at the end of the file would land in a `[servers.headers]` above it).
 */
function addOAuthByHand(name: string, file: string, edit?: ServerEdit): string {
  if (!edit)
    return (
      `Add it to the [[servers]] entry with name = "${name}" in ${file}, among the entry's own keys (right after its ` +
      `name line), not below a sub-table such as [servers.headers] that follows it:\n\n    oauth = {}`
    );
  const before = edit.before.split('\n');
  const after = edit.after.split('\n');
  let from = 0;
  while (from < before.length && from < after.length && before[from] === after[from]) from++;
  let tail = 0;
  while (
    tail < before.length - from &&
    tail < after.length - from &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  )
    tail++;
  const removed = before.slice(from, before.length - tail);
  const added = after.slice(from, after.length - tail);
  // The lines above, back to the entry's [[servers]] line when it is near.
  const header = before.slice(Math.max(0, from - 12), from).findLastIndex((l) => /^\s*\[\[\s*servers\s*\]\]/.test(l));
  const start = header >= 0 ? Math.max(0, from - 12) + header : Math.max(0, from - 3);
  const lines = [
    ...before.slice(start, from).map((l) => `    ${l}`),
    ...removed.map((l) => `  - ${l}`),
    ...added.map((l) => `  + ${l}`),
    ...before.slice(before.length - tail, before.length - tail + 2).map((l) => `    ${l}`),
  ].map((l) => l.trimEnd());
  const what = removed.length
    ? `replace the line${removed.length > 1 ? 's' : ''} marked - (line ${from + 1}) with the line${added.length > 1 ? 's' : ''} marked +`
    : `add the line marked + (as line ${from + 1}) to the entry of '${name}'`;
  return `In ${file}, ${what}:\n\n${lines.join('\n').replace(/\n+$/, '')}`;
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
    startIndependent(cmd, args, { stdio: 'ignore' });
  } catch {}
}

const hasDesktop = () =>
  process.platform === 'darwin' ||
  process.platform === 'win32' ||
  !!process.env.DISPLAY ||
  !!process.env.WAYLAND_DISPLAY;

/** `mcp login NAME [--principal ID] [--port N] [--no-browser]` */
export async function mcpLogin(name: string, opts: LoginOptions): Promise<void> {
  const cwd = resolve(opts.cwd);
  const { server, addOAuth } = oauthServer(name, cwd);
  const key = keyOf(server, opts.principal);
  let port = 0;
  if (opts.port !== undefined) {
    port = Number(opts.port);
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new CliError(`--port: expected a port number 1-65535, got '${opts.port}'.`, 2);
  }
  const sealingKey = loadSealingKey() as SealingKey;
  const store = await openProjectStore(cwd);
  try {
    // Logins stored under a token's bare name move to token:<name> first, so this login replaces the token's own.
    const { kept } = await migrateLoginKeys(store.oauthLogins, () => sealingKey);
    for (const k of kept)
      process.stderr.write(`Note: the OAuth login ${k} stays under its old key, which no caller uses.\n`);
    if (addOAuth)
      process.stderr.write(
        `'${name}' has no [servers.oauth] table yet: once you are logged in, oauth = {} is added to its entry in ${addOAuth.file}.\n`,
      );
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
    if (addOAuth) {
      try {
        // Planned again: the file may have changed while the person was at the browser.
        writeServerEdit(planServerEdit(addOAuth.scope, cwd, name, withOAuth));
      } catch (err) {
        throw new CliError(
          `Logged in to '${name}', but oauth = {} could not be added to its entry: ${(err as Error).message}\n\n` +
            `${addOAuthByHand(name, addOAuth.file)}\n\nThe login is stored and takes effect once the entry has it.`,
          1,
        );
      }
    }
    if (opts.json)
      return printJson({
        server: name,
        principal: key,
        scope: record.scope,
        expiresAt: record.expiresAt,
        ...(addOAuth ? { oauthAddedTo: addOAuth.file } : {}),
      });
    if (addOAuth)
      process.stdout.write(
        `Added oauth = {} to '${name}' in ${addOAuth.file}: Switchboard logs in to it with OAuth from now on.\n`,
      );
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
