// Code mode's engine thread (catalog.run): runs one program at a time, each in a QuickJS instance of its own, off the
// hub's event loop. Its only ways out are the messages below; code-sandbox.ts runs the tool calls and keeps the limits
// a stuck thread cannot keep (it terminates the thread). Plain JavaScript: a worker starts from a file Node loads as
// it is, from src/ in the tests and from dist/ in the package (scripts/build.mjs copies it there).
//
// Hub → thread: { type: 'run', code, names, timeoutMs, memoryBytes, stop: Int32Array } · { type: 'answer', id, json }
//               · { type: 'answer', id, error: { message, code } } · { type: 'stop' } (after setting `stop`)
// Thread → hub: { type: 'call', id, name, args } · { type: 'log', line } · { type: 'done', json }
//               · { type: 'failed', error, stopped }
import { parentPort, workerData } from 'node:worker_threads';
import releaseSync from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core';

/** What `stop[0]` holds when the hub stops a program (its deadline passed, its call was cancelled). */
const STOP = { 1: 'time', 2: 'cancelled' };
/** The engine's own stack: deep enough for real programs, shallow enough to stay inside the thread's native stack. */
const MAX_STACK_BYTES = 256 * 1024;
/** WebAssembly pages (64 KiB) the engine starts with: its own 16 MiB, before any program allocates. */
const BASE_PAGES = 256;
/** The engine's build can address at most 2 GiB. */
const MAX_PAGES = 32768;
/** Console output kept per program: what a model reads, so a loop that logs cannot flood it (or the hub). */
const MAX_CONSOLE_CHARS = 64 * 1024;

/** @type {WebAssembly.Module} compiled once by the hub and shared by every thread. */
const wasmModule = workerData.wasmModule;
/** @type {string} runs before each program, in its context. */
const prelude = workerData.prelude;

parentPort.on('message', (m) => {
  if (m.type === 'run') void run(m);
  else if (m.type === 'answer') answers.get(m.id)?.(m);
  else if (m.type === 'stop') stopRunning();
});

/** The pending tool calls of the running program, by id. */
const answers = new Map();
let nextCall = 0;
/** Ends the running program where it waits (a computing one is stopped by the interrupt handler instead). */
let stopRunning = () => {};

async function run({ code, names, timeoutMs, memoryBytes, stop }) {
  // The program's memory is a WebAssembly memory that cannot grow past the limit: an allocation beyond it fails
  // inside the engine, large strings and arrays included (the engine's own accounting misses those).
  const pages = Math.min(MAX_PAGES, BASE_PAGES + Math.ceil(memoryBytes / 65536));
  const wasmMemory = new WebAssembly.Memory({ initial: BASE_PAGES, maximum: pages });
  const engine = await newQuickJSWASMModuleFromVariant(newVariant(releaseSync, { wasmModule, wasmMemory }));
  const runtime = engine.newRuntime();
  const deadline = Date.now() + timeoutMs;
  let stopped;
  runtime.setMemoryLimit(memoryBytes);
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  runtime.setInterruptHandler(() => {
    stopped ??= STOP[Atomics.load(stop, 0)] ?? (Date.now() > deadline ? 'time' : undefined);
    return stopped !== undefined;
  });
  const vm = runtime.newContext();
  let closed = false;
  let consoleChars = 0;
  let finished = false;
  const finish = (message) => {
    if (finished) return;
    finished = true;
    closed = true;
    answers.clear();
    stopRunning = () => {};
    // Not disposed: a program that failed, was stopped, or left a call unanswered leaves objects the engine cannot
    // free (disposing then aborts on an assertion). The instance is this program's alone and is dropped whole.
    parentPort.postMessage(message);
  };
  stopRunning = () => finish({ type: 'failed', error: null, stopped: STOP[Atomics.load(stop, 0)] ?? 'cancelled' });
  const failWith = (handle) => {
    const error = vm.dump(handle);
    handle.dispose();
    finish({ type: 'failed', error: plain(error), stopped });
  };
  // A job the engine could not finish (interrupted, out of memory) ends the program: its promise would never settle.
  const drain = () => {
    if (closed) return;
    const jobs = runtime.executePendingJobs();
    if (jobs.error) failWith(jobs.error);
  };
  try {
    const hostCall = vm.newFunction('__sbCall', (nameH, argsH) => {
      const id = ++nextCall;
      const deferred = vm.newPromise();
      answers.set(id, (answer) => {
        answers.delete(id);
        if (closed || !vm.alive) return;
        try {
          let h;
          if (answer.error) {
            h = vm.newError({ name: 'ToolError', message: answer.error.message });
            const codeH = vm.newString(answer.error.code);
            vm.setProp(h, 'code', codeH);
            codeH.dispose();
            deferred.reject(h);
          } else {
            h = vm.newString(answer.json);
            deferred.resolve(h);
          }
          h.dispose();
          deferred.dispose();
          drain();
        } catch {
          // The engine was stopped meanwhile (out of memory): the run has already failed with the reason.
        }
      });
      parentPort.postMessage({ type: 'call', id, name: vm.getString(nameH), args: vm.getString(argsH) });
      return deferred.handle;
    });
    const hostLog = vm.newFunction('__sbLog', (levelH, textH) => {
      if (consoleChars > MAX_CONSOLE_CHARS) return;
      const level = vm.getString(levelH);
      const text = vm.getString(textH);
      const line = level === 'log' || level === 'info' ? text : `[${level}] ${text}`;
      consoleChars += line.length + 1;
      parentPort.postMessage({
        type: 'log',
        line: consoleChars > MAX_CONSOLE_CHARS ? `… console output past ${MAX_CONSOLE_CHARS} characters dropped` : line,
      });
    });
    vm.setProp(vm.global, '__sbCall', hostCall);
    vm.setProp(vm.global, '__sbLog', hostLog);
    hostCall.dispose();
    hostLog.dispose();
    const namesH = vm.newString(JSON.stringify(names));
    vm.setProp(vm.global, '__sbNames', namesH);
    namesH.dispose();
    vm.unwrapResult(vm.evalCode(prelude, 'prelude.js')).dispose();

    const started = vm.evalCode(code, 'program.js');
    if (started.error) return failWith(started.error);
    const settled = vm.resolvePromise(started.value);
    started.value.dispose();
    drain();
    const result = await settled;
    if (closed) return;
    if (result.error) return failWith(result.error);
    const json = vm.dump(result.value);
    result.value.dispose();
    finish({ type: 'done', json: typeof json === 'string' ? json : 'null' });
  } catch (err) {
    // The engine itself gave out (an allocation refused outside the program's reach): the program ends with it.
    finish({
      type: 'failed',
      error: plain(err),
      stopped: stopped ?? (/memory/i.test(String(err)) ? 'memory' : undefined),
    });
  }
}

/** What crosses to the hub of a dumped error: its name, message, stack and a tool error's code, as plain data. */
function plain(err) {
  if (err === null || typeof err !== 'object') return err ?? null;
  const { name, message, stack, code } = err;
  return { name, message: message === undefined ? undefined : String(message), stack, code };
}
