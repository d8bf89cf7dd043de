// Finds scripts on disk: project `.switchboard/scripts`, the project's mekara folder `.mekara/scripts`, user
// `~/.switchboard/scripts`, the user's mekara folder `~/.mekara/scripts`, then the bundled ones; first match wins. Resolution always uses the project
// directory, never a script's `working_dir`.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { SwitchboardError } from '../../core/errors.ts';
import { MODULE_EXTENSIONS, packageRoot } from '../../core/module-loader.ts';
import { compareNames } from '../../core/names.ts';

export type ScriptLevel = 'project' | 'mekara' | 'user' | 'user-mekara' | 'bundled';
/**
 * Precedence, first wins: the project before the user (as in mekara: local `.mekara` before `~/.mekara`), and at
 * each of the two, Switchboard's own folder before the mekara one beside it.
 */
export const LEVELS: readonly ScriptLevel[] = ['project', 'mekara', 'user', 'user-mekara', 'bundled'];

/** Where each level's `scripts/` folder is. */
export interface ScriptRoots {
  project: string;
  /** mekara's project folder (`.mekara/scripts`): its NL scripts and compiled Python scripts run unchanged. */
  mekara: string;
  user: string;
  /** The user's mekara folder (`~/.mekara/scripts`, where `mekara install` puts its scripts). */
  'user-mekara': string;
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
 * HOME from the hub's environment, so tests and sandboxes get their own; the user's mekara folder is in HOME
 * (mekara has no variable for it).
 */
export function scriptRoots(projectDir: string, env: NodeJS.ProcessEnv = process.env): ScriptRoots {
  const home = env.HOME ?? homedir();
  const userHome = env.SWITCHBOARD_HOME ?? join(home, '.switchboard');
  return {
    project: join(projectDir, '.switchboard', 'scripts'),
    mekara: join(projectDir, '.mekara', 'scripts'),
    user: join(userHome, 'scripts'),
    'user-mekara': join(home, '.mekara', 'scripts'),
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

/** Whether a file exists: `existsSync`, or a lookup in folders listed once (listScripts resolves many names). */
type Exists = (file: string) => boolean;

function compiledIn(root: string, path: string, exists: Exists): string | undefined {
  const base = join(root, 'compiled', path);
  return COMPILED_EXTENSIONS.map((ext) => base + ext).find(exists);
}

/**
 * Resolve a name. In each level (LEVELS, in order) the exact file name is tried first, then with `-` as
 * `_`; the NL file decides the level. A compiled module counts only at the NL file's level or a higher one
 * (a project may compile a bundled script; a bundled compiled module never overrides a project's own NL script).
 * Undefined when no level has the NL file.
 *
 * @example
 * resolveScript(roots, 'test:random') // { name: 'test:random', level: 'bundled', compiledFile: '…/random.mjs', … }
 */
export function resolveScript(
  roots: ScriptRoots,
  rawName: string,
  exists: Exists = existsSync,
): ResolvedScript | undefined {
  const { path } = normaliseName(rawName);
  const candidates = [...new Set([path, path.replaceAll('-', '_')])];
  for (const [i, level] of LEVELS.entries()) {
    for (const candidate of candidates) {
      const nlFile = join(roots[level], 'nl', `${candidate}.md`);
      if (!exists(nlFile)) continue;
      for (const upper of LEVELS.slice(0, i + 1)) {
        for (const c of candidates) {
          const compiledFile = compiledIn(roots[upper], c, exists);
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

/** Every file under a folder (not hidden ones, at most 8 folders deep), sorted, as full paths. */
function filesUnder(base: string): string[] {
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
      else out.push(full);
    }
  };
  walk(base, 0);
  return out;
}

/** Script paths (`a/b`) of the files listed under `base` (filesUnder) with one extension, sorted. */
function namesIn(base: string, ext: string, files: readonly string[]): string[] {
  return files
    .filter((full) => full.endsWith(ext))
    .map((full) => relative(base, full).slice(0, -ext.length).split(sep).join('/'));
}

/** Every script reachable from this project, one per name (the level that wins), sorted by name. */
export function listScripts(roots: ScriptRoots): ResolvedScript[] {
  // Each script folder is read once; resolving a name then asks this list, not the disk, for each candidate file.
  const nl = new Map(LEVELS.map((level) => [level, filesUnder(join(roots[level], 'nl'))]));
  const present = new Set(
    [...nl.values(), ...LEVELS.map((level) => filesUnder(join(roots[level], 'compiled')))].flat(),
  );
  const exists = (file: string) => present.has(file);
  const seen = new Map<string, ResolvedScript>();
  for (const level of LEVELS) {
    const base = join(roots[level], 'nl');
    for (const path of namesIn(base, '.md', nl.get(level) ?? [])) {
      const display = path.split('/').join(':');
      if (seen.has(display)) continue;
      try {
        const resolved = resolveScript(roots, path, exists);
        if (resolved) seen.set(resolved.name, resolved);
      } catch {
        // A file whose name is not a valid script name is not a script.
      }
    }
  }
  return [...seen.values()].sort((a, b) => compareNames(a.name, b.name));
}

/** Each mekara folder and the Switchboard folders above it, whose same-named scripts hide its own. */
const HIDDEN_BY = [
  ['mekara', ['project']],
  ['user-mekara', ['project', 'user']],
] as const;

/**
 * Scripts of a mekara folder (the project's or the user's) that a Switchboard folder hides (same name, NL or
 * compiled): the Switchboard one runs, and each message names both files. `-` and `_` count as the same, as in
 * resolution. The project's `.mekara` hiding `~/.mekara` is mekara's own rule, so it is not reported.
 *
 * @example
 * scriptClashes(roots, '/repo') // ['.mekara/scripts/nl/finish.md is not used: .switchboard/scripts/nl/finish.md …']
 */
export function scriptClashes(roots: ScriptRoots, projectDir: string): string[] {
  const warnings: string[] = [];
  const home = dirname(dirname(roots['user-mekara']));
  const shown = (file: string) => {
    const inProject = relative(projectDir, file);
    if (inProject && !inProject.startsWith('..') && !isAbsolute(inProject)) return inProject;
    const inHome = relative(home, file);
    return inHome && !inHome.startsWith('..') && !isAbsolute(inHome) ? `~/${inHome}` : file;
  };
  const key = (path: string) => path.replaceAll('-', '_');
  for (const [folder, exts] of [
    ['nl', ['.md']],
    ['compiled', COMPILED_EXTENSIONS],
  ] as const) {
    // The first Switchboard file of each name, by level.
    const own = new Map<ScriptLevel, Map<string, string>>();
    for (const level of ['project', 'user'] as const) {
      const files = new Map<string, string>();
      const base = join(roots[level], folder);
      const listed = filesUnder(base);
      for (const ext of exts)
        for (const path of namesIn(base, ext, listed))
          if (!files.has(key(path))) files.set(key(path), join(base, `${path}${ext}`));
      own.set(level, files);
    }
    for (const [mekara, above] of HIDDEN_BY) {
      const base = join(roots[mekara], folder);
      const listed = filesUnder(base);
      for (const ext of exts)
        for (const path of namesIn(base, ext, listed)) {
          if (path.endsWith('__init__')) continue;
          const winner = above.map((level) => own.get(level)?.get(key(path))).find(Boolean);
          if (!winner) continue;
          warnings.push(
            `${shown(join(base, `${path}${ext}`))} is not used: ${shown(winner)} has the same script name and Switchboard's own folder wins. Rename or delete one of them.`,
          );
        }
    }
  }
  return warnings;
}
