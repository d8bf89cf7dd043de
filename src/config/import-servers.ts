// Read the MCP servers another client has configured — Claude Code (`.mcp.json`, `~/.claude.json`), Codex
// (`.codex/config.toml`, `$CODEX_HOME/config.toml`), Gemini CLI (`.gemini/settings.json`, `~/.gemini/…`) and
// Meerkat (`.rkat/mcp.toml`, `~/.rkat/mcp.toml`) — as Switchboard `[[servers]]` entries.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { SwitchboardError } from '../core/errors.ts';
import { isSwitchboardItself } from './agent-launch.ts';
import { codexConfigFile, geminiSettingsFile, meerkatMcpFile, userHome } from './client-paths.ts';
import { referenceSecrets, type SecretVariable } from './import-secrets.ts';
import type { Raw } from './load.ts';
import { fromMeerkatSpelling, SERVER_NAME } from './schema.ts';
import { serverEntryProblems } from './server-entries.ts';

export type ImportSource = 'claude-code' | 'codex' | 'gemini' | 'meerkat';
export const IMPORT_SOURCES: readonly ImportSource[] = ['claude-code', 'codex', 'gemini', 'meerkat'];

/** Each client's name and its own command to drop a server from its configuration. */
const CLIENT_REMOVE: Record<ImportSource, { client: string; remove: string }> = {
  'claude-code': { client: 'Claude Code', remove: 'claude mcp remove' },
  codex: { client: 'Codex', remove: 'codex mcp remove' },
  gemini: { client: 'Gemini CLI', remove: 'gemini mcp remove' },
  meerkat: { client: 'Meerkat', remove: 'rkat mcp remove' },
};

/**
 * What to tell the user after importing `names` from a client: until the client drops its own entries, it starts
 * those servers itself too and lists every tool twice.
 */
export function removeFromClientHint(from: ImportSource, names: readonly string[]): string {
  const { client, remove } = CLIENT_REMOVE[from];
  return `${client} still starts them itself: once it reaches them through Switchboard, remove them there (${names.map((n) => `${remove} ${n}`).join('; ')}), or it sees each tool twice.`;
}

/** The reason given for an entry that starts Switchboard itself: the client is connected to Switchboard. */
export const SWITCHBOARD_ITSELF = 'it starts Switchboard itself (an install wrote it), not an upstream server';

export interface ImportedServers {
  /** The files that were read. */
  files: string[];
  servers: Raw[];
  /** The file each imported server was read from, by name. */
  origins: Record<string, string>;
  /** Entries that could not be carried over, with why. */
  skipped: Array<{ name: string; reason: string }>;
  /** The variables the servers refer to in their secrets' place (import-secrets.ts), to tell the user. */
  secrets: SecretVariable[];
}

const isPlain = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where each client keeps its servers, most specific first; only existing files are read. */
export function defaultFiles(from: ImportSource, cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const file = {
    'claude-code': (scope: 'project' | 'user') =>
      scope === 'project' ? join(cwd, '.mcp.json') : join(userHome(env), '.claude.json'),
    codex: (scope: 'project' | 'user') => codexConfigFile(scope, cwd, env),
    gemini: (scope: 'project' | 'user') => geminiSettingsFile(scope, cwd, env),
    meerkat: (scope: 'project' | 'user') => meerkatMcpFile(scope, cwd, env),
  }[from];
  return [file('project'), file('user')];
}

/**
 * Read servers from `file` (or the client's usual files). The first file that names a server wins. Their secrets
 * become `${VAR}` references (`secrets` lists them) unless `keepSecrets` — for the user's own file, never a project's.
 *
 * @example
 * const { servers, secrets } = importServers('claude-code', process.cwd());
 */
export function importServers(
  from: ImportSource,
  cwd: string,
  file?: string,
  env: NodeJS.ProcessEnv = process.env,
  opts: { keepSecrets?: boolean } = {},
): ImportedServers {
  const files = file ? [file] : defaultFiles(from, cwd, env).filter((f) => existsSync(f));
  if (file && !existsSync(file))
    throw new SwitchboardError('NOT_FOUND', `${file} does not exist (expected a ${from} configuration file).`);
  const out: ImportedServers = { files, servers: [], origins: {}, skipped: [], secrets: [] };
  const seen = new Set<string>();
  for (const f of files) {
    const entries =
      from === 'codex' ? codexEntries(f) : from === 'meerkat' ? meerkatEntries(f) : jsonEntries(f, from, cwd);
    for (const [name, spec] of entries) {
      if (seen.has(name)) continue;
      seen.add(name);
      if (!SERVER_NAME.test(name)) {
        out.skipped.push({ name, reason: 'the name is not 1-64 of A-Z a-z 0-9 _ - (rename it and add it by hand)' });
        continue;
      }
      if (isSwitchboardItself(spec)) {
        out.skipped.push({
          name,
          reason: 'it starts Switchboard itself (an install wrote it), not an upstream server',
        });
        continue;
      }
      const converted =
        from === 'codex'
          ? fromCodex(name, spec)
          : from === 'meerkat'
            ? fromMeerkat(f, spec)
            : fromJson(name, spec, from);
      if (converted.ok) {
        out.servers.push(converted.entry);
        out.origins[name] = f;
      } else out.skipped.push({ name, reason: converted.reason });
    }
  }
  if (opts.keepSecrets) return out;
  const { entries, secrets } = referenceSecrets(out.servers, out.origins);
  return { ...out, servers: entries, secrets };
}

function readJson(file: string): Raw {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8'));
    return isPlain(v) ? v : {};
  } catch (err) {
    throw new SwitchboardError('INVALID_INPUT', `${file}: not valid JSON (${(err as Error).message}).`);
  }
}

