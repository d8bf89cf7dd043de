// Code mode's sandbox (`catalog.run`): a program runs in QuickJS compiled to WebAssembly, one engine instance per
// program, on an engine thread (engine-thread.mjs) rather than the hub's event loop, with `tools.NAME(args)` and
// `console` as its only way out. Here: the threads, the tool calls a program asks for, and the limits. Loaded on the
// first run.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SwitchboardError } from '../errors.ts';
import { toJavaScript } from './code-source.ts';

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
  maxCalls: number;
  /** Programs running at once in this process; the next waits for one to end. */
  maxRunning: number;
}

export interface SandboxRun {
  code: string;
  limits: SandboxLimits;
  /** Tool names given a function on `tools` up front (any other name still reaches `call`, which refuses it). */
  names: readonly string[];
  /** Run one tool call for the program; throws a SwitchboardError to reject the program's promise. */
  call: (name: string, args: unknown, signal: AbortSignal) => Promise<unknown>;
  signal?: AbortSignal;
}

export interface SandboxResult {
  value: unknown;
  console: string[];
  calls: number;
}

// Runs before the program, in its context: wraps the two host functions, then deletes them from the global object.
const PRELUDE = `(() => {
  const hostCall = globalThis.__sbCall, hostLog = globalThis.__sbLog, names = JSON.parse(globalThis.__sbNames);
  delete globalThis.__sbCall; delete globalThis.__sbLog; delete globalThis.__sbNames;
  const text = (v) => { if (typeof v === 'string') return v; try { const j = JSON.stringify(v); return j === undefined ? String(v) : j; } catch { return String(v); } };
  const line = (level) => (...args) => hostLog(level, args.map(text).join(' '));
  globalThis.console = Object.freeze({ log: line('log'), info: line('info'), warn: line('warn'), error: line('error'), debug: line('debug') });
  const tool = (name) => async (args) => JSON.parse(await hostCall(name, JSON.stringify(args === undefined ? {} : args)));
  const known = Object.create(null);
  for (const n of names) known[n] = tool(n);
  globalThis.tools = new Proxy(known, {
    get: (t, k) => (typeof k !== 'string' || k === 'then' ? undefined : t[k] || tool(k)),
  });
  const RealDate = Date;
  const noClock = () => { throw new Error('There is no clock in catalog.run: call a tool that gives the time, or pass dates as arguments.'); };
  function SafeDate(...a) { if (a.length === 0) noClock(); return new.target ? new RealDate(...a) : new RealDate(...a).toString(); }
  SafeDate.now = noClock; SafeDate.parse = RealDate.parse; SafeDate.UTC = RealDate.UTC; SafeDate.prototype = RealDate.prototype;
  Object.defineProperty(RealDate.prototype, 'constructor', { value: SafeDate, writable: true, configurable: true });
  globalThis.Date = SafeDate;
})();`;

/** Threads kept started for the next program: a start costs tens of milliseconds, an idle thread a few MiB. */
const IDLE_THREADS = 2;
/** How long a thread may take to stop a program once asked (it checks between instructions) before it is ended. */
const STOP_GRACE_MS = 1_000;

// The engine's WebAssembly is compiled once per process and handed to every thread.
let compiled: Promise<WebAssembly.Module> | undefined;
function engineModule(): Promise<WebAssembly.Module> {
  compiled ??= readFile(createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm')).then(
    (bytes) => WebAssembly.compile(bytes),
  );
  return compiled;
}

/** The engine threads of this process: at most `maxRunning` programs at once, the rest wait their turn in order. */
const threads = {
  idle: [] as Worker[],
  running: 0,
  waiting: [] as Array<() => void>,
};

/** A thread for one program, once fewer than `maxRunning` run; `signal` gives up the wait. */
async function takeThread(maxRunning: number, signal?: AbortSignal): Promise<Worker> {
  while (threads.running >= maxRunning) {
    if (signal?.aborted) throw stopError('cancelled');
    await new Promise<void>((resolve) => {
      const wake = () => {
        signal?.removeEventListener('abort', wake);
        threads.waiting.splice(threads.waiting.indexOf(wake) >>> 0, 1);
        resolve();
      };
      threads.waiting.push(wake);
      signal?.addEventListener('abort', wake, { once: true });
    });
  }
  threads.running += 1;
  const idle = threads.idle.pop();
  if (idle) return idle;
  const worker = new Worker(new URL('./engine-thread.mjs', import.meta.url), {
    workerData: { wasmModule: await engineModule(), prelude: PRELUDE },
  });
  // An idle thread never keeps the process alive; a running program is held by the call that waits for it.
  worker.unref();
  return worker;
}

/** A program has ended: its thread is kept for the next one (or ended), and the next waiting program may start. */
function giveBack(worker: Worker, healthy: boolean): void {
  threads.running -= 1;
  if (healthy && threads.idle.length < IDLE_THREADS) threads.idle.push(worker);
  else void worker.terminate();
  threads.waiting[0]?.();
}

/** Messages of engine-thread.mjs to the hub. */
type ThreadMessage =
  | { type: 'call'; id: number; name: string; args: string }
  | { type: 'log'; line: string }
  | { type: 'done'; json: string }
  | { type: 'failed'; error: unknown; stopped?: Stop };

