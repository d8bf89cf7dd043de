// `switchboard mcp add|remove|list|get|import`: manage the upstream MCP servers Switchboard aggregates, in the
// project (`.switchboard/config.toml`) or user scope, keeping each file's comments and order.
// Past ~400 lines: each command is short; what they share (parsing a scope, the servers in effect, masking) is here
// beside them, and the login and approve commands already live apart (mcp-login.ts, mcp-approve.ts).
import { relative } from 'node:path';
import { secretVariablesNote } from '../config/import-secrets.ts';
import { IMPORT_SOURCES, type ImportSource, importServers, removeFromClientHint } from '../config/import-servers.ts';
import { loadConfig, type Raw } from '../config/load.ts';
import { readRkatServers } from '../config/rkat-servers.ts';
import {
  addServer,
  allServers,
  removeServer,
  type Scope,
  type ScopedServer,
  scopeFile,
  serversIn,
} from '../config/server-entries.ts';
import { SwitchboardError } from '../core/errors.ts';
import { loginCommand } from '../mcp-client/oauth/login-keys.ts';
import { CliError, colour, printJson } from './output.ts';
import { table as makeTable } from './table.ts';

const parseScope = (v: string | undefined, flag = '--scope'): Scope | undefined => {
  if (v === undefined) return undefined;
  if (v === 'project' || v === 'user') return v;
  // Meerkat's `rkat mcp add --scope local` is its alias for project.
  if (v === 'local') return 'project';
  throw new CliError(
    `${flag}: expected 'project' or 'user' ('local' is project, as Meerkat spells it), got '${v}'.`,
    2,
  );
};

export interface AddOptions {
  cwd: string;
  transport?: string;
  user?: boolean;
  scope?: string;
  url?: string;
  header?: string[];
  env?: string[];
  timeout?: string;
  /** NAME is a registry name (`NAME[@VERSION]`): src/cli/registry.ts writes the entry. */
  fromRegistry?: boolean;
  /** With --from-registry: the [[servers]] name, the kind of package, and whether to bypass the cache. */
  name?: string;
  package?: string;
  refresh?: boolean;
  sandbox?: string;
  allowRead?: string[];
  allowWrite?: string[];
  /** false with --no-network. */
  network?: boolean;
  idleTimeout?: string;
}

/** The `sandbox` value of a new stdio server from `--sandbox`, `--allow-read/-write` and `--no-network`. */
function sandboxEntry(opts: AddOptions): Raw['sandbox'] {
  const mode = opts.sandbox;
  if (mode !== undefined && !['on', 'off', 'required'].includes(mode))
    throw new CliError(`--sandbox: expected on, off or required, got '${mode}'.`, 2);
  const fence: Raw = {
    ...(opts.allowRead?.length ? { read: opts.allowRead } : {}),
    ...(opts.allowWrite?.length ? { write: opts.allowWrite } : {}),
    ...(opts.network === false ? { network: false } : {}),
    ...(mode === 'required' ? { required: true } : {}),
  };
  if (mode === 'off') {
    if (Object.keys(fence).length)
      throw new CliError(
        '--sandbox off runs the server unfenced: drop --allow-read, --allow-write and --no-network.',
        2,
      );
    return 'off';
  }
  return Object.keys(fence).length ? fence : undefined;
}

/** The `sandbox` and `idle_timeout_ms` keys of a new stdio server, from the flags (none given: none). */
export function stdioSettings(opts: AddOptions): Raw {
  const out: Raw = {};
  const sandbox = sandboxEntry(opts);
  if (sandbox !== undefined) out.sandbox = sandbox;
  if (opts.idleTimeout !== undefined) {
    const ms = Number(opts.idleTimeout);
    if (!Number.isInteger(ms) || ms < 0)
      throw new CliError(
        `--idle-timeout: expected milliseconds (0 or a positive integer), got '${opts.idleTimeout}'.`,
        2,
      );
    out.idle_timeout_ms = ms;
  }
  return out;
}

