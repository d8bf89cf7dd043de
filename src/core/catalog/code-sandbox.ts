// Code mode's sandbox (`catalog.run`): a program runs in QuickJS compiled to WebAssembly, one engine instance per
// program, with `tools.NAME(args)` and `console` as its only way out. Loaded on the first run.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import {
  newQuickJSWASMModuleFromVariant,
  newVariant,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSSyncVariant,
} from 'quickjs-emscripten-core';
import { SwitchboardError } from '../errors.ts';
import { toJavaScript } from './code-source.ts';

export interface SandboxLimits {
  timeoutMs: number;
  /** Longest synchronous stretch (ms): the engine runs on the caller's thread, the hub's event loop. */
  maxBlockingMs: number;
  memoryBytes: number;
  maxCalls: number;
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

/** Console lines kept per program: what a model reads, so a loop that logs cannot flood it. */
const MAX_CONSOLE_CHARS = 64 * 1024;
/** The engine's own stack: deep enough for real programs, shallow enough to stay inside Node's native stack. */
const MAX_STACK_BYTES = 256 * 1024;
/** How often (ms) a running program's memory is measured: setMemoryLimit alone misses large strings (decisions.md). */
const MEMORY_CHECK_MS = 5;

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

// The package's types describe its CommonJS build; under ESM its default export is the variant itself.
const releaseSync = () =>
  import('@jitl/quickjs-wasmfile-release-sync') as unknown as Promise<{ default: QuickJSSyncVariant }>;

// The engine's WebAssembly is compiled once per process; each program instantiates it afresh (about a millisecond).
let compiled: Promise<WebAssembly.Module> | undefined;
let variant: Promise<QuickJSSyncVariant> | undefined;
function engineVariant(): Promise<QuickJSSyncVariant> {
  compiled ??= readFile(createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm')).then(
    (bytes) => WebAssembly.compile(bytes),
  );
  variant ??= releaseSync().then((base) =>
    newVariant(base.default, { wasmModule: () => compiled as Promise<WebAssembly.Module> }),
  );
  return variant;
}

/** Run one program; resolves with its value and console output, or throws a SwitchboardError naming its line. */
export async function runInSandbox(run: SandboxRun): Promise<SandboxResult> {
  const source = await toJavaScript(run.code);
  // Its own engine instance (a few ms): a program that exhausts or corrupts its engine takes no other program with it.
  const engine = await newQuickJSWASMModuleFromVariant(engineVariant());
  const runtime = engine.newRuntime();
  const linear = linearMemory(engine);
  const baseline = linear();
  const deadline = Date.now() + run.limits.timeoutMs;
  let stopped: Stop | undefined;
  let measuredAt = 0;
  // When the engine last got the thread: each evaluation and each round of jobs starts a new stretch.
  let sliceStart = Date.now();
  runtime.setMemoryLimit(run.limits.memoryBytes);
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  runtime.setInterruptHandler(() => {
    if (stopped) return true;
    const now = Date.now();
    if (now > deadline) stopped = 'time';
    else if (now - sliceStart > run.limits.maxBlockingMs) stopped = 'blocking';
    else if (run.signal?.aborted) stopped = 'cancelled';
    else if (now - measuredAt >= MEMORY_CHECK_MS) {
      measuredAt = now;
      const used = Math.max(heapUsed(runtime.dumpMemoryUsage()), linear() - baseline);
      if (used > run.limits.memoryBytes) stopped = 'memory';
    }
    return stopped !== undefined;
  });
  const vm = runtime.newContext();
  const output = new Console();
  const calls = new AbortController();
  const onAbort = () => calls.abort();
  run.signal?.addEventListener('abort', onAbort, { once: true });
  let count = 0;
  let closed = false;
  let fail: (err: Error) => void = () => {};
  const failed = new Promise<never>((_, reject) => {
    fail = reject;
  });
  // A job the engine could not finish (interrupted, out of memory) ends the program: its promise would never settle.
  const drain = () => {
    if (closed) return;
    sliceStart = Date.now();
    const jobs = runtime.executePendingJobs();
    if (jobs.error) {
      const err = vm.dump(jobs.error);
      jobs.error.dispose();
      fail(programError(err, source.lineOf, stopped, run.limits));
    }
  };
  try {
    const hostCall = vm.newFunction('__sbCall', (nameH, argsH) => {
      const name = vm.getString(nameH);
      const argsJson = vm.getString(argsH);
      const deferred = vm.newPromise();
      count += 1;
      const answer =
        count > run.limits.maxCalls
          ? Promise.reject(
              new SwitchboardError(
                'INVALID_INPUT',
                `Call ${count} refused: a program may make at most ${run.limits.maxCalls} tool calls ([catalog.run] max_calls). Batch the work into fewer calls.`,
              ),
            )
          : run.call(name, JSON.parse(argsJson), calls.signal);
      // Handed back on a later turn of the event loop: a program that loops over calls answered at once (refused,
      // cached) lets timers, I/O and cancellation run between them.
      answer.then(
        (value) =>
          setImmediate(() => settle(vm, deferred, () => closed, { json: JSON.stringify(value ?? null) }, drain)),
        (err) => setImmediate(() => settle(vm, deferred, () => closed, { err }, drain)),
      );
      return deferred.handle;
    });
    const hostLog = vm.newFunction('__sbLog', (levelH, textH) => {
      output.add(vm.getString(levelH), vm.getString(textH));
    });
    vm.setProp(vm.global, '__sbCall', hostCall);
    vm.setProp(vm.global, '__sbLog', hostLog);
    hostCall.dispose();
    hostLog.dispose();
    const namesH = vm.newString(JSON.stringify(run.names));
    vm.setProp(vm.global, '__sbNames', namesH);
    namesH.dispose();
    vm.unwrapResult(vm.evalCode(PRELUDE, 'prelude.js')).dispose();

    sliceStart = Date.now();
    const started = vm.evalCode(source.code, 'program.js');
    if (started.error) {
      const err = vm.dump(started.error);
      started.error.dispose();
      throw programError(err, source.lineOf, stopped, run.limits);
    }
    const settled = vm.resolvePromise(started.value);
    started.value.dispose();
    drain();
    let timer: NodeJS.Timeout | undefined;
    const overtime = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        stopped = 'time';
        reject(stopError('time', run.limits));
      }, run.limits.timeoutMs);
    });
    const cancelled = new Promise<never>((_, reject) => {
      const cancel = () => reject(stopError('cancelled', run.limits));
      if (run.signal?.aborted) cancel();
      else run.signal?.addEventListener('abort', cancel, { once: true });
    });
    try {
      const result = await Promise.race([settled, overtime, cancelled, failed]);
      if (result.error) {
        const err = vm.dump(result.error);
        result.error.dispose();
        throw programError(err, source.lineOf, stopped, run.limits);
      }
      const json = vm.dump(result.value);
      result.value.dispose();
      return {
        value: typeof json === 'string' ? JSON.parse(json) : null,
        console: output.lines,
        calls: Math.min(count, run.limits.maxCalls),
      };
    } finally {
      clearTimeout(timer);
    }
  } catch (err) {
    if (err instanceof SwitchboardError) throw withConsole(err, output.lines);
    throw err;
  } finally {
    closed = true;
    calls.abort();
    run.signal?.removeEventListener('abort', onAbort);
    // A program stopped mid-way leaves objects the engine cannot free; the instance is dropped with them.
    try {
      vm.dispose();
      runtime.dispose();
    } catch {}
  }
}

