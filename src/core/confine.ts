// Where agent sessions and scripts may work: the project directory and the operator's `[workspace] extra_dirs`,
// compared after symlinks are resolved, so a link inside the project that points elsewhere counts as elsewhere.
// A refusal speaks the caller's terms: the path as they wrote it, the operator's directories as configured, and
// what the hub resolved relative to the project — never the absolute folder the project lives in.
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { SwitchboardError } from './errors.ts';

/** Whether `path` is `root` or below it (both already absolute and real). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * A path the hub resolved, as a message shows it: relative to the project (`.` for the project itself, `../shared`
 * beside it), so a caller never learns where the project lives.
 */
export function shownPath(projectRoot: string, path: string): string {
  return relative(projectRoot, path) || '.';
}

/** The real path of a directory, or undefined when there is none (missing, or not a directory). */
export function realDir(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    return statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The real directory `requested` names (absolute, or relative to `base`: the project unless given), when it lies
 * inside the project or one of `extraDirs` (relative to the project, or absolute); INVALID_INPUT naming `field`,
 * the path as written and the allowed directories otherwise. Extra directories that do not exist allow nothing.
 *
 * @example
 * confineDir('/repo', ['/srv/data'], 'packages/web', 'project_dir') // '/repo/packages/web'
 * confineDir('/repo', [], '/etc', 'project_dir')                    // throws INVALID_INPUT
 * confineDir('/repo', [], '..', 'working_dir')                      // throws "working_dir: '..' is outside …"
 */
export function confineDir(
  projectRoot: string,
  extraDirs: readonly string[],
  requested: string,
  field: string,
  base?: string,
): string {
  const root = realDir(projectRoot) ?? resolve(projectRoot);
  const asked = resolve(base ?? root, requested);
  const real = realDir(asked);
  if (!real) throw new SwitchboardError('INVALID_INPUT', `${field}: '${requested}' is not a directory.`);
  const extra = extraDirs.flatMap((d) => {
    const dir = realDir(resolve(root, d));
    return dir ? [{ dir, shown: d }] : [];
  });
  if (isInside(root, real) || extra.some(({ dir }) => isInside(dir, real))) return real;
  // A link inside the project that leads out: say where, relative to the project.
  const via = real === asked ? '' : ` (it resolves to ${shownPath(root, real)})`;
  const others = extra.length ? ` and ${extra.map(({ shown }) => shown).join(', ')}` : '';
  throw new SwitchboardError(
    'INVALID_INPUT',
    `${field}: '${requested}'${via} is outside the directories sessions and scripts may work in: the project (.)${others}. Give a directory inside them, or add it to [workspace] extra_dirs in the configuration.`,
  );
}
