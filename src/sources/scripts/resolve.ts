// Finds scripts on disk: project `.switchboard/scripts`, the project's mekara folder `.mekara/scripts`, user
// `~/.switchboard/scripts`, then the bundled ones; first match wins. Resolution always uses the project
// directory, never a script's `working_dir`.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { SwitchboardError } from '../../core/errors.ts';
import { MODULE_EXTENSIONS, packageRoot } from '../../core/module-loader.ts';
import { compareNames } from '../../core/names.ts';

export type ScriptLevel = 'project' | 'mekara' | 'user' | 'bundled';
/** Precedence, first wins: Switchboard's own project folder beats the mekara one it shares a project with. */
export const LEVELS: readonly ScriptLevel[] = ['project', 'mekara', 'user', 'bundled'];

/** Where each level's `scripts/` folder is. */
export interface ScriptRoots {
  project: string;
  /** mekara's project folder (`.mekara/scripts`): its NL scripts and compiled Python scripts run unchanged. */
  mekara: string;
  user: string;
  bundled: string;
}

/** Compiled script files: JS/TS modules (tried first), then mekara's Python modules. */
export const COMPILED_EXTENSIONS: readonly string[] = [...MODULE_EXTENSIONS, '.py'];

export interface ResolvedScript {
  /** Display name with `:` between segments (`test:random`). */
  name: string;
  /** Path form of the name as found on disk (`test/random`). */
  path: string;
  level: ScriptLevel;
  nlFile: string;
  /** The compiled module, when one counts (same or higher level than the NL file). */
  compiledFile?: string;
  compiledLevel?: ScriptLevel;
}

/**
 * The script folders for a project. The user level follows SWITCHBOARD_HOME (as the user config does), else
 * HOME from the hub's environment, so tests and sandboxes get their own.
 */
export function scriptRoots(projectDir: string, env: NodeJS.ProcessEnv = process.env): ScriptRoots {
  const userHome = env.SWITCHBOARD_HOME ?? join(env.HOME ?? homedir(), '.switchboard');
  return {
    project: join(projectDir, '.switchboard', 'scripts'),
    mekara: join(projectDir, '.mekara', 'scripts'),
    user: join(userHome, 'scripts'),
    bundled: bundledScriptsDir(),
  };
}

/** The scripts shipped with Switchboard (`bundled/scripts` in the package). */
export function bundledScriptsDir(): string {
  return join(packageRoot() ?? process.cwd(), 'bundled', 'scripts');
}

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/**
 * Normalise a script name: leading slashes dropped, `:` and `/` are the same separator. Segments are letters,
 * digits, `_`, `.`, `-` (no `..`, nothing absolute) so a name can never point outside a scripts folder.
 */
export function normaliseName(raw: string): { display: string; path: string } {
  const trimmed = raw.trim().replace(/^\/+/, '');
  const segments = trimmed.split(/[:/]/);
  if (!trimmed || segments.some((s) => !SEGMENT.test(s) || s.includes('..')))
    throw new SwitchboardError(
      'INVALID_INPUT',
      `Invalid script name '${raw}': expected segments of letters, digits, '_', '.', '-' joined by ':' or '/' (e.g. 'test:random').`,
    );
  return { display: segments.join(':'), path: segments.join('/') };
}

function compiledIn(root: string, path: string): string | undefined {
  for (const ext of COMPILED_EXTENSIONS) {
    const file = join(root, 'compiled', `${path}${ext}`);
    if (existsSync(file)) return file;
  }
  return undefined;
}

/**
 * Resolve a name. In each level (project, user, bundled) the exact file name is tried first, then with `-` as
 * `_`; the NL file decides the level. A compiled module counts only at the NL file's level or a higher one
 * (a project may compile a bundled script; a bundled compiled module never overrides a project's own NL script).
 * Undefined when no level has the NL file.
 *
 * @example
 * resolveScript(roots, 'test:random') // { name: 'test:random', level: 'bundled', compiledFile: '…/random.mjs', … }
 */
export function resolveScript(roots: ScriptRoots, rawName: string): ResolvedScript | undefined {
  const { path } = normaliseName(rawName);
  const candidates = [...new Set([path, path.replaceAll('-', '_')])];
  for (const [i, level] of LEVELS.entries()) {
    for (const candidate of candidates) {
      const nlFile = join(roots[level], 'nl', `${candidate}.md`);
      if (!existsSync(nlFile)) continue;
      for (const upper of LEVELS.slice(0, i + 1)) {
        for (const c of candidates) {
          const compiledFile = compiledIn(roots[upper], c);
          if (compiledFile)
            return {
              name: candidate.split('/').join(':'),
              path: candidate,
              level,
              nlFile,
              compiledFile,
              compiledLevel: upper,
            };
        }
      }
      return { name: candidate.split('/').join(':'), path: candidate, level, nlFile };
    }
  }
  return undefined;
}

/** Script paths (`a/b`) under a folder with one extension, sorted. */
function namesIn(base: string, ext: string): string[] {
  if (!existsSync(base)) return [];
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 8) return;
    for (const entry of readdirSync(dir).sort()) {
      if (entry.startsWith('.')) continue;
      const full = join(dir, entry);
      let isDir = false;
      try {
        isDir = statSync(full).isDirectory();
      } catch {
        continue;
      }
      if (isDir) walk(full, depth + 1);
      else if (entry.endsWith(ext)) out.push(relative(base, full).slice(0, -ext.length).split(sep).join('/'));
    }
  };
  walk(base, 0);
  return out;
}

/** Every script reachable from this project, one per name (the level that wins), sorted by name. */
export function listScripts(roots: ScriptRoots): ResolvedScript[] {
  const seen = new Map<string, ResolvedScript>();
  for (const level of LEVELS) {
    for (const path of namesIn(join(roots[level], 'nl'), '.md')) {
      const display = path.split('/').join(':');
      if (seen.has(display)) continue;
      try {
        const resolved = resolveScript(roots, path);
        if (resolved) seen.set(resolved.name, resolved);
      } catch {
        // A file whose name is not a valid script name is not a script.
      }
    }
  }
  return [...seen.values()].sort((a, b) => compareNames(a.name, b.name));
}

/**
 * Scripts of the mekara folder that Switchboard's own project folder hides (same name, NL or compiled): the
 * Switchboard one runs, and each message names both files. `-` and `_` count as the same, as in resolution.
 *
 * @example
 * scriptClashes(roots) // ['.mekara/scripts/nl/finish.md is not used: .switchboard/scripts/nl/finish.md …']
 */
export function scriptClashes(roots: ScriptRoots, projectDir: string): string[] {
  const warnings: string[] = [];
  const shown = (file: string) => relative(projectDir, file) || file;
  const key = (path: string) => path.replaceAll('-', '_');
  for (const [folder, exts] of [
    ['nl', ['.md']],
    ['compiled', COMPILED_EXTENSIONS],
  ] as const) {
    const own = new Map<string, string>();
    for (const ext of exts)
      for (const path of namesIn(join(roots.project, folder), ext))
        if (!own.has(key(path))) own.set(key(path), join(roots.project, folder, `${path}${ext}`));
    for (const ext of exts)
      for (const path of namesIn(join(roots.mekara, folder), ext)) {
        const winner = own.get(key(path));
        if (!winner || path.endsWith('__init__')) continue;
        warnings.push(
          `${shown(join(roots.mekara, folder, `${path}${ext}`))} is not used: ${shown(winner)} has the same script name and Switchboard's own folder wins. Rename or delete one of them.`,
        );
      }
  }
  return warnings;
}