/** Hand a tool's answer (or error) to the program, unless it has already finished. */
function settle(
  vm: QuickJSContext,
  deferred: QuickJSDeferredPromise,
  closed: () => boolean,
  answer: { json: string } | { err: unknown },
  drain: () => void,
): void {
  if (closed() || !vm.alive) return;
  try {
    let h: QuickJSHandle;
    if ('json' in answer) {
      h = vm.newString(answer.json);
      deferred.resolve(h);
    } else {
      const info =
        answer.err instanceof SwitchboardError ? answer.err : new SwitchboardError('INTERNAL', String(answer.err));
      h = vm.newError({ name: 'ToolError', message: info.message });
      const code = vm.newString(info.code);
      vm.setProp(h, 'code', code);
      code.dispose();
      deferred.reject(h);
    }
    h.dispose();
    deferred.dispose();
    drain();
  } catch {
    // The engine was stopped meanwhile (out of memory): the run has already failed with the reason.
  }
}

/**
 * The size of this engine instance's WebAssembly memory, which only grows: it counts the large strings and arrays
 * the engine's own accounting misses (quickjs-emscripten issues 255 and 271). The module is one program's alone.
 */
function linearMemory(engine: object): () => number {
  const heap = (engine as { module?: { HEAPU8?: Uint8Array } }).module;
  return () => heap?.HEAPU8?.byteLength ?? 0;
}

/** The heap the engine reports as used (objects, small strings). */
function heapUsed(dump: string): number {
  const m = /memory used\s+\d+\s+(\d+)/.exec(dump);
  return m ? Number(m[1]) : 0;
}

type Stop = 'time' | 'blocking' | 'memory' | 'cancelled';

function stopError(reason: Stop, limits: SandboxLimits): SwitchboardError {
  if (reason === 'blocking')
    return new SwitchboardError(
      'TIMEOUT',
      `The program computed for more than ${limits.maxBlockingMs} ms without awaiting a tool ([catalog.run] max_blocking_ms) and was stopped: it shares the hub's thread. Leave long computations to a tool.`,
    );
  if (reason === 'time')
    return new SwitchboardError(
      'TIMEOUT',
      `The program ran past its time limit of ${limits.timeoutMs} ms ([catalog.run] timeout_ms) and was stopped.`,
    );
  if (reason === 'memory')
    return new SwitchboardError(
      'INVALID_INPUT',
      `The program used more than its memory limit of ${limits.memoryBytes} bytes ([catalog.run] memory_bytes) and was stopped.`,
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

/** The program's console, capped at MAX_CONSOLE_CHARS. */
class Console {
  lines: string[] = [];
  private chars = 0;
  private full = false;

  add(level: string, text: string): void {
    if (this.full) return;
    const line = level === 'log' || level === 'info' ? text : `[${level}] ${text}`;
    if (this.chars + line.length > MAX_CONSOLE_CHARS) {
      this.full = true;
      this.lines.push(`… console output past ${MAX_CONSOLE_CHARS} characters dropped`);
      return;
    }
    this.chars += line.length;
    this.lines.push(line);
  }
}
