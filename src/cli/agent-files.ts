// Reading and writing an agent's own config files for install/uninstall: an install creates what is missing, and
// an uninstall that leaves a file with nothing in it deletes it, and then the folders it leaves empty.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, relative, sep } from 'node:path';

export const readText = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '');

/** Write only when the text changed (an idempotent install touches nothing); folders are created. */
export function writeText(file: string, before: string, after: string): boolean {
  if (after === before && existsSync(file)) return false;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, after);
  return true;
}

/**
 * Remove `dir` and its parents while they are empty, never `stopAt` or anything outside it: the folders an install
 * created (`.gemini/`, `.codex/`, `.claude/`) go with the last file in them.
 */
export function removeEmptyDirs(dir: string, stopAt: string): void {
  for (let d = dir; ; d = dirname(d)) {
    const rel = relative(stopAt, d);
    if (!rel || rel.startsWith('..') || rel.split(sep)[0] === '..') return;
    try {
      if (readdirSync(d).length > 0) return;
      rmdirSync(d);
    } catch {
      return;
    }
  }
}

/**
 * Save an uninstall's result: when it removed something and nothing is left (`isEmpty`), the file is deleted with
 * the folders this empties up to `stopAt`; otherwise it is written if it changed. Returns what happened.
 */
export function saveOrDelete(
  file: string,
  before: string,
  after: string,
  isEmpty: (text: string) => boolean,
  stopAt: string,
): 'deleted' | 'written' | 'unchanged' {
  if (!existsSync(file)) return 'unchanged';
  if (after !== before && isEmpty(after)) {
    unlinkSync(file);
    removeEmptyDirs(dirname(file), stopAt);
    return 'deleted';
  }
  return writeText(file, before, after) ? 'written' : 'unchanged';
}