/** `mcp add NAME [-t stdio|http|sse] [-u URL] [-H K:V]... [-e K=V]... [--user] -- CMD ARGS...` */
export async function mcpAdd(name: string, command: string[], opts: AddOptions): Promise<void> {
  const scope = opts.user ? 'user' : (parseScope(opts.scope) ?? 'project');
  if (opts.fromRegistry)
    return (await import('./registry.ts')).mcpAddFromRegistry(name, command, {
      ...opts,
      scope,
      stdio: stdioSettings(opts),
    });
  if (opts.name !== undefined || opts.package !== undefined || opts.refresh)
    throw new CliError('--name, --package and --refresh go with --from-registry.', 2);
  // Meerkat's and Claude Code's positional form, `mcp add NAME URL`: a URL where the command goes is a remote server.
  if (!opts.url && command.length === 1 && /^https?:\/\//i.test(command[0] ?? '')) {
    opts = { ...opts, url: command[0] };
    command = [];
  }
  const transport = opts.transport;
  if (transport !== undefined && !['stdio', 'http', 'sse'].includes(transport))
    throw new CliError(`-t/--transport: expected stdio, http or sse, got '${transport}'.`, 2);
  if (opts.url && command.length)
    throw new CliError(
      `Give either a URL (-u) or a command after --, not both: a server is a child process or a remote endpoint.`,
      2,
    );
  if (!opts.url && !command.length)
    throw new CliError(
      transport && transport !== 'stdio'
        ? `A ${transport} server needs its URL: switchboard mcp add ${name} -t ${transport} -u https://…`
        : `Missing the server: give a command after -- (switchboard mcp add ${name} -- npx -y some-mcp-server) or a URL with -u.`,
      2,
    );
  if (opts.url && transport === 'stdio')
    throw new CliError(`-t stdio runs a command; for a URL use -t http (the default) or -t sse.`, 2);
  if (command.length && transport && transport !== 'stdio')
    throw new CliError(`-t ${transport} needs a URL (-u), not a command; drop -t to run the command over stdio.`, 2);
  const entry: Raw = { name };
  if (command.length) {
    entry.command = command[0];
    if (command.length > 1) entry.args = command.slice(1);
    const env = pairs(opts.env ?? [], '=', '-e/--env', 'KEY=VALUE');
    if (Object.keys(env).length) entry.env = env;
    Object.assign(entry, stdioSettings(opts));
  } else {
    if (Object.keys(stdioSettings(opts)).length)
      throw new CliError(
        '--sandbox, --allow-read, --allow-write, --no-network and --idle-timeout are for a server Switchboard starts (a command after --), not a URL.',
        2,
      );
    entry.url = opts.url;
    if (transport === 'sse') entry.transport = 'sse';
    const headers = pairs(opts.header ?? [], ':', '-H/--header', 'Key: Value');
    if (Object.keys(headers).length) entry.headers = headers;
    if (opts.env?.length)
      throw new CliError('-e/--env sets a child process environment; a URL server has none. Use -H for headers.', 2);
  }
  if (opts.timeout !== undefined) {
    const ms = Number(opts.timeout);
    if (!Number.isInteger(ms) || ms < 1)
      throw new CliError(`--timeout: expected milliseconds (a positive integer), got '${opts.timeout}'.`, 2);
    entry.timeout_ms = ms;
  }
  const file = addServer(scope, opts.cwd, entry);
  process.stdout.write(
    `Added MCP server '${name}' (${command.length ? 'stdio' : (transport ?? 'http')}) to ${scope} scope: ${file}\n` +
      `Its tools appear as ${name}__<tool>. Check it with: switchboard mcp list --status\n`,
  );
}

function pairs(items: string[], sep: string, flag: string, shape: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf(sep);
    const key = at > 0 ? item.slice(0, at).trim() : '';
    if (!key) throw new CliError(`${flag}: expected ${shape}, got '${item}'.`, 2);
    out[key] = item.slice(at + 1).trim();
  }
  return out;
}

/** `mcp remove NAME [--scope user|project]` */
export async function mcpRemove(name: string, opts: { cwd: string; scope?: string }): Promise<void> {
  const scope = parseScope(opts.scope);
  const where = allServers(opts.cwd).filter((s) => s.entry.name === name);
  if (!scope && where.length > 1)
    throw new CliError(
      `MCP server '${name}' exists in both project and user scope. Say which to remove: switchboard mcp remove ${name} --scope project (or --scope user)`,
      2,
    );
  const target = scope ?? where[0]?.scope;
  if (!target || !removeServer(target, opts.cwd, name)) {
    const known = allServers(opts.cwd).map((s) => `${s.entry.name} (${s.scope})`);
    throw new CliError(
      `No MCP server '${name}'${scope ? ` in ${scope} scope` : ''}. ${known.length ? `Configured: ${known.join(', ')}.` : 'None are configured; add one with switchboard mcp add.'}`,
    );
  }
  process.stdout.write(`Removed MCP server '${name}' from ${target} scope.\n`);
  // Removing is how a broken entry is fixed, so it is not refused; what is still wrong is said, as serve would.
  try {
    loadConfig(opts.cwd);
  } catch (err) {
    throw new CliError(`The configuration is still not usable: ${(err as Error).message}`);
  }
}

