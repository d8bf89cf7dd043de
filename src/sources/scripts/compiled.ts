// Compiled scripts: TS/JS modules loaded like handler modules (tsx, `import 'switchboard'` resolved to the
// running hub), whose default export is a generator function yielding steps; and mekara's Python modules
// (`execute(request)` generators), run by the Python runner (python.ts). Both are driven as a StepSource.
import { statSync } from 'node:fs';
import { SwitchboardError } from '../../core/errors.ts';
import { locateImportError, problemText } from '../../core/load-problems.ts';
import { importModule } from '../../core/module-loader.ts';
import { startPythonScript } from './python.ts';

/** What a compiled module exports: `export default function* (request) { ... }`. */
export type ScriptGenerator = (request: string) => Iterator<unknown, unknown, unknown>;

/**
 * A running compiled script as the executor drives it: a JS generator in this process, or a Python generator in
 * a child process. Asynchronous because the Python one answers over a pipe.
 */
export interface StepSource {
  /** Send the result of the last step (undefined first) and get the next yielded value; throws what the script raised. */
  next(value: unknown): Promise<IteratorResult<unknown, unknown>>;
  /** End the script early so its `finally` blocks run (and a Python child exits). Never throws. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Environment of a Python runner (PATH decides which `python3` runs). */
  env: NodeJS.ProcessEnv;
  /** Where a Python script's own code runs between steps (the project, as under mekara). */
  cwd: string;
}

const cache = new Map<string, { mtimeMs: number; fn: ScriptGenerator }>();

/**
 * Load a compiled script's generator function. Cached per file until the file changes. A module that does not
 * default-export a function fails with INVALID_INPUT naming the file and what it must export.
 *
 * @example
 * const make = await loadCompiled('/p/.switchboard/scripts/compiled/release.ts');
 * const gen = make('v1.2.0');
 */
export async function loadCompiled(file: string): Promise<ScriptGenerator> {
  const mtimeMs = statSync(file).mtimeMs;
  const hit = cache.get(file);
  if (hit && hit.mtimeMs === mtimeMs) return hit.fn;
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(file, { version: String(mtimeMs) });
  } catch (err) {
    const at = await locateImportError(file, err);
    throw new SwitchboardError(
      'INVALID_INPUT',
      `Compiled script ${file} failed to load: ${problemText({ file, ...at })}`,
      {
        file,
        ...(at.line === undefined ? {} : { line: at.line, column: at.column }),
        reason: at.message,
      },
    );
  }
  const fn = mod.default;
  if (typeof fn !== 'function')
    throw new SwitchboardError(
      'INVALID_INPUT',
      `Compiled script ${file} must export a generator function as its default export: export default function* (request) { yield auto('…'); }`,
    );
  cache.set(file, { mtimeMs, fn: fn as ScriptGenerator });
  return fn as ScriptGenerator;
}

/** Start a generator; a default export that is a plain function returning no iterator is the same error. */
export function startGenerator(
  file: string,
  fn: ScriptGenerator,
  request: string,
): Iterator<unknown, unknown, unknown> {
  const gen = fn(request);
  if (!gen || typeof (gen as Iterator<unknown>).next !== 'function')
    throw new SwitchboardError(
      'INVALID_INPUT',
      `Compiled script ${file} must export a generator function as its default export (function*), not a plain function.`,
    );
  return gen;
}

/** A JS generator as a StepSource. */
function jsSteps(gen: Iterator<unknown, unknown, unknown>): StepSource {
  return {
    next: async (value) => gen.next(value),
    close: async () => {
      try {
        gen.return?.(undefined);
      } catch {
        // A script whose cleanup throws has already failed.
      }
    },
  };
}

/**
 * Start a compiled script with its request: a `.py` file runs in the Python runner, anything else is a module.
 * Throws INVALID_INPUT naming the file when it cannot be loaded (or Python is missing).
 */
export async function openCompiled(file: string, request: string, opts: OpenOptions): Promise<StepSource> {
  if (file.endsWith('.py')) return startPythonScript(file, request, opts.env, opts.cwd);
  return jsSteps(startGenerator(file, await loadCompiled(file), request));
}
