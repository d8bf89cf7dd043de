// Reading and editing the `[[servers]]` of one config file (project or user scope), for `switchboard mcp`.
// Edits go through toml-patch so the file keeps its comments and order, and are written atomically.
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { patch as tomlPatch } from '@decimalturn/toml-patch';
import { parse, stringify } from 'smol-toml';
import { SwitchboardError } from '../core/errors.ts';
import { checkConfigFiles, configFiles, type Raw, readToml } from './load.ts';
import { type Config, SERVER_KEYS, ServerSchema } from './schema.ts';

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

/** One server's entry changed in its file: the text before and after, not yet written (`writeServerEdit`). */
export interface ServerEdit {
  scope: Scope;
  file: string;
  before: string;
  after: string;
  /** The configuration in effect once the edit is written, checked as serve checks it. */
  config: Config;
}

/**
 * Change one server's entry in a scope's file, keeping every other byte (comments, order, the sub-tables such as
 * `[servers.headers]` that follow it). Planned here and written by `writeServerEdit`, so a caller can show the
 * change or check it can write first. The patched text must read back as exactly the changed entry.
 */
export function planServerEdit(
  scope: Scope,
  cwd: string,
  name: string,
  change: (entry: Raw) => Raw,
  env: NodeJS.ProcessEnv = process.env,
): ServerEdit {
  const files = configFiles(cwd, env);
  const file = files[scope];
  const raw = readToml(file);
  const servers = Array.isArray(raw.servers) ? (raw.servers as Raw[]) : [];
  const at = servers.findIndex((s) => s.name === name);
  if (at < 0) throw new SwitchboardError('NOT_FOUND', `No MCP server '${name}' in ${file}.`);
  const next = { ...raw, servers: servers.map((s, i) => (i === at ? change(s) : s)) };
  checkServerEntry(next.servers[at] as Raw);
  const config =
    scope === 'project'
      ? checkConfigFiles(files, readToml(files.user), next, env)
      : checkConfigFiles(files, next, readToml(files.project), env);
  const before = readFileSync(file, 'utf8');
  const after = tomlPatch(before, next);
  // smol-toml's tables and ours differ in prototype: compare content.
  const plain = (x: unknown) => JSON.parse(JSON.stringify(x));
  if (!isDeepStrictEqual(plain(parse(after)), plain(next)))
    throw new SwitchboardError('INTERNAL', `Editing ${file} in place would change more than server '${name}'.`);
  return { scope, file, before, after, config };
}

export function writeServerEdit(edit: ServerEdit): void {
  if (edit.after !== edit.before) writeAtomically(edit.file, edit.after);
}

/** Why `file` cannot be written in place (read-only file or folder, read-only file system), or undefined. */
export function notWritable(file: string): string | undefined {
  const real = existsSync(file) ? realpathSync(file) : file;
  for (const path of [real, dirname(real)])
    try {
      accessSync(path, constants.W_OK);
    } catch (err) {
      return `${path} is not writable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
    }
  return undefined;
}

/** Write atomically (temp file + rename), patching the existing text so comments and order survive. */
function write(file: string, next: Raw): void {
  writeAtomically(file, existsSync(file) ? tomlPatch(readFileSync(file, 'utf8'), next) : stringify(next));
}

function writeAtomically(path: string, text: string): void {
  // Through a symlink (a config kept with the user's dotfiles) to its target: the link stays a link.
  const file = existsSync(path) ? realpathSync(path) : path;
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}
