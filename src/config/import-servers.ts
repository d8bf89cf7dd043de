// Read the MCP servers another client has configured — Claude Code (`.mcp.json`, `~/.claude.json`), Codex
// (`~/.codex/config.toml`) and Gemini CLI (`.gemini/settings.json`) — as Switchboard `[[servers]]` entries.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { SwitchboardError } from '../core/errors.ts';
import type { Raw } from './load.ts';
import { SERVER_NAME } from './schema.ts';

export type ImportSource = 'claude-code' | 'codex' | 'gemini';
export const IMPORT_SOURCES: readonly ImportSource[] = ['claude-code', 'codex', 'gemini'];

export interface ImportedServers {
  /** The files that were read. */
  files: string[];
  servers: Raw[];
  /** Entries that could not be carried over, with why. */
  skipped: Array<{ name: string; reason: string }>;
}

const isPlain = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where each client keeps its servers, most specific first; only existing files are read. */
export function defaultFiles(from: ImportSource, cwd: string, home = homedir()): string[] {
  switch (from) {
    case 'claude-code':
      return [join(cwd, '.mcp.json'), join(home, '.claude.json')];
    case 'codex':
      return [join(home, '.codex', 'config.toml')];
    case 'gemini':
      return [join(cwd, '.gemini', 'settings.json'), join(home, '.gemini', 'settings.json')];
  }
}

/**
 * Read servers from `file` (or the client's usual files). The first file that names a server wins.
 *
 * @example
 * const { servers } = importServers('claude-code', process.cwd());
 */
export function importServers(from: ImportSource, cwd: string, file?: string, home = homedir()): ImportedServers {
  const files = file ? [file] : defaultFiles(from, cwd, home).filter((f) => existsSync(f));
  if (file && !existsSync(file))
    throw new SwitchboardError('NOT_FOUND', `${file} does not exist (expected a ${from} configuration file).`);
  const out: ImportedServers = { files, servers: [], skipped: [] };
  const seen = new Set<string>();
  for (const f of files) {
    const entries = from === 'codex' ? codexEntries(f) : jsonEntries(f, from, cwd);
    for (const [name, spec] of entries) {
      if (seen.has(name)) continue;
      seen.add(name);
      if (!SERVER_NAME.test(name)) {
        out.skipped.push({ name, reason: 'the name is not 1-64 of A-Z a-z 0-9 _ - (rename it and add it by hand)' });
        continue;
      }
      const converted = from === 'codex' ? fromCodex(name, spec) : fromJson(name, spec, from);
      if (converted.ok) out.servers.push(converted.entry);
      else out.skipped.push({ name, reason: converted.reason });
    }
  }
  return out;
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

function codexEntries(file: string): Array<[string, Raw]> {
  let toml: Raw;
  try {
    toml = parse(readFileSync(file, 'utf8')) as Raw;
  } catch (err) {
    throw new SwitchboardError('INVALID_INPUT', `${file}: not valid TOML (${(err as Error).message.split('\n')[0]}).`);
  }
  const table = toml.mcp_servers;
  return isPlain(table) ? Object.entries(table).filter((e): e is [string, Raw] => isPlain(e[1])) : [];
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
