// Every child process Switchboard starts is started here: an argument list built by core/argv.ts (never a shell
// string built from input), a time limit, the call's AbortSignal, and its own process group so a cancel or timeout
// kills the whole tree, and the reaper (core/reaper.ts) kills the group if the hub itself dies first.
// test/core/process-starts.test.ts fails when a module elsewhere in src/ starts one.
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import spawn from 'cross-spawn';
import { type Argv, argv } from './argv.ts';
import { SwitchboardError } from './errors.ts';
import { trackGroup, untrackGroup } from './reaper.ts';

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
  /**
   * Kill the group when the process writes nothing (stdout or stderr) for this many ms; the result then has
   * `idleTimedOut` and exit code 124, like `timeoutMs`.
   */
  idleTimeoutMs?: number;
  /** Every chunk of output as it arrives, in arrival order (live logs, progress, an interleaved transcript). */
  onOutput?: (text: string, stream: 'stdout' | 'stderr') => void;
  /**
   * `false`: keep no output here — `stdout` and `stderr` come back empty and `maxOutputBytes` does not apply — for
   * callers that take it through `onOutput` and keep what they need (a long test run's head and tail).
   */
  buffer?: boolean;
  /**
   * Receive stdout line by line as it arrives (a child that streams events). Lines given here are not kept:
   * `stdout` of the result is then empty, so a long-running stream never reaches `maxOutputBytes`.
   */
  onStdoutLine?: (line: string) => void;
}

export interface RunResult {
  /** 124 when `timeoutMs` ran out (like `timeout(1)`). */
  exitCode: number;
  /** The output passed `maxOutputBytes` and was cut (the process was stopped). */
  truncated: boolean;
  timedOut: boolean;
  /** No output arrived within `idleTimeoutMs`. */
  idleTimedOut: boolean;
  stdout: string;
  stderr: string;
  durationMs: number;
  pid: number | undefined;
}

/**
 * The variables a child gets by default: enough to find programs and speak a locale, no secrets. `from` is the
 * environment to pick them from (the hub's own, which tests may point elsewhere); default `process.env`.
 */
