// What a caller may learn of the server's file system: error messages name project files relative to the project
// (`.switchboard/agents`, not `/home/ann/work/app/.switchboard/agents`) and the user's home as `~`. Logs keep the
// absolute paths; only answers to callers are rewritten, for every transport, where the pipeline hands them back.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { parse } from 'node:path';
import type { ErrorInfo } from './errors.ts';

/** A function that rewrites the absolute paths of one project in text shown to callers. */
export type PathRewriter = (text: string) => string;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// The parts of a directory's pattern. It starts a path (`/opt/srv/app` is not `/srv/app`), or follows `file://`;
// it goes on with a separator (captured) and more path, or ends: not a longer name (`app2`, `app.d`), though a
// sentence may end right after it (`… under /srv/app.`).
const START = String.raw`(?:file://|(?<![\w./\\-]))`;
const CONTINUES = String.raw`([/\\])(?=[^\s'"\x60])`;
const ENDS = String.raw`[/\\]?(?![\w-]|\.[\w.-])`;

/**
 * Rewrite absolute paths under `projectDir` to project-relative ones (`./` for the root itself), and paths under
 * `home` to `~/…`. Both the given and the real (symlink-resolved) form of each directory are matched, with or
 * without a `file://` prefix, and only whole path segments (`/srv/app` does not touch `/srv/app2`). A filesystem
 * root (`/`) is never rewritten.
 *
 * @example
 * const shown = callerPaths('/srv/app', '/home/ann');
 * shown("No agent 'x' in /srv/app/.switchboard/agents"); // "No agent 'x' in .switchboard/agents"
 * shown('cannot read /home/ann/.switchboard/config.toml'); // 'cannot read ~/.switchboard/config.toml'
 * shown('project_dir: /srv/app is not a git repository'); // 'project_dir: ./ is not a git repository'
 */
export function callerPaths(projectDir: string, home: string = homedir()): PathRewriter {
  const rules: { pattern: RegExp; root: string }[] = [];
  for (const [dir, root] of [
    [projectDir, ''],
    [home, '~'],
  ] as const) {
    for (const form of new Set([dir, realOrSelf(dir)])) {
      const trimmed = form.replace(/[/\\]+$/, '');
      if (trimmed === '' || parse(form).root === form) continue;
      rules.push({ pattern: new RegExp(`${START}${escapeRegExp(trimmed)}(?:${CONTINUES}|${ENDS})`, 'g'), root });
    }
  }
  // Longest first: a project inside the home directory is shown relative to the project, not as ~/….
  rules.sort((a, b) => b.pattern.source.length - a.pattern.source.length);
  return (text) => {
    let out = text;
    for (const { pattern, root } of rules)
      out = out.replace(pattern, (_, separator?: string) => {
        if (root === '') return separator ? '' : './';
        return separator ? `${root}/` : root;
      });
    return out;
  };
}

/** An error as a caller sees it: paths rewritten in its message and in the strings of its details. */
export function errorForCaller(error: ErrorInfo, rewrite: PathRewriter): ErrorInfo {
  const message = rewrite(error.message);
  const details =
    error.details === undefined ? undefined : (rewriteStrings(error.details, rewrite, 0) as typeof error.details);
  if (message === error.message && details === error.details) return error;
  return details === undefined ? { code: error.code, message } : { code: error.code, message, details };
}

/** Details are shallow structures of our own making; deeper than this is left as it is. */
const MAX_DETAILS_DEPTH = 6;

/** `value` with `rewrite` applied to every string in it; the same object when nothing changed. */
function rewriteStrings(value: unknown, rewrite: PathRewriter, depth: number): unknown {
  if (typeof value === 'string') return rewrite(value);
  if (value === null || typeof value !== 'object' || depth >= MAX_DETAILS_DEPTH) return value;
  if (Array.isArray(value)) {
    const next = value.map((v) => rewriteStrings(v, rewrite, depth + 1));
    return next.some((v, i) => v !== value[i]) ? next : value;
  }
  let changed = false;
  const entries = Object.entries(value).map(([k, v]) => {
    const next = rewriteStrings(v, rewrite, depth + 1);
    changed ||= next !== v;
    return [k, next] as const;
  });
  // fromEntries defines own properties: a key named __proto__ stays a key.
  return changed ? Object.fromEntries(entries) : value;
}

function realOrSelf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
