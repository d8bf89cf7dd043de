// The `if_changed` cache key: a hash of the hook's command and of every file its globs match in one directory,
// so a directory whose matched files are byte-for-byte what they were at its last success can be skipped.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { glob } from 'tinyglobby';

/** The files `patterns` match under `dir` (relative, sorted), never inside node_modules or .git. */
export async function matchedFiles(dir: string, patterns: readonly string[]): Promise<string[]> {
  if (patterns.length === 0) return [];
  const files = await glob([...patterns], {
    cwd: dir,
    dot: true,
    onlyFiles: true,
    ignore: ['**/node_modules/**', '**/.git/**'],
  });
  return files.sort();
}

/**
 * Hash of `command` and the path and content of each file. Content, not mtime: a checkout that touches files
 * without changing them keeps the cache; an edit that keeps the size and time does not.
 *
 * @example
 * await fingerprint('/repo/pkg', ['src/a.ts'], 'npm run lint') // 'sha256:…'
 */
export function fingerprint(dir: string, files: readonly string[], command: string): string {
  const h = createHash('sha256').update(command).update('\0');
  for (const f of files) {
    h.update(f).update('\0');
    try {
      h.update(
        createHash('sha256')
          .update(readFileSync(join(dir, f)))
          .digest(),
      );
    } catch {
      h.update('missing');
    }
    h.update('\0');
  }
  return `sha256:${h.digest('hex')}`;
}