/** Values of env and headers as shown to people: `${VAR}` references as written, literal values masked. */
export function maskValue(value: unknown): string {
  const text = String(value);
  if (/^\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}$/.test(text)) return text;
  if (text.includes('${')) return text.replace(/[^${}\s]+(?=\s|$)/g, (part) => (part.includes('${') ? part : '****'));
  return text.length ? '****' : '';
}

function masked(entry: Raw): Raw {
  const out: Raw = { ...entry };
  for (const key of ['env', 'headers'] as const) {
    const map = entry[key];
    if (map && typeof map === 'object')
      out[key] = Object.fromEntries(Object.entries(map as Raw).map(([k, v]) => [k, maskValue(v)]));
  }
  return out;
}

/**
 * The servers as written in each scope's file, once the configuration passed the check `serve` makes: a file
 * serve refuses is refused here with the same message, never listed as fine.
 */
function effective(cwd: string, scope?: Scope): Listed[] {
  loadConfig(cwd);
  // The project's .rkat/mcp.toml is served too (after the config files, which win on a name): listed as `meerkat`.
  const rkat = readRkatServers(cwd);
  const list = scope ? serversIn(scope, cwd) : allServers(cwd);
  const projectNames = new Set(serversIn('project', cwd).map((s) => s.entry.name));
  const configNames = new Set(allServers(cwd).map((s) => s.entry.name));
  return [
    ...list.map((s) => ({
      ...s,
      ...(s.scope === 'user' && projectNames.has(s.entry.name) ? { shadowedBy: 'project' as const } : {}),
    })),
    ...(scope
      ? []
      : rkat.servers.map((entry) => ({
          scope: 'meerkat' as const,
          file: rkat.file,
          entry,
          ...(configNames.has(entry.name) ? { shadowedBy: 'config' as const } : {}),
        }))),
  ];
}

/** A listed server: a config file's, or the project's Meerkat file's; `shadowedBy` says what hides it. */
type Listed = Omit<ScopedServer, 'scope'> & { scope: Scope | 'meerkat'; shadowedBy?: 'project' | 'config' };

const target = (e: Raw) => (e.command ? [e.command, ...((e.args as string[]) ?? [])].join(' ') : String(e.url ?? ''));
// Meerkat's `streamable-http` is Switchboard's `http`.
const kind = (e: Raw) => (e.command ? 'stdio' : e.transport === 'sse' ? 'sse' : 'http');