export function minimalEnv(
  extra: Record<string, string> = {},
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const base: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'USER', 'SHELL']) {
    const v = from[k];
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
 * fails with CANCELLED (or TIMEOUT for the call's timeout), after the whole group has been killed. For handler
 * authors: the arguments are theirs, as written (Switchboard's own code uses {@link runProcess} with an `Argv`).
 *
 * @example
 * const r = await runCommand('npm', ['test'], { signal: ctx.signal, cwd: dir });
 * return { passed: r.exitCode === 0, output: r.stdout };
 */
export function runCommand(command: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  return runProcess(command, argv().operator(args).build(), opts);
}

/** {@link runCommand} with an argument list built by core/argv.ts: how Switchboard itself runs a command. */
export async function runProcess(command: string, args: Argv, opts: RunOptions): Promise<RunResult> {
  // execa is loaded with the first command: a server that never runs one never pays for it at start-up.
  const { execa } = await import('execa');
  if (opts.signal.aborted) throw abortError(opts.signal);
  const started = performance.now();
  const child = execa(command, args, {
    cwd: opts.cwd,
    env: opts.env ?? minimalEnv(),
    extendEnv: false,
    detached: true,
    reject: false,
    stdin: opts.input === undefined ? 'ignore' : 'pipe',
    ...(opts.onStdoutLine ? { stdout: [lineSink(opts.onStdoutLine)] } : {}),
    input: opts.input,
    maxBuffer: opts.maxOutputBytes ?? 1024 * 1024,
    buffer: opts.buffer ?? true,
    stripFinalNewline: false,
  });
  // The group leader's pid names the group; kill the group, not just the leader, so grandchildren die too.
  trackGroup(child.pid);
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
  // The idle timer restarts on every chunk of output: a hung watcher dies, a long but chatty test run lives.
  let idleTimedOut = false;
  let idle: NodeJS.Timeout | undefined;
  const armIdle =
    opts.idleTimeoutMs === undefined
      ? undefined
      : () => {
          clearTimeout(idle);
          idle = setTimeout(() => {
            idleTimedOut = true;
            killGroup(child.pid);
          }, opts.idleTimeoutMs);
        };
  armIdle?.();
  if (opts.onOutput || armIdle) {
    for (const stream of ['stdout', 'stderr'] as const) {
      // Our own decoder, not setEncoding: execa reads the same stream and expects bytes.
      const decoder = new StringDecoder('utf8');
      child[stream]?.on('data', (chunk: Buffer) => {
        armIdle?.();
        const text = decoder.write(chunk);
        if (text) opts.onOutput?.(text, stream);
      });
    }
  }
  try {
    const result = await child;
    if (opts.signal.aborted) throw abortError(opts.signal);
    const truncated = Boolean(result.isMaxBuffer);
    if (result.failed && result.exitCode === undefined && !timedOut && !idleTimedOut && !truncated && !result.signal) {
      throw new SwitchboardError('INTERNAL', `Could not run '${command}': ${result.shortMessage ?? result.message}`);
    }
    return {
      truncated,
      timedOut,
      idleTimedOut,
      exitCode: timedOut || idleTimedOut ? 124 : (result.exitCode ?? 1),
      stdout: String(result.stdout ?? ''),
      stderr: String(result.stderr ?? ''),
      durationMs: Math.round(performance.now() - started),
      pid: child.pid,
    };
  } finally {
    clearTimeout(timer);
    clearTimeout(idle);
    opts.signal.removeEventListener('abort', onAbort);
    // A finished leader may leave children behind in its group; they belong to this call, so they go too.
    killGroup(child.pid);
    untrackGroup(child.pid);
  }
}

/**
 * Start a long-lived child (an upstream stdio server, the Python script runner) with an argument list built by
 * core/argv.ts, in a process group of its own that ends with it: when the child exits, what it left in its group is
 * killed, and if the hub dies first the reaper kills the group. {@link killChildGroup} stops the whole tree.
 * cross-spawn, as the MCP SDK: Windows command shims resolve; never a shell.
 */
export function startChild(
  command: string,
  args: Argv,
  options: Omit<SpawnOptions, 'shell' | 'detached'>,
): ChildProcess {
  // detached: a group (and session) of its own, so one signal reaches the server and what it started (npx → node).
  const child = spawn(command, args, { ...options, shell: false, detached: process.platform !== 'win32' });
  if (process.platform === 'win32') return child;
  const pgid = child.pid;
  trackGroup(pgid);
  child.once('exit', () => {
    killGroup(pgid);
    untrackGroup(pgid);
  });
  return child;
}

/** Signal a child started by {@link startChild} and everything in its process group. */
export function killChildGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (process.platform === 'win32' || !child.pid) {
    child.kill(signal);
    return;
  }
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Start a child meant to outlive the hub (a browser opened for a login, a background build of the start-up
 * snapshot): its own session, not waited for, not reaped. Never for anything that runs a caller's work.
 */
export function startIndependent(command: string, args: Argv, options: Omit<SpawnOptions, 'shell' | 'detached'>) {
  const child = spawn(command, args, { ...options, shell: false, detached: true });
  child.on('error', () => {});
  child.unref();
  return child;
}

/** An execa line transform that hands each stdout line to `onLine` and keeps nothing. */
function lineSink(onLine: (line: string) => void) {
  return {
    // A generator that yields nothing: each line goes to `onLine` and is dropped from the buffered output.
    *transform(line: unknown): Generator<never, void, unknown> {
      onLine(String(line));
      yield* [];
    },
  };
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason instanceof Error ? signal.reason : new SwitchboardError('CANCELLED', 'The call was cancelled.');
}

/** Whether a process of this machine still exists (EPERM: it does, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
