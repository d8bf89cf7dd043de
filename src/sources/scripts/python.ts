// Compiled mekara scripts (Python generators) as StepSources: each frame gets its own `python3` child running
// bundled/python/switchboard_runner.py, which provides mekara's script API (`mekara.scripting.runtime`) and
// answers one JSON line per request (the protocol is described at the top of that file). The executor drives
// it exactly like a JS generator, so the stack, journal replay after a restart and cassettes work unchanged:
// replaying starts a fresh child and feeds it the recorded results.
import type { ChildProcess } from 'node:child_process';
import { basename, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { argv } from '../../core/argv.ts';
import { SwitchboardError } from '../../core/errors.ts';
import { packageRoot } from '../../core/module-loader.ts';
import { killChildGroup, runProcess, startChild } from '../../core/process.ts';
import type { StepSource } from './compiled.ts';
import type { AutoFunctionContext, Step } from './steps.ts';

/** The runner shipped in the package. */
export function pythonRunnerPath(): string {
  return join(packageRoot() ?? process.cwd(), 'bundled', 'python', 'switchboard_runner.py');
}

type Reply = { type: string } & Record<string, any>;

/** The oldest Python mekara's scripts run on (they write `float | None` in signatures). */
const MIN_PYTHON: [number, number] = [3, 10];

const interpreters = new Map<string, Promise<string>>();

/**
 * No usable `python3` for a compiled mekara script: the machine lacks what the script needs, the script is as it
 * was. Replays (a run rebuilt after a restart, a cassette) pass it on as it is instead of reporting a changed script.
 */
export class PythonMissing extends SwitchboardError {
  /** "needs `python3` (3.10 or later) on the PATH of Switchboard, but there is none (PATH=…)". */
  readonly problem: string;
  constructor(
    readonly file: string,
    /** What was found instead: "there is none", "python3 (/usr/bin/python3) is 3.8", … */
    found: string,
    /** The PATH `python3` was looked for on. */
    searched: string,
  ) {
    const problem = `needs \`python3\` (${MIN_PYTHON.join('.')} or later) on the PATH of Switchboard, but ${found} (PATH=${searched})`;
    super(
      'UNAVAILABLE',
      `The compiled script ${file} is a Python script (mekara's format) and ${problem}. Install Python 3, or delete or rename the .py file so the script runs from its NL instructions.`,
      { file, interpreter: 'python3', path: searched },
    );
    this.problem = problem;
  }
}

/**
 * The interpreter `python3` names on this PATH, asked once per PATH: `python3` is often a version manager's
 * shim (pyenv) that takes seconds to start, and every compiled frame starts a runner. Rejects with PythonMissing
 * naming `file` when there is no `python3` or it is older than 3.10.
 */
function interpreterFor(env: NodeJS.ProcessEnv, file: string): Promise<string> {
  const key = env.PATH ?? '';
  let found = interpreters.get(key);
  if (!found) {
    const ask = 'import sys; print(sys.executable); print(sys.version_info[0], sys.version_info[1])';
    found = runProcess('python3', argv().flag('-c').flag(ask).build(), {
      signal: new AbortController().signal,
      env: definedOnly(env),
      timeoutMs: 30_000,
    }).then((r) => {
      const [exe, version] = r.stdout.trim().split('\n');
      const [major, minor] = (version ?? '').split(' ').map(Number);
      if (r.exitCode !== 0 || !exe) throw new Error(r.stderr.trim() || 'python3 did not say where it is');
      if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1]))
        throw new Error(`python3 (${exe}) is ${major}.${minor}`);
      return exe;
    });
    interpreters.set(key, found);
    found.catch(() => interpreters.delete(key));
  }
  return found.catch((err: Error) => {
    throw new PythonMissing(file, /\bENOENT\b/.test(err.message) ? 'there is none' : err.message.trim(), key);
  });
}

/** The variables of `env` that are set (a child's environment holds no `undefined`). */
function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

/** An exception the Python script raised, named as Python names it (`RuntimeError: …` in answers). */
class PythonException extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

const STDERR_KEPT = 4000;

