// The V8 startup snapshot `serve` starts from (docs/performance.md, "Startup snapshot"), built on the user's own
// machine: a blob only the `node` binary that built it can start, so the package ships none. The first `serve`
// without one starts from the ESM bundle as usual and builds it in the background, into the user's cache, under a
// name made from the install's dist folder; the file appears by rename, whole or not at all. bin/switchboard.js
// finds it by the same name and starts from it while it belongs to the `node` on PATH and is newer than both that
// `node` and the install's dist/snapshot.cjs. SWITCHBOARD_SNAPSHOT=0 turns both off.
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { installedEntry } from '../config/agent-launch.ts';
import { argv } from '../core/argv.ts';
import { packageRoot } from '../core/module-loader.ts';
import { minimalEnv, runProcess, startIndependent } from '../core/process.ts';

/** A build that has not finished in this long is taken for dead, and its lock for stale. */
const LOCK_STALE_MS = 5 * 60_000;
/** The longest a build may take (about half a second on a 2-core machine). */
const BUILD_TIMEOUT_MS = 120_000;

/** The files of one install's snapshot in the cache. */
export interface SnapshotSlot {
  /** The install's dist folder, which the blob is built from. */
  dist: string;
  blob: string;
  /** The `node` binary that built the blob, one line (the launcher compares it with the `node` on PATH). */
  builtBy: string;
  lock: string;
  /** Why the last build failed; no new build starts by itself until `node` or the install changes. */
  failed: string;
}

/** `$SWITCHBOARD_CACHE_DIR`, else `$XDG_CACHE_HOME/switchboard`, else `~/.cache/switchboard` (the launcher's rule). */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SWITCHBOARD_CACHE_DIR) return env.SWITCHBOARD_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'switchboard');
}

/**
 * The slot of the install whose dist folder is `dist`: its path with every `/` as `_`, as the launcher's shell
 * names it (no hashing there: the launcher runs before every start and starts no process of its own for this).
 *
 * @example
 * slotFor('/usr/lib/node_modules/switchboard-mcp/dist').blob // ~/.cache/switchboard/_usr_lib_…_dist.blob
 */
export function slotFor(dist: string, env: NodeJS.ProcessEnv = process.env): SnapshotSlot {
  const blob = join(cacheDir(env), `${dist.split('/').join('_')}.blob`);
  return { dist, blob, builtBy: `${blob}.node`, lock: `${blob}.lock`, failed: `${blob}.failed` };
}

/** The slot of the running install, or undefined where there is none to build (Windows: the launcher is `sh`). */
export function ownSlot(env: NodeJS.ProcessEnv = process.env): SnapshotSlot | undefined {
  const root = packageRoot();
  if (!root || process.platform === 'win32') return undefined;
  const dist = join(installedEntry(root), '..', '..', 'dist');
  return existsSync(join(dist, 'snapshot.cjs')) ? slotFor(dist, env) : undefined;
}

const mtime = (file: string) => statSync(file).mtimeMs;

function sameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/**
 * Whether the launcher would start `serve` from the slot's blob with `node`: `ready`, or why not.
 *
 * @example
 * snapshotState(slot) // { ready: false, why: 'no snapshot built yet' }
 */
export function snapshotState(slot: SnapshotSlot, node = process.execPath): { ready: boolean; why: string } {
  if (!existsSync(slot.blob)) return { ready: false, why: 'no snapshot built yet' };
  let built = '';
  try {
    built = readFileSync(slot.builtBy, 'utf8').split('\n')[0];
  } catch {
    return { ready: false, why: `${slot.builtBy} is missing` };
  }
  if (!sameFile(built, node)) return { ready: false, why: `built by ${built}, not ${node}` };
  if (mtime(node) > mtime(slot.blob)) return { ready: false, why: `${node} is newer than the snapshot` };
  if (mtime(join(slot.dist, 'snapshot.cjs')) > mtime(slot.blob))
    return { ready: false, why: 'the install was rebuilt after the snapshot' };
  return { ready: true, why: 'ready' };
}

/** Take the slot's build lock, or say who holds it; a lock older than LOCK_STALE_MS is taken over. */
function takeLock(slot: SnapshotSlot): boolean {
  mkdirSync(join(slot.blob, '..'), { recursive: true });
  try {
    closeSync(openSync(slot.lock, 'wx'));
    return true;
  } catch {
    try {
      if (Date.now() - mtime(slot.lock) < LOCK_STALE_MS) return false;
      rmSync(slot.lock, { force: true });
      closeSync(openSync(slot.lock, 'wx'));
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * Build the slot's blob with this `node`: into a temporary file, then renamed over the old one, so a start never
 * reads half a blob. Resolves with what happened; a failure is also written to `slot.failed`.
 */
export async function buildSnapshot(
  slot: SnapshotSlot,
): Promise<{ ok: true; ms: number } | { ok: false; busy?: true; error: string }> {
  if (!takeLock(slot)) return { ok: false, busy: true, error: `another build holds ${slot.lock}` };
  const started = performance.now();
  const temp = `${slot.blob}.${process.pid}.tmp`;
  try {
    const run = await runProcess(
      process.execPath,
      argv()
        .option('--snapshot-blob', temp)
        .flag('--build-snapshot')
        .nonOption(join(slot.dist, 'snapshot.cjs'))
        .build(),
      { signal: new AbortController().signal, env: minimalEnv(), timeoutMs: BUILD_TIMEOUT_MS },
    );
    if (run.exitCode !== 0 || !existsSync(temp)) {
      const error = `node --build-snapshot exited with ${run.exitCode}: ${run.stderr.trim().slice(-2000) || '(no output)'}`;
      writeFileSync(slot.failed, `${error}\n`);
      return { ok: false, error };
    }
    renameSync(temp, slot.blob);
    writeFileSync(`${slot.builtBy}.${process.pid}.tmp`, `${process.execPath}\n`);
    renameSync(`${slot.builtBy}.${process.pid}.tmp`, slot.builtBy);
    rmSync(slot.failed, { force: true });
    return { ok: true, ms: Math.round(performance.now() - started) };
  } finally {
    rmSync(temp, { force: true });
    rmSync(slot.lock, { force: true });
  }
}

/** Whether a failed build is still the last word: nothing it depended on changed since. */
function failedLately(slot: SnapshotSlot): boolean {
  try {
    const at = mtime(slot.failed);
    return at >= mtime(process.execPath) && at >= mtime(join(slot.dist, 'snapshot.cjs'));
  } catch {
    return false;
  }
}

/**
 * Called as `serve` starts: when this process did not start from a snapshot and the install has none ready for this
 * `node`, build one in a detached background process (`switchboard snapshot build --quiet`) for the next start.
 * Never throws and never waits: a start without a snapshot is only slower.
 */
export function buildLaterIfMissing(env: NodeJS.ProcessEnv = process.env): void {
  try {
    if (env.SWITCHBOARD_SNAPSHOT === '0') return;
    if ((globalThis as Record<symbol, unknown>)[Symbol.for('switchboard.api')]) return; // started from one
    const slot = ownSlot(env);
    if (!slot || snapshotState(slot).ready || failedLately(slot) || existsSync(slot.lock)) return;
    startIndependent(
      process.execPath,
      argv().nonOption(installedEntry()).flag('snapshot').flag('build').flag('--quiet').build(),
      { stdio: 'ignore', env: { ...env } },
    );
  } catch {
    // The cache may be unwritable or the install read-only: Switchboard starts without a snapshot, as before.
  }
}
