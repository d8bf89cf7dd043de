// The live configuration: what system.config reads and changes. Every change is validated as a whole
// before it applies; `persist` writes the project file keeping its comments and key order.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { patch as tomlPatch } from '@decimalturn/toml-patch';
import mergePatch from 'json-merge-patch';
import { stringify } from 'smol-toml';
import type { ConfigAccess } from '../core/context.ts';
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

export class LiveConfig implements ConfigAccess {
  private current: Config;
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
    return config;
  }

  get(): Config {
    return this.current;
  }

  raw(): Raw {
    return structuredClone(this.runtimeRaw);
  }

  async replace(next: unknown, opts: { persist?: boolean } = {}): Promise<Config> {
    if (!isPlain(next))
      throw new SwitchboardError('INVALID_INPUT', 'config: expected an object (a whole configuration).');
    const config = validateConfig(expandAll(next, '', this.env), 'system.config set');
    if (opts.persist) this.persist(next);
    this.runtimeRaw = structuredClone(next);
    this.apply(config);
    return config;
  }

  async patch(patch: unknown, opts: { persist?: boolean } = {}): Promise<Config> {
    if (!isPlain(patch))
      throw new SwitchboardError('INVALID_INPUT', 'patch: expected an object (an RFC 7396 merge patch).');
    // Patch what is in effect now, so successive in-memory patches accumulate.
    const effective = mergePatch.apply(structuredClone(this.runtimeRaw), patch) as Raw;
    const config = validateConfig(expandAll(effective, '', this.env), 'system.config patch');
    if (opts.persist) this.persist(mergePatch.apply(structuredClone(this.projectRaw), patch) as Raw);
    this.runtimeRaw = effective;
    this.apply(config);
    return config;
  }

  onChange(listener: (config: Config) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private apply(config: Config): void {
    this.current = config;
    for (const l of this.listeners) l(config);
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
