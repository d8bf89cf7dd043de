// Where better-sqlite3's compiled addon is. Passing it as `nativeBinding` skips the `bindings` package, which finds
// the addon by trying several build folders (a failed require each) after reading a stack trace for its own path:
// ~1.5–2 ms of every start, measured.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let found: string | null | undefined;

/** The addon's path, or undefined when it is not where better-sqlite3 builds it (then `bindings` searches). */
export function sqliteAddon(): string | undefined {
  if (found === undefined) {
    found = null;
    try {
      const dir = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json'));
      for (const build of ['Release', 'Debug']) {
        const file = join(dir, 'build', build, 'better_sqlite3.node');
        if (existsSync(file)) {
          found = file;
          break;
        }
      }
    } catch {
      // Not resolvable from here: better-sqlite3 finds its addon itself.
    }
  }
  return found ?? undefined;
}
