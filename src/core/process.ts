// Child processes for capabilities: argument arrays (never a shell string built from input), a time limit,
// the call's AbortSignal, and their own process group so a cancel or timeout kills the whole tree.
import { execa } from 'execa';
import { SwitchboardError } from './errors.ts';

export interface RunOptions {
  /** Pass `ctx.signal`: cancelling the call (or its timeout) kills the process group. */
  signal: AbortSignal;
  cwd?: string;
  /** The environment; by default a minimal one (PATH, HOME, LANG, TERM), never the hub's whole environment. */
  env?: Record<string, string>;
  /** Extra time limit for this process, besides the call's own. */
  timeoutMs?: number;
  /** Text written to stdin. */
  input?: string;
  /** Cap on captured stdout + stderr, in bytes (default 1 MiB); output beyond it is cut. */
  maxOutputBytes?: number;
}

export interface RunResult {
  /** 124 when `timeoutMs` ran out (like `timeout(1)`). */
  exitCode: number;
  /** The output passed `maxOutputBytes` and was cut (the process was stopped). */
  truncated: boolean;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
  pid: number | undefined;
}

/** The variables a child gets by default: enough to find programs and speak a locale, no secrets. */
export function minimalEnv(extra: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'USER', 'SHELL']) {
    const v = process.env[k];
    if (v !== undefined) base[k] = v;
  }
  return { ...base, ...extra };
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Run `command` with `args` in its own process group. A non-zero exit is a result, not an error; a cancel
 * fails with CANCELLED (or TIMEOUT for the call's timeout), after the whole group has been killed.
 *
 * @example
 * const r = await runCommand('npm', ['test'], { signal: ctx.signal, cwd: dir });
 * return { passed: r.exitCode === 0, output: r.stdout };
 */
export async function runCommand(command: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  if (opts.signal.aborted) throw abortError(opts.signal);
  const started = performance.now();
  const child = execa(command, args, {
    cwd: opts.cwd,
    env: opts.env ?? minimalEnv(),
    extendEnv: false,
    detached: true,
    reject: false,
    stdin: opts.input === undefined ? 'ignore' : 'pipe',
    input: opts.input,
    maxBuffer: opts.maxOutputBytes ?? 1024 * 1024,
    stripFinalNewline: false,
  });
  // The group leader's pid names the group; kill the group, not just the leader, so grandchildren die too.
  const onAbort = () => killGroup(child.pid);
  opts.signal.addEventListener('abort', onAbort, { once: true });
  // Our own timer, not execa's: it must kill the group, or a grandchild holding the pipes keeps us waiting.
  let timedOut = false;
  const timer =
    opts.timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          killGroup(child.pid);
        }, opts.timeoutMs);
  try {
    const result = await child;
    if (opts.signal.aborted) throw abortError(opts.signal);
    const truncated = Boolean(result.isMaxBuffer);
    if (result.failed && result.exitCode === undefined && !timedOut && !truncated && !result.signal) {
      throw new SwitchboardError('INTERNAL', `Could not run '${command}': ${result.shortMessage ?? result.message}`);
    }
    return {
      truncated,
      timedOut,
      exitCode: timedOut ? 124 : (result.exitCode ?? 1),
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
      durationMs: Math.round(performance.now() - started),
      pid: child.pid,
    };
  } finally {
    clearTimeout(timer);
    opts.signal.removeEventListener('abort', onAbort);
    // A finished leader may leave children behind in its group; they belong to this call, so they go too.
    killGroup(child.pid);
  }
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason instanceof Error ? signal.reason : new SwitchboardError('CANCELLED', 'The call was cancelled.');
}
