// Loads user handler modules (`*.ts`, `*.js`, `*.mjs`) from folders and registers what they export:
// capabilities, resources, resource templates and prompts. A bad module is reported, never fatal.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import type { Logger } from 'pino';
import { type Capability, isCapability } from '../../core/capability.ts';
import { type LoadProblem, locateImportError, problemText } from '../../core/load-problems.ts';
import { importModule, MODULE_EXTENSIONS } from '../../core/module-loader.ts';
import type { Registry } from '../../core/registry.ts';
import type { PromptDef, ResourceDef, ResourceTemplateDef } from '../../core/resource.ts';
import type { DocumentStore } from '../../store/contract.ts';

export interface ModuleReport {
  file: string;
  ok: boolean;
  /** Capability names registered from this module. */
  capabilities: string[];
  error?: string;
  /** Where in the file the error is, when it says (a syntax error, a throw at the top level). */
  line?: number;
  column?: number;
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

/**
 * Load one module and register what it exports. `reload`: a mark new to this process, to read the module (and the
 * project files it imports) again; what it registered before is replaced in the same registry change. A module that
 * fails to load again keeps what it registered last.
 */
export async function loadModule(file: string, registry: Registry, reload?: string): Promise<ModuleReport> {
  const source = `handlers:${file}`;
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(file, reload === undefined ? {} : { reload });
  } catch (err) {
    const { message, line, column } = await locateImportError(file, err);
    return { file, ok: false, capabilities: [], error: message, line, column };
  }
  const things = collect(mod);
  const caps = things.filter(isCapability) as Capability[];
  const errors: string[] = [];
  const names: string[] = [];
  registry.batch(() => {
    registry.removeSource(source);
    for (const cap of caps) {
      const result = registry.add({ ...cap, source });
      if (result.ok) names.push(cap.name);
      else errors.push(result.message);
    }
    for (const t of things) {
      if (isCapability(t)) continue;
      if (isTemplate(t)) registry.addResourceTemplate({ ...t, source });
      else if (isResource(t)) registry.addResource({ ...t, source });
      else if (isPrompt(t)) registry.addPrompt({ ...t, source });
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

/**
 * Load every module in the given folders, in name order. Missing folders are skipped silently. `reload`: load them
 * again (`loadModule`).
 */
export async function loadHandlerModules(
  dirs: string[],
  registry: Registry,
  logger: Logger,
  reload?: string,
): Promise<ModuleReport[]> {
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
      const report = await loadModule(join(dir, f), registry, reload);
      if (report.ok) logger.debug({ file: report.file, capabilities: report.capabilities }, 'handler module loaded');
      else
        logger.error(
          { file: report.file, line: report.line, error: report.error },
          `handler module failed to load: ${problemText(moduleProblem(report))}`,
        );
      reports.push(report);
    }
  }
  return reports;
}

/** A module that failed to load, as a problem (`names`: what it would define, `moduleNames`). */
export function moduleProblem(report: ModuleReport, names?: string[]): LoadProblem {
  return {
    source: 'handlers',
    file: report.file,
    ...(report.line === undefined ? {} : { line: report.line }),
    ...(report.column === undefined ? {} : { column: report.column }),
    message: report.error ?? 'failed to load',
    ...(names ? { names } : {}),
  };
}

const NAMES_NAMESPACE = 'handler-modules';
const namesKey = (file: string) => createHash('sha256').update(file).digest('hex');

/**
 * The problems of the modules that failed to load, each with the capability names it would define: those it
 * registered when it last loaded (kept in the store, so they survive the restart that found it broken), else its
 * file's base name as a domain (`text.ts` → `text.*`, the usual layout). Modules that loaded record their names.
 */
export async function moduleProblems(reports: ModuleReport[], documents: DocumentStore): Promise<LoadProblem[]> {
  const problems: LoadProblem[] = [];
  for (const report of reports) {
    const key = namesKey(report.file);
    if (report.ok) {
      const kept = await documents.get<string[]>(NAMES_NAMESPACE, key);
      if (kept?.value.join('\n') !== report.capabilities.join('\n'))
        await documents.put(NAMES_NAMESPACE, key, report.capabilities);
      continue;
    }
    const kept = (await documents.get<string[]>(NAMES_NAMESPACE, key))?.value;
    const names = kept?.length
      ? kept
      : report.capabilities.length
        ? report.capabilities
        : [`${domainOf(report.file)}.*`];
    problems.push(moduleProblem(report, names));
  }
  return problems;
}

/** `.switchboard/handlers/text.ts` → `text`. */
function domainOf(file: string): string {
  const base = basename(file);
  return base.slice(0, base.length - extname(base).length);
}