/** `mcp list [--scope] [--json] [--status]` */
export async function mcpList(opts: { cwd: string; scope?: string; json?: boolean; status?: boolean }): Promise<void> {
  const scope = parseScope(opts.scope);
  const servers = effective(opts.cwd, scope);
  const probed = opts.status ? await probe(opts.cwd) : undefined;
  const status = probed?.views;
  const rows = servers.map((s) => {
    const live = status?.get(String(s.entry.name));
    const logins = probed?.logins.filter((l) => l.server === s.entry.name) ?? [];
    return {
      name: String(s.entry.name),
      scope: s.scope,
      transport: kind(s.entry),
      target: target(s.entry),
      enabled: s.entry.enabled !== false,
      ...(s.shadowedBy ? { shadowedBy: s.shadowedBy } : {}),
      ...(live && !s.shadowedBy
        ? {
            status: live.status,
            tools: live.tools,
            ...(live.rttMs !== undefined ? { rttMs: live.rttMs } : {}),
            ...(live.era ? { protocol: live.era === 'modern' ? '2026-07-28' : '2025' } : {}),
            ...(live.error ? { error: live.error } : {}),
            ...(live.sandbox ? { sandbox: live.sandbox } : {}),
            ...(live.renamed.length ? { renamed: live.renamed } : {}),
            ...(live.withheld ? { withheld: live.withheld } : {}),
          }
        : {}),
      ...(probed && s.entry.oauth && !s.shadowedBy
        ? {
            logins: logins.map((l) => ({
              principal: l.principal,
              state: l.state,
              ...(l.expiresAt ? { expiresAt: l.expiresAt } : {}),
              ...(l.scope ? { scope: l.scope } : {}),
              ...(l.requiredScope ? { requiredScope: l.requiredScope } : {}),
              ...(l.reason ? { reason: l.reason } : {}),
            })),
          }
        : {}),
    };
  });
  if (opts.json) return printJson({ total: rows.length, servers: rows });
  if (rows.length === 0) {
    process.stdout.write('No MCP servers configured. Add one with: switchboard mcp add NAME -- COMMAND ARGS…\n');
    return;
  }
  const head = ['name', 'scope', 'transport', 'target', ...(status ? ['status', 'tools', 'ms', 'sandbox'] : [])];
  const table = makeTable(head);
  for (const r of rows) {
    const row = [
      r.enabled ? r.name : `${r.name} ${colour().dim('(disabled)')}`,
      r.shadowedBy ? `${r.scope} ${colour().dim(`(overridden by ${r.shadowedBy})`)}` : r.scope,
      r.transport,
      r.target.length > 60 ? `${r.target.slice(0, 57)}…` : r.target,
    ];
    if (status) {
      const st = 'status' in r ? String(r.status) : '';
      const sandbox = 'sandbox' in r ? String(r.sandbox) : '';
      row.push(
        st === 'connected' || st === 'idle'
          ? colour().green(st)
          : st
            ? colour().red(`${st}${'error' in r ? `: ${r.error}` : ''}`)
            : '',
        'tools' in r ? String(r.tools) : '',
        'rttMs' in r ? String(r.rttMs) : '',
        sandbox.startsWith('unfenced') ? colour().yellow(sandbox) : sandbox,
      );
    }
    table.push(row);
  }
  process.stdout.write(`${table.toString()}\n`);
  for (const r of rows) {
    if (!('logins' in r) || !r.logins) continue;
    if (r.logins.length === 0)
      process.stdout.write(
        `${colour().yellow('login')} ${r.name}: nobody is logged in — run: switchboard mcp login ${r.name}\n`,
      );
    for (const l of r.logins) {
      const who = l.principal === 'local' ? 'you' : l.principal === '*' ? 'everyone (shared)' : l.principal;
      const what =
        l.state === 'active'
          ? `logged in${l.expiresAt ? `, token expires ${l.expiresAt} (refreshed before then)` : ''}`
          : `login required (${l.reason ?? 'not logged in'}) — run: ${loginCommand(r.name, l.principal)}`;
      const step = l.requiredScope ? `; the next login asks for scope '${l.requiredScope}'` : '';
      process.stdout.write(`${colour().yellow('login')} ${r.name} (${who}): ${what}${step}\n`);
    }
  }
  // A 401 from a server with no credentials configured: most such servers log in with OAuth.
  for (const [i, r] of rows.entries())
    if ('error' in r && /^HTTP 401\b/.test(String(r.error)) && !servers[i].entry.oauth && !hasAuthorization(servers[i]))
      process.stdout.write(
        `${colour().yellow('login')} ${r.name}: the server asks for credentials (HTTP 401); if it logs in with OAuth, run: switchboard mcp login ${r.name} (it adds oauth = {} to the entry)\n`,
      );
  for (const r of rows)
    if ('withheld' in r && r.withheld)
      process.stdout.write(
        `${colour().yellow('withheld')} ${r.name}: ${r.withheld} tool definition(s) new or changed since approved, not shown to clients — review: switchboard mcp approve ${r.name}\n`,
      );
  for (const r of rows)
    for (const x of ('renamed' in r ? r.renamed : undefined) ?? [])
      process.stdout.write(`${colour().yellow('renamed')} ${r.name}: ${x.from} → ${x.to} (${x.reason})\n`);
}

const hasAuthorization = (s: Pick<ScopedServer, 'entry'>) =>
  Object.keys((s.entry.headers as Raw | undefined) ?? {}).some((k) => k.toLowerCase() === 'authorization');

