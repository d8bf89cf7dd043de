// Compiled scripts: TS/JS modules loaded like handler modules (tsx, `import 'switchboard'` resolved to the
// running hub), whose default export is a generator function yielding steps.
import { statSync } from 'node:fs';
import { SwitchboardError } from '../../core/errors.ts';
import { importModule } from '../../core/module-loader.ts';

/** What a compiled module exports: `export default function* (request) { ... }`. */
export type ScriptGenerator = (request: string) => Iterator<unknown, unknown, unknown>;

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
    throw new SwitchboardError('INVALID_INPUT', `Compiled script ${file} failed to load: ${(err as Error).message}`);
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
