// Han's override files, read as Han reads them (packages/han/lib/config/han-settings.ts, hooks/hook-config.ts):
// `han.yml` files — ~/.claude/han.yml < .claude/han.yml < .claude/han.local.yml < ./han.yml < <dir>/han.yml — with
// `plugins.<plugin>.hooks.<hook>: {enabled, command, if_changed, idle_timeout}`, and below them the legacy
// `<dir>/han-config.yml` (`<plugin>.<hook>: {…}`, read only when that folder has no han.yml). Every key Switchboard
// cannot use is an issue naming the file, the key and what to do; nothing is dropped silently.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { parse } from 'yaml';
import { claudeConfigDir, type FileIssues } from './claude-code.ts';
import type { ManifestIssue } from './manifest.ts';

/** One hook's override. `idle_timeout` is in seconds, as Han reads it; `false` or `0` turns it off. */
export interface HookOverride {
  enabled?: boolean;
  command?: string;
  if_changed?: string[];
  idle_timeout?: number | false;
}

/** Han's `hooks:` master switches. */
export interface HanSwitches {
  /** `false`: agent hook events run no plugin hook. */
  enabled?: boolean;
  /** `false`: `${HAN_FILES}` is not narrowed to the files the session edited. */
  checkpoints?: boolean;
  /** `false`: agent hook events run every directory, cached or not. */
  cache?: boolean;
}

/** A resolved override, with the file each field came from (for messages such as "disabled by x/han.yml"). */
export interface ResolvedOverride {
  override: HookOverride;
  from: Partial<Record<keyof HookOverride, string>>;
}

interface ParsedFile {
  plugins: Record<string, Record<string, HookOverride>>;
  switches: HanSwitches;
  issues: ManifestIssue[];
}

const OVERRIDE_KEYS = ['enabled', 'command', 'if_changed', 'idle_timeout'];
/** Sections of han.yml that configure Han itself: nothing in Switchboard corresponds to them. */
const HAN_ONLY = ['hanBinary', 'ports', 'learn', 'memory', 'metrics', 'sync'];
const SWITCH_KEYS = ['enabled', 'checkpoints', 'cache'];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Check one hook override; keys that cannot be used become issues and are left out. */
function checkOverride(value: unknown, at: string, issues: ManifestIssue[]): HookOverride {
  if (!isObject(value)) {
    issues.push({ field: at, message: 'expected a mapping of enabled, command, if_changed, idle_timeout; ignored' });
    return {};
  }
  const out: HookOverride = {};
  for (const [key, v] of Object.entries(value)) {
    const field = `${at}.${key}`;
    if (key === 'enabled' && typeof v === 'boolean') out.enabled = v;
    else if (key === 'command' && typeof v === 'string' && v.trim()) out.command = v;
    else if (key === 'if_changed' && Array.isArray(v) && v.every((x) => typeof x === 'string')) out.if_changed = v;
    else if (key === 'idle_timeout' && (v === false || (Number.isInteger(v) && (v as number) >= 0)))
      out.idle_timeout = v as number | false;
    else if (key === 'before_all')
      issues.push({
        field,
        message:
          "Han's before_all is not supported by Switchboard and is ignored; run that step at the start of the hook's command instead",
      });
    else if (OVERRIDE_KEYS.includes(key))
      issues.push({
        field,
        message: `wrong type: ${key} must be ${
          {
            enabled: 'true or false',
            command: 'a non-empty string',
            if_changed: 'a list of glob strings',
            idle_timeout: 'whole seconds (0 or false turns it off)',
          }[key]
        }; this value is ignored`,
      });
    else
      issues.push({
        field,
        message: `unknown key '${key}' is ignored; a hook override takes ${OVERRIDE_KEYS.join(', ')}`,
      });
  }
  return out;
}

/** Parse a `han.yml`: `hooks:` switches and `plugins.<plugin>.hooks.<hook>` overrides. */
export function parseHanYml(text: string): ParsedFile {
  const out: ParsedFile = { plugins: {}, switches: {}, issues: [] };
  const raw = parseYaml(text, out.issues);
  if (raw === undefined) return out;
  for (const [key, value] of Object.entries(raw)) {
    if (key === 'plugins') {
      if (!isObject(value)) {
        out.issues.push({ field: key, message: 'expected a mapping of plugin name → { hooks: { … } }; ignored' });
        continue;
      }
      for (const [plugin, settings] of Object.entries(value)) {
        const at = `plugins.${plugin}`;
        if (!isObject(settings)) {
          out.issues.push({ field: at, message: 'expected a mapping with a hooks section; ignored' });
          continue;
        }
        for (const [k, v] of Object.entries(settings)) {
          if (k === 'hooks' && isObject(v)) {
            out.plugins[plugin] ??= {};
            for (const [hook, o] of Object.entries(v))
              out.plugins[plugin][hook] = checkOverride(o, `${at}.hooks.${hook}`, out.issues);
          } else if (k === 'hooks') {
            out.issues.push({ field: `${at}.hooks`, message: 'expected a mapping of hook name → override; ignored' });
          } else if (isObject(v) && Object.keys(v).some((x) => OVERRIDE_KEYS.includes(x))) {
            // Han's JSON schema shows this layout, but Han itself reads overrides only under `hooks:`.
            out.issues.push({
              field: `${at}.${k}`,
              message: `hook overrides belong under ${at}.hooks.${k} (Han reads them only there); move it, it is ignored here`,
            });
          } else out.issues.push({ field: `${at}.${k}`, message: `unknown key '${k}' is ignored; expected hooks` });
        }
      }
    } else if (key === 'hooks') {
      if (!isObject(value)) {
        out.issues.push({ field: key, message: 'expected a mapping of enabled, checkpoints, cache; ignored' });
        continue;
      }
      for (const [k, v] of Object.entries(value)) {
        if (SWITCH_KEYS.includes(k) && typeof v === 'boolean') out.switches[k as keyof HanSwitches] = v;
        else
          out.issues.push({
            field: `hooks.${k}`,
            message: SWITCH_KEYS.includes(k)
              ? `wrong type: ${k} must be true or false; ignored`
              : `unknown key '${k}' is ignored; hooks takes ${SWITCH_KEYS.join(', ')}`,
          });
      }
    } else if (HAN_ONLY.includes(key)) {
      out.issues.push({
        field: key,
        message: `configures Han itself; Switchboard has no such setting and ignores it (see docs/coming-from-han.md)`,
      });
    } else out.issues.push({ field: key, message: `unknown key '${key}' is ignored; han.yml takes plugins and hooks` });
  }
  return out;
}