/** Start a hub on the project (its servers only matter here), wait for every server to connect or fail. */
async function probe(cwd: string) {
  const { createHub } = await import('../hub.ts');
  const { createLogger } = await import('../observe/logger.ts');
  const hub = await createHub({ cwd, logger: createLogger('silent') });
  try {
    await hub.ready();
    const running = hub.sources.get('upstream') as import('../sources/upstream/index.ts').RunningUpstream | undefined;
    // What the servers just listed is kept against their pins before their withheld counts are read.
    await running?.manager()?.settled();
    return {
      views: new Map((running?.manager()?.views() ?? []).map((v) => [v.name, v])),
      // Who is logged in where, from the store (the sealed tokens stay sealed: only state, scope and expiry).
      logins: await hub.services.store.oauthLogins.list(),
    };
  } finally {
    await hub.close();
  }
}

/** `mcp get NAME`: the entry in effect, secrets masked. */
export async function mcpGet(name: string, opts: { cwd: string; json?: boolean }): Promise<void> {
  const found = effective(opts.cwd).find((s) => s.entry.name === name && !s.shadowedBy);
  if (!found) {
    const known = allServers(opts.cwd).map((s) => String(s.entry.name));
    throw new CliError(
      `No MCP server '${name}'.${known.length ? ` Configured: ${[...new Set(known)].join(', ')}.` : ''}`,
    );
  }
  const entry = masked(found.entry);
  if (opts.json) return printJson({ scope: found.scope, file: found.file, ...entry });
  const lines = [`${colour().bold(name)}  (${found.scope} scope: ${found.file})`, `  transport: ${kind(entry)}`];
  if (entry.command) lines.push(`  command:   ${target(entry)}`);
  if (entry.url) lines.push(`  url:       ${entry.url}`);
  if (entry.cwd) lines.push(`  cwd:       ${entry.cwd}`);
  for (const key of ['env', 'headers'] as const)
    if (entry[key] && Object.keys(entry[key] as Raw).length) {
      lines.push(`  ${key}:`);
      for (const [k, v] of Object.entries(entry[key] as Raw)) lines.push(`    ${k}${key === 'env' ? '=' : ': '}${v}`);
    }
  for (const key of ['enabled', 'timeout_ms', 'startup_timeout_ms', 'connect_timeout_secs', 'roles', 'tools'])
    if (entry[key] !== undefined) lines.push(`  ${key}: ${JSON.stringify(entry[key])}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `mcp import --from claude-code|codex|gemini [FILE] [--user]` */
export async function mcpImport(
  file: string | undefined,
  opts: { cwd: string; from?: string; user?: boolean; scope?: string; json?: boolean },
): Promise<void> {
  if (!opts.from || !IMPORT_SOURCES.includes(opts.from as ImportSource))
    throw new CliError(
      `--from: expected one of ${IMPORT_SOURCES.join(', ')}${opts.from ? `, got '${opts.from}'` : ''}.`,
      2,
    );
  const scope = opts.user ? 'user' : (parseScope(opts.scope) ?? 'project');
  // A secret goes into the user's own file as written (owner-only, outside every project), a project's as `${VAR}`.
  const found = importServers(opts.from as ImportSource, opts.cwd, file, process.env, {
    keepSecrets: scope === 'user',
  });
  const added: string[] = [];
  const skipped = [...found.skipped];
  for (const entry of found.servers) {
    try {
      addServer(scope, opts.cwd, entry);
      added.push(String(entry.name));
    } catch (err) {
      const reason =
        err instanceof SwitchboardError && err.code === 'CONFLICT'
          ? `already in ${scope} scope`
          : (err as Error).message;
      skipped.push({ name: String(entry.name), reason });
    }
  }
  const secrets = found.secrets.filter((s) => added.includes(s.server));
  if (opts.json) return printJson({ files: found.files, scope, added, skipped, secrets });
  if (found.files.length === 0)
    throw new CliError(`No ${opts.from} configuration found (looked in the usual places); pass the file path.`);
  process.stdout.write(`Read ${found.files.join(', ')}\n`);
  process.stdout.write(
    added.length ? `Imported into ${scope} scope: ${added.join(', ')}\n` : 'Imported nothing new.\n',
  );
  for (const s of skipped) process.stdout.write(`${colour().yellow('skipped')} ${s.name}: ${s.reason}\n`);
  for (const line of secretVariablesNote(secrets, relative(opts.cwd, scopeFile(scope, opts.cwd))))
    process.stdout.write(`${line}\n`);
  if (added.length) {
    process.stdout.write('Check them with: switchboard mcp list --status\n');
    process.stdout.write(`${removeFromClientHint(opts.from as ImportSource, added)}\n`);
  }
}