/** Run one program; resolves with its value and console output, or throws a SwitchboardError naming its line. */
export async function runInSandbox(run: SandboxRun): Promise<SandboxResult> {
  const source = await toJavaScript(run.code);
  const worker = await takeThread(run.limits.maxRunning, run.signal);
  const lines: string[] = [];
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const calls = new AbortController();
  let count = 0;
  let healthy = true;
  let timer: NodeJS.Timeout | undefined;
  let grace: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  let onExit = (_code: number) => {};
  let onMessage = (_m: ThreadMessage) => {};
  try {
    return await new Promise<SandboxResult>((resolve, reject) => {
      const fail = (err: SwitchboardError) => reject(withConsole(err, lines));
      // Asked to stop: the thread ends the program at its next instruction or where it waits; one that does not
      // answer within the grace period is ended with its thread.
      const stopWith = (reason: Stop) => {
        if (Atomics.load(stop, 0) !== 0) return;
        Atomics.store(stop, 0, reason === 'time' ? 1 : 2);
        calls.abort();
        worker.postMessage({ type: 'stop' });
        grace = setTimeout(() => {
          healthy = false;
          fail(stopError(reason, run.limits));
        }, STOP_GRACE_MS);
      };
      onMessage = (m) => {
        if (m.type === 'log') lines.push(m.line);
        else if (m.type === 'call') {
          count += 1;
          const answer =
            count > run.limits.maxCalls
              ? Promise.reject(
                  new SwitchboardError(
                    'INVALID_INPUT',
                    `Call ${count} refused: a program may make at most ${run.limits.maxCalls} tool calls ([catalog.run] max_calls). Batch the work into fewer calls.`,
                  ),
                )
              : Promise.resolve().then(() => run.call(m.name, JSON.parse(m.args), calls.signal));
          answer.then(
            (value) => worker.postMessage({ type: 'answer', id: m.id, json: JSON.stringify(value ?? null) }),
            (err) => {
              const info = err instanceof SwitchboardError ? err : new SwitchboardError('INTERNAL', String(err));
              worker.postMessage({ type: 'answer', id: m.id, error: { message: info.message, code: info.code } });
            },
          );
        } else if (m.type === 'done')
          resolve({ value: JSON.parse(m.json), console: lines, calls: Math.min(count, run.limits.maxCalls) });
        else fail(programError(m.error, source.lineOf, m.stopped, run.limits));
      };
      onExit = (code) => {
        healthy = false;
        fail(new SwitchboardError('INTERNAL', `The program's engine thread ended unexpectedly (exit code ${code}).`));
      };
      onAbort = () => stopWith('cancelled');
      worker.on('message', onMessage);
      worker.on('exit', onExit);
      if (run.signal?.aborted) return onAbort();
      run.signal?.addEventListener('abort', onAbort, { once: true });
      timer = setTimeout(() => stopWith('time'), run.limits.timeoutMs);
      worker.postMessage({
        type: 'run',
        code: source.code,
        names: run.names,
        timeoutMs: run.limits.timeoutMs,
        memoryBytes: run.limits.memoryBytes,
        stop,
      });
    });
  } finally {
    clearTimeout(timer);
    clearTimeout(grace);
    calls.abort();
    run.signal?.removeEventListener('abort', onAbort);
    worker.off('message', onMessage);
    worker.off('exit', onExit);
    giveBack(worker, healthy);
  }
}

type Stop = 'time' | 'memory' | 'cancelled';

function stopError(reason: Stop, limits?: SandboxLimits): SwitchboardError {
  if (reason === 'time')
    return new SwitchboardError(
      'TIMEOUT',
      `The program ran past its time limit of ${limits?.timeoutMs} ms ([catalog.run] timeout_ms) and was stopped.`,
    );
  if (reason === 'memory')
    return new SwitchboardError(
      'INVALID_INPUT',
      `The program used more than its memory limit of ${limits?.memoryBytes} bytes ([catalog.run] memory_bytes) and was stopped.`,
    );
  return new SwitchboardError('CANCELLED', 'The call was cancelled.');
}

/** A program's uncaught error as the caller's error: its message, and the line of the caller's code it came from. */
function programError(
  dumped: unknown,
  lineOf: (line: number) => number | undefined,
  stopped: Stop | undefined,
  limits: SandboxLimits,
): SwitchboardError {
  if (stopped) return stopError(stopped, limits);
  const err = (dumped && typeof dumped === 'object' ? dumped : { message: String(dumped) }) as {
    name?: string;
    message?: string;
    stack?: string;
    code?: string;
  };
  // An allocation the engine refused outright leaves no error object to throw (`null`) or says so itself.
  if (dumped === null || /out of memory/i.test(err.message ?? '')) return stopError('memory', limits);
  const frame = /program\.js:(\d+)(?::(\d+))?/.exec(err.stack ?? '');
  const line = frame ? lineOf(Number(frame[1])) : undefined;
  const where = line === undefined ? '' : ` (line ${line} of the code)`;
  const name = err.name && err.name !== 'Error' ? `${err.name}: ` : '';
  return new SwitchboardError('INVALID_INPUT', `The program failed${where}: ${name}${err.message ?? ''}`, {
    ...(line === undefined ? {} : { line }),
    ...(err.code ? { toolError: err.code } : {}),
  });
}

function withConsole(err: SwitchboardError, lines: string[]): SwitchboardError {
  if (!lines.length) return err;
  return new SwitchboardError(err.code, err.message, { ...err.details, console: lines });
}
