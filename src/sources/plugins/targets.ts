// Where a hook runs: every directory under the base that holds all `dirs_with` markers, skipping `.git`,
// `node_modules` and git-ignored paths, then filtered by `dir_test`. Also the guard that keeps `directory` inside.
import { type Dirent, realpathSync } from 'node:fs';
import { access, readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { argv } from '../../core/argv.ts';
import { isInside, shownPath } from '../../core/confine.ts';
import { SwitchboardError } from '../../core/errors.ts';
import { runProcess } from '../../core/process.ts';

/** Never descended into, ignored or not. */
const ALWAYS_SKIPPED = new Set(['.git', 'node_modules']);
/** A walk stops here: a monorepo is deep, an accidental walk of `/` must not take minutes. */
const MAX_DEPTH = 12;
const MAX_DIRS = 20_000;

/**
 * Resolve the `directory` input to a real path inside the project root. Symlinks are followed before the check,
 * so a link pointing outside is refused like `../..` is.
 *
 * @example
 * resolveInside('/repo', 'packages/a') // '/repo/packages/a'
 * resolveInside('/repo', '../etc')     // throws INVALID_INPUT
 */
export function resolveInside(root: string, directory: string | undefined): string {
  const realRoot = realpathSync(root);
  if (directory === undefined || directory === '' || directory === '.') return realRoot;
  const candidate = join(realRoot, directory);
  let real: string;
  try {
    real = realpathSync(candidate);
  } catch {
    throw new SwitchboardError(
      'INVALID_INPUT',
      `directory '${directory}' does not exist under the project root. Give a path relative to the project root, e.g. 'packages/core', or omit it to run everywhere.`,
      { directory },
    );
  }
  if (!isInside(realRoot, real)) {
    // As the caller wrote it; a link that leads out, with where it leads relative to the project.
    const via = isInside(realRoot, candidate) ? ` (it resolves to ${shownPath(realRoot, real)})` : '';
    throw new SwitchboardError(
      'INVALID_INPUT',
      `directory '${directory}'${via} is outside the project root; hooks only run inside the project. Give a path relative to the project root, e.g. 'packages/core', or omit it to run everywhere.`,
      { directory },
    );
  }
  return real;
}

/** A `.gitignore` and the directory its patterns are relative to. */
interface Rules {
  base: string;
  ig: Ignore;
}

async function rulesIn(dir: string): Promise<Rules | undefined> {
  try {
    return { base: dir, ig: ignore().add(await readFile(join(dir, '.gitignore'), 'utf8')) };
  } catch {
    return undefined;
  }
}

function ignoredBy(rules: Rules[], path: string): boolean {
  for (const r of rules) {
    const rel = relative(r.base, path);
    if (rel && !rel.startsWith('..') && r.ig.ignores(`${rel.split(sep).join('/')}/`)) return true;
  }
  return false;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** How `dirs_with` markers combine: every one present, or any one of them. */
export type MarkerMode = 'all' | 'any';

/** Whether a directory has its markers: names and globs (`*.csproj`) against its entries, paths by lookup. */
async function hasMarkers(
  dir: string,
  names: string[],
  markers: readonly string[],
  mode: MarkerMode,
): Promise<boolean> {
  const present = async (marker: string) =>
    marker.includes('/') ? exists(join(dir, marker)) : names.some((n) => picomatch.isMatch(n, marker, { dot: true }));
  if (mode === 'any') {
    for (const m of markers) if (await present(m)) return true;
    return false;
  }
  for (const m of markers) if (!(await present(m))) return false;
  return true;
}

/**
 * Directories under `base` (inclusive) holding the markers (all of them, or any one with mode `any`), in path
 * order. Without markers the answer is `[base]`. Git-ignore rules from `root` down to each directory apply.
 * Asynchronous, so a walk of a large monorepo never holds up other calls on the hub.
 */
export async function findMarkedDirs(
  root: string,
  base: string,
  markers: readonly string[],
  mode: MarkerMode = 'all',
): Promise<string[]> {
  if (markers.length === 0) return [base];
  // The .gitignore files between the root and the base apply to the walk too.
  const inherited: Rules[] = [];
  let at = root;
  for (const part of relative(root, base).split(sep).filter(Boolean)) {
    const r = await rulesIn(at);
    if (r) inherited.push(r);
    at = join(at, part);
  }
  const found: string[] = [];
  let visited = 0;
  const walk = async (dir: string, rules: Rules[], depth: number): Promise<void> => {
    if (++visited > MAX_DIRS) return;
    let entries: Dirent[];
    try {
      entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    } catch {
      return;
    }
    const own = entries.some((e) => e.name === '.gitignore') ? await rulesIn(dir) : undefined;
    const active = own ? [...rules, own] : rules;
    if (
      await hasMarkers(
        dir,
        entries.map((e) => e.name),
        markers,
        mode,
      )
    )
      found.push(dir);
    if (depth >= MAX_DEPTH) return;
    for (const e of entries) {
      if (!e.isDirectory() || ALWAYS_SKIPPED.has(e.name)) continue;
      const child = join(dir, e.name);
      if (ignoredBy(active, child)) continue;
      await walk(child, active, depth + 1);
    }
  };
  await walk(base, inherited, 0);
  return found;
}

/** Keep the directories where `dirTest` exits 0 (run in each, a few at a time, 10 s each at most). */
export async function filterByDirTest(
  dirs: string[],
  dirTest: string | undefined,
  opts: { signal: AbortSignal; env: Record<string, string> },
): Promise<string[]> {
  if (!dirTest) return dirs;
  const keep = await mapLimit(dirs, 4, async (dir) => {
    const r = await runProcess('sh', argv().flag('-c').operands(dirTest).build(), {
      signal: opts.signal,
      cwd: dir,
      env: opts.env,
      timeoutMs: 10_000,
      maxOutputBytes: 64 * 1024,
    });
    return r.exitCode === 0;
  });
  return dirs.filter((_, i) => keep[i]);
}

/** Map with at most `limit` promises in flight, results in input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
