// Reading and editing the `[[servers]]` of one config file (project or user scope), for `switchboard mcp`.
// Edits go through toml-patch so the file keeps its comments and order, and are written atomically.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { patch as tomlPatch } from '@decimalturn/toml-patch';
import { stringify } from 'smol-toml';
import { SwitchboardError } from '../core/errors.ts';
import { checkConfigFiles, configFiles, type Raw, readToml } from './load.ts';
import { SERVER_KEYS, ServerSchema } from './schema.ts';

export type Scope = 'project' | 'user';

export interface ScopedServer {
  scope: Scope;
  file: string;
  /** The entry as written (variables unexpanded). */
  entry: Raw;
}

export function scopeFile(scope: Scope, cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const files = configFiles(cwd, env);
  return scope === 'project' ? files.project : files.user;
}

/** The servers written in one scope's file, in file order. */
export function serversIn(scope: Scope, cwd: string, env: NodeJS.ProcessEnv = process.env): ScopedServer[] {
  const file = scopeFile(scope, cwd, env);
  const raw = readToml(file);
  const servers = Array.isArray(raw.servers) ? (raw.servers as Raw[]) : [];
  return servers.map((entry) => ({ scope, file, entry }));
}

/** Every server of both scopes; where a name is in both, the project entry is the one in effect. */
export function allServers(cwd: string, env: NodeJS.ProcessEnv = process.env): ScopedServer[] {
  return [...serversIn('project', cwd, env), ...serversIn('user', cwd, env)];
}

/**
 * Check an entry against the server schema; the message names the server and each wrong field.
 */
export function checkServerEntry(entry: Raw): void {
  const problems = serverEntryProblems(entry);
  if (problems.length)
    throw new SwitchboardError('INVALID_INPUT', `Invalid server '${String(entry.name)}': ${problems.join('; ')}.`);
}

/** What is wrong with one server entry, each naming its key; empty when nothing is. */
export function serverEntryProblems(entry: Raw): string[] {
  const parsed = ServerSchema.safeParse(entry);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => {
    if (i.code === 'unrecognized_keys')
      return `unknown key ${i.keys.map((k) => `'${k}'`).join(', ')} (a server takes ${SERVER_KEYS.join(', ')})`;
    return `${i.path.join('.') || 'entry'}: ${i.message}`;
  });
}

/**
 * Append a server to a scope's file. A name already there is refused with the command that removes it; so is an
 * entry that would leave the configuration one `serve` refuses (checked as serve checks it, before writing).
 */
export function addServer(scope: Scope, cwd: string, entry: Raw, env: NodeJS.ProcessEnv = process.env): string {
  checkServerEntry(entry);
  const files = configFiles(cwd, env);
  const file = scope === 'project' ? files.project : files.user;
  const raw = readToml(file);
  const servers = Array.isArray(raw.servers) ? (raw.servers as Raw[]) : [];
  if (servers.some((s) => s.name === entry.name))
    throw new SwitchboardError(
      'CONFLICT',
      `MCP server '${entry.name}' already exists in ${scope} scope. Remove it first with: switchboard mcp remove ${entry.name} --scope ${scope}`,
    );
  const next = { ...raw, servers: [...servers, entry] };
  if (scope === 'project') checkConfigFiles(files, readToml(files.user), next, env);
  else checkConfigFiles(files, next, readToml(files.project), env);
  if (servers.length === 0 && existsSync(file)) {
    // toml-patch edits tables that exist; the first [[servers]] is appended as text after what is there.
    const text = readFileSync(file, 'utf8');
    writeAtomically(file, `${text.replace(/\s*$/, '')}${text.trim() ? '\n\n' : ''}${stringify({ servers: [entry] })}`);
  } else write(file, next);
  return file;
}

/** Remove a server from a scope's file; false when it was not there. */
export function removeServer(scope: Scope, cwd: string, name: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const file = scopeFile(scope, cwd, env);
  const raw = readToml(file);
  const servers = Array.isArray(raw.servers) ? (raw.servers as Raw[]) : [];
  const kept = servers.filter((s) => s.name !== name);
  if (kept.length === servers.length) return false;
  const next: Raw = { ...raw, servers: kept };
  if (kept.length === 0) delete next.servers;
  write(file, next);
  return true;
}

/** Write atomically (temp file + rename), patching the existing text so comments and order survive. */
function write(file: string, next: Raw): void {
  writeAtomically(file, existsSync(file) ? tomlPatch(readFileSync(file, 'utf8'), next) : stringify(next));
}

function writeAtomically(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}