/** One `python3` runner process: a request is one line out, its answer one line back, one at a time. */
class RunnerProcess {
  private readonly child: ChildProcess & { stdin: Writable; stdout: Readable; stderr: Readable };
  private readonly replies: Reply[] = [];
  private waiter?: { resolve: (r: Reply) => void; reject: (e: Error) => void };
  private failure?: Error;
  private stderr = '';
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly file: string,
    python: string,
    env: NodeJS.ProcessEnv,
    cwd: string,
  ) {
    this.child = startChild(python, argv().flag('-u').nonOption(pythonRunnerPath()).build(), {
      env,
      cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    }) as RunnerProcess['child'];
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
    this.child.stderr.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-STDERR_KEPT);
    });
    this.child.stdin.on('error', () => {}); // A child that died is reported by 'exit'.
    this.child.on('error', (err) => this.fail(new Error(`the Python runner of ${file} did not start: ${err.message}`)));
    this.child.on('exit', (code, signal) =>
      this.fail(
        new Error(
          `the Python runner of ${file} exited (${signal ?? `code ${code}`})${this.stderr.trim() ? `: ${this.stderr.trim()}` : ''}`,
        ),
      ),
    );
    this.idle();
  }

  private onLine(line: string): void {
    let reply: Reply;
    try {
      reply = JSON.parse(line);
    } catch {
      this.fail(new Error(`the Python runner of ${this.file} wrote a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    const w = this.waiter;
    this.waiter = undefined;
    if (w) w.resolve(reply);
    else this.replies.push(reply);
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(this.failure);
  }

  /** A child waiting for its next request must not keep Switchboard (or `vcr replay`) alive. */
  private idle(): void {
    this.child.unref();
    for (const s of [this.child.stdin, this.child.stdout, this.child.stderr])
      (s as unknown as { unref?(): void }).unref?.();
  }

  private busy(): void {
    this.child.ref();
    (this.child.stdout as unknown as { ref?(): void }).ref?.();
  }

  /** Send one request and wait for its answer (requests queue, one in flight). */
  request(message: Record<string, unknown>): Promise<Reply> {
    const run = async (): Promise<Reply> => {
      if (this.failure) throw this.failure;
      this.busy();
      try {
        const reply = new Promise<Reply>((resolve, reject) => {
          const queued = this.replies.shift();
          if (queued) resolve(queued);
          else this.waiter = { resolve, reject };
        });
        this.child.stdin.write(`${JSON.stringify(message)}\n`);
        return await reply;
      } finally {
        this.idle();
      }
    };
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => {});
    return result;
  }

  /** Ask the runner to end the script and exit; kill it when it does not answer. */
  async close(): Promise<void> {
    if (this.failure || this.child.exitCode !== null) return;
    const killer = setTimeout(() => killChildGroup(this.child, 'SIGKILL'), 2000);
    killer.unref();
    await this.request({ op: 'close' }).catch(() => {});
    clearTimeout(killer);
  }
}

function named<T extends (...args: any[]) => unknown>(name: string, fn: T): T {
  Object.defineProperty(fn, 'name', { value: name });
  return fn;
}

/** A step the runner described, as the executor's step object. A function step calls back into the runner. */
function toStep(raw: Record<string, any>, runner: RunnerProcess): Step {
  switch (raw.kind) {
    case 'auto': {
      const context = typeof raw.context === 'string' ? raw.context : '';
      if (raw.action_type === 'shell') return { __switchboardStep: 'auto', action: String(raw.action), context };
      const call = named(String(raw.action), async (_args: unknown, ctx: AutoFunctionContext) => {
        const r = await runner.request({ op: 'call', cwd: ctx.cwd });
        if (r.output) ctx.print(String(r.output));
        if (r.type !== 'called') throw new PythonException(String(r.name ?? 'Error'), String(r.message ?? ''));
        return r.value;
      });
      return { __switchboardStep: 'auto', action: call, args: raw.kwargs ?? {}, context };
    }
    case 'llm':
      return { __switchboardStep: 'llm', prompt: String(raw.prompt), expects: raw.expects ?? {} };
    case 'call_script':
      return {
        __switchboardStep: 'call_script',
        name: String(raw.name),
        request: String(raw.request ?? ''),
        ...(raw.working_dir ? { workingDir: String(raw.working_dir) } : {}),
      };
    default:
      throw new PythonException('TypeError', String(raw.message ?? `unknown step ${JSON.stringify(raw)}`));
  }
}

/**
 * Start a compiled mekara script: a runner child loads the file and calls `execute(request)`. Throws
 * INVALID_INPUT naming the file when it does not load, PythonMissing (UNAVAILABLE) when there is no `python3`.
 *
 * @example
 * const steps = await startPythonScript('/p/.mekara/scripts/compiled/test/random.py', '', process.env, '/p');
 * const first = await steps.next(undefined); // { done: false, value: { __switchboardStep: 'auto', … } }
 */
export async function startPythonScript(
  file: string,
  request: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<StepSource> {
  const shown = relative(cwd, file) || file;
  const runner = new RunnerProcess(shown, await interpreterFor(env, shown), env, cwd);
  const started = await runner
    .request({ op: 'start', file, name: basename(file, '.py'), request })
    .catch(async (err) => {
      await runner.close();
      throw err;
    });
  if (started.type !== 'ready') {
    await runner.close();
    throw new SwitchboardError(
      'INVALID_INPUT',
      `Compiled script ${file} failed to load: ${started.message ?? JSON.stringify(started)}`,
    );
  }
  return {
    async next(value) {
      const r = await runner.request({ op: 'next', value: value ?? null });
      if (r.type === 'done') {
        await runner.close();
        return { done: true, value: undefined };
      }
      if (r.type === 'raised') throw new PythonException(String(r.name), String(r.message));
      if (r.type !== 'step') throw new Error(`the Python runner answered ${JSON.stringify(r).slice(0, 200)}`);
      return { done: false, value: toStep(r.step, runner) };
    },
    close: () => runner.close(),
  };
}
