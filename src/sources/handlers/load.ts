// Loads user handler modules (`*.ts`, `*.js`, `*.mjs`) from folders and registers what they export:
// capabilities, resources, resource templates and prompts. A bad module is reported, never fatal.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { type Capability, isCapability } from '../../core/capability.ts';
import { importModule, MODULE_EXTENSIONS } from '../../core/module-loader.ts';
import type { Registry } from '../../core/registry.ts';
import type { PromptDef, ResourceDef, ResourceTemplateDef } from '../../core/resource.ts';

export interface ModuleReport {
  file: string;
  ok: boolean;
  /** Capability names registered from this module. */
  capabilities: string[];
  error?: string;
}

const EXTENSIONS = MODULE_EXTENSIONS;

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
