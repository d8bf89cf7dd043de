// Loads user handler modules (`*.ts`, `*.js`, `*.mjs`) from folders and registers what they export:
// capabilities, resources, resource templates and prompts. A bad module is reported, never fatal.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import { type Capability, isCapability } from '../../core/capability.ts';
import type { Registry } from '../../core/registry.ts';
import type { PromptDef, ResourceDef, ResourceTemplateDef } from '../../core/resource.ts';

export interface ModuleReport {
  file: string;
  ok: boolean;
  /** Capability names registered from this module. */
  capabilities: string[];
  error?: string;
}

const EXTENSIONS = ['.ts', '.mts', '.js', '.mjs'];

function isResource(v: unknown): v is ResourceDef {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as ResourceDef).uri === 'string' &&
    typeof (v as ResourceDef).read === 'function'
  );
}
function isTemplate(v: unknown): v is ResourceTemplateDef {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as ResourceTemplateDef).uriTemplate === 'string' &&
    typeof (v as ResourceTemplateDef).read === 'function'
  );
}
function isPrompt(v: unknown): v is PromptDef {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as PromptDef).name === 'string' &&
    typeof (v as PromptDef).get === 'function'
  );
}

/** The built entry of the running Switchboard (`dist/index.js`), found from this file's location. */
let ownEntryCache: string | undefined | null = null;

function ownEntry(): string | undefined {
  if (ownEntryCache === null) ownEntryCache = findOwnEntry();
  return ownEntryCache;
}

function findOwnEntry(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if (JSON.parse(readFileSync(pkg, 'utf8')).name === 'switchboard') {
          const entry = join(dir, 'dist', 'index.js');
          return existsSync(entry) ? pathToFileURL(entry).href : undefined;
        }
      } catch {
        // Not our package.json; keep walking up.
      }
    }
    dir = dirname(dir);
  }
  return undefined;
}

let hookInstalled = false;

/**
 * Make `import ... from 'switchboard'` in handler modules resolve to the running Switchboard, wherever the
 * module lives: a project needs no local install, and modules share the hub's Zod and error classes.
 * TypeScript files outside node_modules load as ES modules even in a project without `"type": "module"`
 * (tsx would otherwise compile them to CommonJS, whose `require` no ESM hook can redirect on Node 20).
 */
function installSelfResolve(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  const entry = ownEntry();
  if (!entry) return;
  const hook = `export async function resolve(specifier, context, next) {
    if (specifier === 'switchboard') return { url: ${JSON.stringify(entry)}, shortCircuit: true };
    const r = await next(specifier, context);
    if (/\\.m?ts(\\?|$)/.test(r.url) && r.url.startsWith('file:') && !r.url.includes('/node_modules/')) return { ...r, format: 'module' };
    return r;
  }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
}

/**
 * Whether a module needs the resolve hook: TypeScript always does (format), JavaScript only when
 * `switchboard` would not resolve to the running copy from where the file lives. Skipping it saves starting
 * the loader-hook thread, a noticeable share of a cold start.
 */
function needsHook(file: string): boolean {
  if (file.endsWith('.ts') || file.endsWith('.mts')) return true;
  const entry = ownEntry();
  if (!entry) return false;
  try {
    return pathToFileURL(createRequire(file).resolve('switchboard')).href !== entry;
  } catch {
    return true;
  }
}

/** Import one module; TypeScript goes through tsx's loader (loaded only when a .ts file is present). */
async function importModule(file: string): Promise<Record<string, unknown>> {
  if (needsHook(file)) installSelfResolve();
  if (file.endsWith('.ts') || file.endsWith('.mts')) {
    const { tsImport } = await import('tsx/esm/api');
    return (await tsImport(pathToFileURL(file).href, import.meta.url)) as Record<string, unknown>;
  }
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

/** Flatten a module's exports into the things it declares. Arrays are allowed (`export default [a, b]`). */
function collect(mod: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  const seen = new Set<unknown>();
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object' && !seen.has(v)) {
      seen.add(v);
      out.push(v);
    }
  };
  for (const v of Object.values(mod)) visit(v);
  return out;
}

export async function loadModule(file: string, registry: Registry): Promise<ModuleReport> {
  const source = `handlers:${file}`;
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(file);
  } catch (err) {
    return { file, ok: false, capabilities: [], error: (err as Error).message ?? String(err) };
  }
  const things = collect(mod);
  const caps = things.filter(isCapability) as Capability[];
  const errors: string[] = [];
  const names: string[] = [];
  registry.batch(() => {
    for (const cap of caps) {
      const result = registry.add({ ...cap, source });
      if (result.ok) names.push(cap.name);
      else errors.push(result.message);
    }
    for (const t of things) {
      if (isCapability(t)) continue;
      if (isTemplate(t)) registry.addResourceTemplate(t);
      else if (isResource(t)) registry.addResource(t);
      else if (isPrompt(t)) registry.addPrompt(t);
    }
  });
  if (things.length === 0)
    errors.push(
      'exports nothing Switchboard can use: export capabilities made with defineCapability (default or named exports).',
    );
  return errors.length
    ? { file, ok: false, capabilities: names, error: errors.join(' ') }
    : { file, ok: true, capabilities: names };
}

/** Load every module in the given folders, in name order. Missing folders are skipped silently. */
export async function loadHandlerModules(dirs: string[], registry: Registry, logger: Logger): Promise<ModuleReport[]> {
  const reports: ModuleReport[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    const files = readdirSync(dir)
      .filter(
        (f) =>
          EXTENSIONS.some((e) => f.endsWith(e)) && !f.endsWith('.d.ts') && !f.startsWith('_') && !f.startsWith('.'),
      )
      .sort();
    for (const f of files) {
      const report = await loadModule(join(dir, f), registry);
      if (report.ok) logger.debug({ file: report.file, capabilities: report.capabilities }, 'handler module loaded');
      else
        logger.error(
          { file: report.file, error: report.error },
          `handler module ${report.file} failed to load: ${report.error}`,
        );
      reports.push(report);
    }
  }
  return reports;
}
