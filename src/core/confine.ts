// Where agent sessions and scripts may work: the project directory and the operator's `[workspace] extra_dirs`,
// compared after symlinks are resolved, so a link inside the project that points elsewhere counts as elsewhere.
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { SwitchboardError } from './errors.ts';

/** Whether `path` is `root` or below it (both already absolute and real). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** A path as a message shows it: relative to the project when inside it (`.` for the project itself). */
export function shownPath(projectRoot: string, path: string): string {
  return isInside(projectRoot, path) ? relative(projectRoot, path) || '.' : path;
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
 * The real directory `requested` names (absolute, or relative to the project), when it lies inside the project or
 * one of `extraDirs` (relative to the project, or absolute); INVALID_INPUT naming `field` and the allowed
 * directories otherwise. Extra directories that do not exist allow nothing.
 *
 * @example
 * confineDir('/repo', ['/srv/data'], 'packages/web', 'project_dir') // '/repo/packages/web'
 * confineDir('/repo', [], '/etc', 'project_dir')                    // throws INVALID_INPUT
 */
export function confineDir(
  projectRoot: string,
  extraDirs: readonly string[],
  requested: string,
  field: string,
): string {
  const root = realDir(projectRoot) ?? resolve(projectRoot);
  const asked = resolve(root, requested);
  const real = realDir(asked);
  if (!real) throw new SwitchboardError('INVALID_INPUT', `${field}: '${shownPath(root, asked)}' is not a directory.`);
  const allowed = [root, ...extraDirs.flatMap((d) => realDir(resolve(root, d)) ?? [])];
  if (allowed.some((dir) => isInside(dir, real))) return real;
  const via = real === asked ? '' : ` (it resolves to ${shownPath(root, real)})`;
  throw new SwitchboardError(
    'INVALID_INPUT',
    `${field}: '${shownPath(root, asked)}'${via} is outside the directories sessions and scripts may work in: the project (.)${allowed.length > 1 ? ` and ${allowed.slice(1).join(', ')}` : ''}. Give a directory inside them, or add it to [workspace] extra_dirs in the configuration.`,
  );
}
