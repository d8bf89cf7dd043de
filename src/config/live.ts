// The live configuration: what system.config reads and changes. Every change is validated as a whole
// before it applies; `persist` writes the project file keeping its comments and key order.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { patch as tomlPatch } from '@decimalturn/toml-patch';
import mergePatch from 'json-merge-patch';
import { stringify } from 'smol-toml';
import type { ConfigAccess, ConfigOverride } from '../core/context.ts';
import { SwitchboardError } from '../core/errors.ts';
import {
  type ConfigFiles,
  checkConfigFiles,
  expandAll,
  type LoadedConfig,
  mergeConfig,
  type Raw,
  readToml,
  validateConfig,
} from './load.ts';
import type { Config } from './schema.ts';

const isPlain = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

function getPath(obj: unknown, keys: readonly string[]): unknown {
  return keys.reduce<unknown>((at, k) => (isPlain(at) ? at[k] : undefined), obj);
}

/** A copy of `obj` with `value` at `keys` (objects along the way copied, not changed); undefined deletes the key. */
function setPath(obj: Raw, keys: readonly string[], value: unknown): Raw {
  const [head, ...rest] = keys;
  const out = { ...obj };
  if (rest.length) out[head] = setPath(isPlain(obj[head]) ? obj[head] : {}, rest, value);
  else if (value === undefined) delete out[head];
  else out[head] = value;
  return out;
}

export class LiveConfig implements ConfigAccess {
  /** What the files and changes say; `current` is this with the overrides applied. */
  private configured: Config;
  private current: Config;
  private readonly overrides = new Map<string, { value: unknown; from: string }>();
  private projectRaw: Raw;
  /** The raw (unexpanded) configuration in effect: user + project at start, then every applied change. */
  private runtimeRaw: Raw;
  readonly projectFile: string;
  readonly files: ConfigFiles;
  private readonly listeners = new Set<(config: Config) => void>();

  constructor(
    loaded: LoadedConfig,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    this.configured = loaded.config;
    this.current = loaded.config;
    this.projectRaw = loaded.projectRaw;
    this.runtimeRaw = mergeConfig(loaded.userRaw, loaded.projectRaw);
    this.projectFile = loaded.files.project;
    this.files = loaded.files;
  }

  /**
   * Re-read both files after someone edited them (the hub watches them). An invalid edit throws and changes
   * nothing: the configuration in effect stays until the file is fixed.
   */
  reload(): Config {
    const userRaw = readToml(this.files.user);
    const projectRaw = readToml(this.files.project);
    const config = checkConfigFiles(this.files, userRaw, projectRaw, this.env);
    this.projectRaw = projectRaw;
    this.runtimeRaw = mergeConfig(userRaw, projectRaw);
    this.apply(config);
    return this.current;
  }

  get(): Config {
    return this.current;
  }

  raw(): Raw {
    return structuredClone(this.runtimeRaw);
  }

  /**
   * Record a value in effect that the files do not give (the port `serve` bound, the store `--store` named). `get`
   * returns it from now on, through reloads and changes; listeners are not told, as nothing they act on changes.
   */
  override(key: string, value: unknown, from: string): void {
    this.overrides.set(key, { value, from });
    this.current = this.withOverrides(this.configured);
  }

  /** The values in effect that the configuration does not give, each with where it came from. */
  overridden(): ConfigOverride[] {
    return [...this.overrides].map(([key, { value, from }]) => ({
      key,
      value,
      from,
      configured: getPath(this.configured, key.split('.')),
    }));
  }

  private withOverrides(config: Config): Config {
    let out = config as unknown as Raw;
    for (const [key, { value }] of this.overrides) out = setPath(out, key.split('.'), value);
    return out as unknown as Config;
  }

  /**
   * A configuration from `get` that comes back to `set` or `patch` carries the overrides as values: where it still
   * has them, the configuration keeps what it said (an override is never written into the file as configured).
   */
  private withoutOverrides(next: Raw, action: 'set' | 'patch'): Raw {
    let out = next;
    for (const [key, { value }] of this.overrides) {
      const keys = key.split('.');
      if (getPath(next, keys) !== value || getPath(this.configured, keys) === value) continue;
      // A patch leaves the key alone; a whole configuration keeps what was written there (or the default).
      out = setPath(out, keys, action === 'patch' ? undefined : getPath(this.runtimeRaw, keys));
    }
    return out;
  }

  async replace(next: unknown, opts: { persist?: boolean } = {}): Promise<Config> {
    if (!isPlain(next))
      throw new SwitchboardError('INVALID_INPUT', 'config: expected an object (a whole configuration).');
    const given = this.withoutOverrides(next, 'set');
    const config = validateConfig(expandAll(given, '', this.env), 'system.config set');
    if (opts.persist) this.persist(given);
    this.runtimeRaw = structuredClone(given);
    this.apply(config);
    return this.current;
  }

  async patch(patch: unknown, opts: { persist?: boolean } = {}): Promise<Config> {
    if (!isPlain(patch))
      throw new SwitchboardError('INVALID_INPUT', 'patch: expected an object (an RFC 7396 merge patch).');
    patch = this.withoutOverrides(patch, 'patch');
    // Patch what is in effect now, so successive in-memory patches accumulate.
    const effective = mergePatch.apply(structuredClone(this.runtimeRaw), patch) as Raw;
    const config = validateConfig(expandAll(effective, '', this.env), 'system.config patch');
    if (opts.persist) this.persist(mergePatch.apply(structuredClone(this.projectRaw), patch) as Raw);
    this.runtimeRaw = effective;
    this.apply(config);
    return this.current;
  }

  onChange(listener: (config: Config) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private apply(config: Config): void {
    this.configured = config;
    this.current = this.withOverrides(config);
    for (const l of this.listeners) l(this.current);
  }

  /** Write the project file atomically (temp file + rename), keeping comments where the file exists. */
  private persist(projectRaw: Raw): void {
    mkdirSync(dirname(this.projectFile), { recursive: true });
    const text = existsSync(this.projectFile)
      ? tomlPatch(readFileSync(this.projectFile, 'utf8'), projectRaw)
      : stringify(projectRaw);
    const tmp = `${this.projectFile}.${process.pid}.tmp`;
    writeFileSync(tmp, text.endsWith('\n') ? text : `${text}\n`);
    renameSync(tmp, this.projectFile);
    this.projectRaw = projectRaw;
  }
}