/** Parse a legacy `han-config.yml`: `<plugin>.<hook>: override`, flat. */
export function parseLegacyHanConfig(text: string): ParsedFile {
  const out: ParsedFile = { plugins: {}, switches: {}, issues: [] };
  const raw = parseYaml(text, out.issues);
  if (raw === undefined) return out;
  for (const [plugin, hooks] of Object.entries(raw)) {
    if (!isObject(hooks)) {
      out.issues.push({ field: plugin, message: 'expected a mapping of hook name → override; ignored' });
      continue;
    }
    out.plugins[plugin] = {};
    for (const [hook, o] of Object.entries(hooks))
      out.plugins[plugin][hook] = checkOverride(o, `${plugin}.${hook}`, out.issues);
  }
  return out;
}

function parseYaml(text: string, issues: ManifestIssue[]): Json | undefined {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    issues.push({
      field: '(root)',
      message: `not valid YAML (${(err as Error).message.split('\n')[0]}); the whole file is ignored`,
    });
    return undefined;
  }
  // An empty file is an empty configuration, as in Han.
  if (raw === null || raw === undefined) return undefined;
  if (!isObject(raw)) {
    issues.push({ field: '(root)', message: 'expected a mapping; the whole file is ignored' });
    return undefined;
  }
  return raw;
}

/**
 * Han's override files for one project. Files are read when needed and re-read when they change, so an edit to a
 * han.yml applies to the next run; each file's issues are collected once per version of the file.
 *
 * @example
 * const han = new HanSettings('/repo', process.env);
 * han.resolve('bun', 'test', '/repo/packages/browse-client').override // { enabled: false }
 */
export class HanSettings {
  private readonly cache = new Map<string, { mtimeMs: number; parsed: ParsedFile }>();
  private readonly reported: FileIssues[] = [];

  constructor(
    private readonly projectDir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** The project-wide han.yml files, lowest precedence first. */
  baseFiles(): string[] {
    const config = claudeConfigDir(this.env);
    return [
      ...(config ? [join(config, 'han.yml')] : []),
      join(this.projectDir, '.claude', 'han.yml'),
      join(this.projectDir, '.claude', 'han.local.yml'),
      join(this.projectDir, 'han.yml'),
    ];
  }

  private read(file: string, legacy = false): ParsedFile | undefined {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      return undefined;
    }
    const hit = this.cache.get(file);
    if (hit && hit.mtimeMs === mtimeMs) return hit.parsed;
    let parsed: ParsedFile;
    try {
      const text = readFileSync(file, 'utf8');
      parsed = legacy ? parseLegacyHanConfig(text) : parseHanYml(text);
    } catch (err) {
      parsed = {
        plugins: {},
        switches: {},
        issues: [{ field: '(root)', message: `cannot read: ${(err as Error).message}` }],
      };
    }
    this.cache.set(file, { mtimeMs, parsed });
    if (parsed.issues.length) this.reported.push({ file, issues: parsed.issues });
    return parsed;
  }

  /** Han's `hooks:` switches, merged over the project-wide files. */
  switches(): HanSwitches {
    const out: HanSwitches = {};
    for (const file of this.baseFiles()) Object.assign(out, this.read(file)?.switches);
    return out;
  }

  /**
   * The override of one hook in one directory. As in Han, each han.yml in the chain replaces the hook's whole
   * override (hooks merge per hook, not per field), and the chain's result is laid field by field over the
   * folder's legacy han-config.yml.
   */
  resolve(plugin: string, hook: string, dir: string): ResolvedOverride {
    const legacyFile = join(dir, 'han-config.yml');
    const dirFile = join(dir, 'han.yml');
    const files = [...this.baseFiles(), ...(dir !== this.projectDir ? [dirFile] : [])];
    let chain: { override: HookOverride; file: string } | undefined;
    for (const file of files) {
      const o = this.read(file)?.plugins[plugin]?.[hook];
      if (o) chain = { override: o, file };
    }
    const legacy = existsSync(dirFile) ? undefined : this.read(legacyFile, true)?.plugins[plugin]?.[hook];
    const override: HookOverride = { ...legacy, ...chain?.override };
    const from: ResolvedOverride['from'] = {};
    for (const key of Object.keys(override) as (keyof HookOverride)[])
      from[key] = chain && key in chain.override ? chain.file : legacyFile;
    return { override, from };
  }

  /** Issues found in the files read so far; each is handed out once. */
  takeIssues(): FileIssues[] {
    return this.reported.splice(0);
  }
}

/** One line per file: the file, each key at fault and what to do. */
export function fileIssueText(n: FileIssues): string {
  return `${n.file}: ${n.issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`;
}

/** Log files whose keys could not be used, one warning per file. */
export function logFileIssues(logger: Pick<Logger, 'warn'>, list: FileIssues[]): void {
  for (const n of list) logger.warn({ file: n.file, issues: n.issues }, fileIssueText(n));
}
