// Read, merge, expand and validate configuration: project `.switchboard/config.toml` (working directory
// only, never searched upward) over user `~/.switchboard/config.toml`.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { SwitchboardError } from '../core/errors.ts';
import { describeIssues } from '../core/pipeline.ts';
import { type Config, ConfigSchema, SERVER_KEYS } from './schema.ts';

export type Raw = Record<string, unknown>;

export interface ConfigFiles {
  project: string;
  user: string;
}

/** Where the config files live; SWITCHBOARD_HOME overrides `~` (tests, sandboxes). */
export function configFiles(cwd: string, env: NodeJS.ProcessEnv = process.env): ConfigFiles {
  const home = env.SWITCHBOARD_HOME ?? join(homedir(), '.switchboard');
  return { project: join(cwd, '.switchboard', 'config.toml'), user: join(home, 'config.toml') };
}

/** Parse one TOML file; a syntax error names the file, line and column. Missing file → empty. */
export function readToml(file: string): Raw {
  if (!existsSync(file)) return {};
  const text = readFileSync(file, 'utf8');
  try {
    return parse(text) as Raw;
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split('\n')[0];
      throw new SwitchboardError('INVALID_INPUT', `${file}:${err.line}:${err.column}: ${first}`, {
        file,
        line: err.line,
        column: err.column,
      });
    }
    throw err;
  }
}

const isPlain = (v: unknown): v is Raw =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);

/** Deep merge where `over` wins; arrays of named tables (`[[servers]]`) merge by `name`, project first. */
export function mergeConfig(base: Raw, over: Raw): Raw {
  const out: Raw = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    if (isPlain(b) && isPlain(v)) out[k] = mergeConfig(b, v);
    else if (Array.isArray(b) && Array.isArray(v) && v.every((x) => isPlain(x) && typeof x.name === 'string')) {
      const names = new Set(v.map((x) => (x as Raw).name));
      out[k] = [...v, ...b.filter((x) => !(isPlain(x) && names.has(x.name)))];
    } else out[k] = v;
  }
  return out;
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expand `${VAR}` and `${VAR:-default}`; a missing variable without default is an error naming the field. */
export function expandString(value: string, field: string, env: NodeJS.ProcessEnv = process.env): string {
  return value.replace(VAR, (_m, name: string, fallback: string | undefined) => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    throw new SwitchboardError(
      'INVALID_INPUT',
      `${field}: environment variable ${name} is not set (set it, or write \${${name}:-default} to give a default).`,
      { field, variable: name },
    );
  });
}

/**
 * Sections whose strings keep their `${VAR}` references at load time: each upstream server expands its own when it
 * connects, so one server's missing variable fails that server alone, and secrets never sit in the live config.
 */
export const DEFERRED_EXPANSION = new Set(['servers']);

/** Expand variables in every string of a config tree (except the deferred sections at its root). */
export function expandAll(value: unknown, field = '', env: NodeJS.ProcessEnv = process.env): unknown {
  if (typeof value === 'string') return expandString(value, field || '(root)', env);
  if (Array.isArray(value))
    return value.map((v, i) => {
      // Named tables (`[[servers]]`) are named by their name in messages: `servers.tickets.headers.X`.
      const at = isPlain(v) && typeof v.name === 'string' ? `.${v.name}` : `[${i}]`;
      return expandAll(v, `${field}${at}`, env);
    });
  if (isPlain(value)) {
    const out: Raw = {};
    for (const [k, v] of Object.entries(value))
      out[k] = !field && DEFERRED_EXPANSION.has(k) ? v : expandAll(v, field ? `${field}.${k}` : k, env);
    return out;
  }
  return value;
}

/** A key's path as people read it: a `[[servers]]` table by its name (`servers.tickets.transport`). */
function keyPath(path: readonly PropertyKey[], raw: unknown): string {
  const parts = path.map(String);
  const servers = isPlain(raw) ? raw.servers : undefined;
  if (parts[0] === 'servers' && typeof path[1] === 'number' && Array.isArray(servers)) {
    const name = (servers[path[1]] as Raw | undefined)?.name;
    if (typeof name === 'string' && name) parts[1] = name;
  }
  return parts.join('.');
}

/** Validate a raw (merged, expanded) config; errors name each offending key. */
export function validateConfig(raw: unknown, origin: string): Config {
  const parsed = ConfigSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => {
    const path = keyPath(i.path, raw);
    if (i.code === 'unrecognized_keys') {
      const at = path ? `${path}.` : '';
      // A server entry is where other clients' files are pasted: say which keys it takes.
      const hint = i.path[0] === 'servers' && i.path.length === 2 ? ` (a server takes ${SERVER_KEYS.join(', ')})` : '';
      return {
        path: path || '(root)',
        message: `unknown key ${i.keys.map((k) => `'${at}${k}'`).join(', ')}${hint}`,
      };
    }
    // A record key that breaks its rule (`[profiles."a b"]`): the key's own message says what a key may be.
    if (i.code === 'invalid_key') return { path: path || '(root)', message: i.issues[0]?.message ?? i.message };
    return { path: path || '(root)', message: i.message };
  });
  const message = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  throw new SwitchboardError('INVALID_INPUT', `Invalid configuration (${origin}): ${message}`, { issues });
}

export interface LoadedConfig {
  config: Config;
  files: ConfigFiles;
  /** The project file's own raw content (unexpanded), which `persist` edits. */
  projectRaw: Raw;
  userRaw: Raw;
}

/**
 * The one check of the configuration files every command makes (serve, the hot reload, `mcp`, `init`, `hook`):
 * user and project merged, variables expanded, validated. A problem is reported in the file it is in: each file
 * alone is a whole configuration (every key has a default), so it is checked alone once the merge fails.
 */
export function checkConfigFiles(files: ConfigFiles, userRaw: Raw, projectRaw: Raw, env: NodeJS.ProcessEnv): Config {
  try {
    return validateConfig(expandAll(mergeConfig(userRaw, projectRaw), '', env), `${files.user} + ${files.project}`);
  } catch (err) {
    for (const [file, raw] of [
      [files.project, projectRaw],
      [files.user, userRaw],
    ] as const)
      validateConfig(expandAll(raw, '', env), file);
    throw err;
  }
}

/** Load the effective configuration for a project directory. */
export function loadConfig(cwd: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const files = configFiles(cwd, env);
  const userRaw = readToml(files.user);
  const projectRaw = readToml(files.project);
  const config = checkConfigFiles(files, userRaw, projectRaw, env);
  return { config, files, projectRaw, userRaw };
}

export { describeIssues };