/** `mcpServers` of a JSON config; `~/.claude.json` also keeps per-project servers under `projects[cwd]`. */
function jsonEntries(file: string, from: ImportSource, cwd: string): Array<[string, Raw]> {
  const json = readJson(file);
  const tables: unknown[] = [json.mcpServers];
  if (from === 'claude-code' && isPlain(json.projects) && isPlain(json.projects[cwd]))
    tables.unshift((json.projects[cwd] as Raw).mcpServers);
  const out: Array<[string, Raw]> = [];
  for (const t of tables) if (isPlain(t)) for (const [k, v] of Object.entries(t)) if (isPlain(v)) out.push([k, v]);
  return out;
}

function readToml(file: string): Raw {
  try {
    return parse(readFileSync(file, 'utf8')) as Raw;
  } catch (err) {
    throw new SwitchboardError('INVALID_INPUT', `${file}: not valid TOML (${(err as Error).message.split('\n')[0]}).`);
  }
}

function codexEntries(file: string): Array<[string, Raw]> {
  const table = readToml(file).mcp_servers;
  return isPlain(table) ? Object.entries(table).filter((e): e is [string, Raw] => isPlain(e[1])) : [];
}

/** Meerkat writes `[[servers]]` tables with a `name`, like Switchboard. */
function meerkatEntries(file: string): Array<[string, Raw]> {
  const servers = readToml(file).servers;
  if (!Array.isArray(servers)) return [];
  return servers.filter((s): s is Raw => isPlain(s) && typeof s.name === 'string').map((s) => [String(s.name), s]);
}

const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined;
const stringMap = (v: unknown): Record<string, string> | undefined =>
  isPlain(v) && Object.values(v).every((x) => typeof x === 'string') ? (v as Record<string, string>) : undefined;

type Converted = { ok: true; entry: Raw } | { ok: false; reason: string };

const skip = (reason: string): Converted => ({ ok: false, reason });

function compact(entry: Raw): Converted {
  return {
    ok: true,
    entry: Object.fromEntries(
      Object.entries(entry).filter(([, v]) => v !== undefined && !(isPlain(v) && Object.keys(v).length === 0)),
    ),
  };
}

/** A stdio server: every client writes command, args, env and cwd the same way. */
function stdioEntry(name: string, spec: Raw, extra: Raw): Converted {
  return compact({
    name,
    command: spec.command,
    args: strings(spec.args),
    env: stringMap(spec.env),
    cwd: typeof spec.cwd === 'string' ? spec.cwd : undefined,
    ...extra,
  });
}

/** Claude Code and Gemini CLI share the `mcpServers` shape, with different names for the URL kinds. */
function fromJson(name: string, spec: Raw, from: ImportSource): Converted {
  if (spec.disabled === true) return skip('disabled there');
  const headers = stringMap(spec.headers);
  if (typeof spec.command === 'string')
    return stdioEntry(name, spec, {
      timeout_ms: typeof spec.timeout === 'number' && from === 'gemini' ? spec.timeout : undefined,
    });
  const httpUrl = typeof spec.httpUrl === 'string' ? spec.httpUrl : undefined;
  const url = typeof spec.url === 'string' ? spec.url : undefined;
  if (httpUrl) return compact({ name, url: httpUrl, headers });
  if (url) {
    // Claude Code says `type: "sse" | "http"`; Gemini's plain `url` is SSE, its `httpUrl` is Streamable HTTP.
    const sse = spec.type === 'sse' || (from === 'gemini' && spec.type !== 'http');
    return compact({ name, url, headers, ...(sse ? { transport: 'sse' } : {}) });
  }
  return skip('neither a command nor a url');
}

function fromCodex(name: string, spec: Raw): Converted {
  if (spec.enabled === false) return skip('disabled there');
  const timeout = typeof spec.tool_timeout_sec === 'number' ? Math.round(spec.tool_timeout_sec * 1000) : undefined;
  const startup =
    typeof spec.startup_timeout_sec === 'number' ? Math.round(spec.startup_timeout_sec * 1000) : undefined;
  if (typeof spec.command === 'string')
    return stdioEntry(name, spec, { timeout_ms: timeout, startup_timeout_ms: startup });
  if (typeof spec.url === 'string') {
    const headers: Record<string, string> = { ...(stringMap(spec.http_headers) ?? {}) };
    // Codex names the variable that holds the bearer token; Switchboard expands it when it connects.
    if (typeof spec.bearer_token_env_var === 'string')
      headers.Authorization = `Bearer \${${spec.bearer_token_env_var}}`;
    for (const [k, v] of Object.entries(stringMap(spec.env_http_headers) ?? {})) headers[k] = `\${${v}}`;
    return compact({ name, url: spec.url, headers, timeout_ms: timeout, startup_timeout_ms: startup });
  }
  return skip('neither a command nor a url');
}

/**
 * Meerkat: nearly Switchboard's own `[[servers]]` entry. Its spellings become Switchboard's (schema.ts
 * `fromMeerkatSpelling`); every other key is kept, so one Switchboard does not know is refused by name, not dropped.
 */
function fromMeerkat(file: string, spec: Raw): Converted {
  if (typeof spec.oauth_account === 'string')
    return skip("it signs in with Meerkat's OAuth account; add it with its headers: switchboard mcp add -u URL -H …");
  const { entry, issues } = fromMeerkatSpelling(spec);
  if (entry.transport === 'http') delete entry.transport;
  const problems = issues.length ? issues.map((i) => `${i.path}: ${i.message}`) : serverEntryProblems(entry);
  return problems.length ? skip(`${file}: ${problems.join('; ')}`) : { ok: true, entry };
}
