// Runs auto steps: the executor hands each one to an AutoRunner, which either runs it for real (commands through
// core/process in their own process group, functions in-process) or replays a recorded result.
import { argv } from '../../core/argv.ts';
import { runProcess } from '../../core/process.ts';
import { type TraceContext, traceFields } from '../../core/trace-context.ts';
import type { AutoFunction, AutoStep } from './steps.ts';

/**
 * What identifies an auto step in journals and cassettes: a shell command line, a program with its arguments
 * (`argv`, added later: older recordings hold only `shell` and `call`), or a function by name with its arguments.
 */
export type AutoInputs = (
  | { action_type: 'shell'; action: string }
  | { action_type: 'argv'; action: string[] }
  | { action_type: 'call'; action: string }
) & {
  /** A JS step's context object, or the context sentence of a mekara (Python) step. */
  context: Record<string, unknown> | string;
  kwargs: Record<string, unknown>;
};

/** An auto step's recorded result. `exception` means it threw (or could not run): the script falls back. */
export type AutoOutcome =
  | { kind: 'shell'; exit_code: number; output: string }
  | { kind: 'call'; value: unknown; output: string }
  | { kind: 'exception'; exception: string; output: string };

/**
 * Plain JSON of a step's context or arguments, as journals and cassettes keep them. What JSON cannot hold (a
 * BigInt, a cycle) becomes a string instead of failing the step; the function itself still gets the original.
 */
function jsonOf<T extends Record<string, unknown> | string>(value: T | undefined): T | Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value === 'string') return value;
  try {
    return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))) ?? {};
  } catch (err) {
    return { unserialisable: (err as Error).message };
  }
}

/** What identifies an auto step in journals and cassettes. */
export function autoInputs(step: AutoStep): AutoInputs {
  const context = jsonOf(step.context);
  if (typeof step.action === 'string') return { action_type: 'shell', action: step.action, context, kwargs: {} };
  if (typeof step.action !== 'function') return { action_type: 'argv', action: [...step.action], context, kwargs: {} };
  return {
    action_type: 'call',
    action: step.action.name || 'anonymous',
    context,
    kwargs: jsonOf('args' in step ? step.args : undefined) as Record<string, unknown>,
  };
}

/** One auto step to run: its identity, where, and (for functions) the code itself. */
export interface AutoRequest {
  workingDir: string;
  inputs: AutoInputs;
  fn?: AutoFunction;
  /** The function's arguments as the script gave them (`inputs.kwargs` is their JSON form, for the record). */
  args?: Record<string, unknown>;
  signal: AbortSignal;
  /** The step's span (telemetry on): a command gets it as TRACEPARENT, as a plugin hook's does. */
  trace?: TraceContext;
}

export interface AutoRunner {
  run(request: AutoRequest): Promise<AutoOutcome>;
}

export interface LiveRunnerOptions {
  /** Environment for shell steps. */
  env: Record<string, string>;
  /** Time limit of one shell step. */
  stepTimeoutMs: number;
  /** Cap on a step's captured output, in bytes. */
  maxOutputBytes: number;
}

/**
 * Runs steps for real. A command runs in the working directory, in its own process group: an argv step as the
 * program with its arguments, a shell step as `sh -c <command>`.
 */
export class LiveRunner implements AutoRunner {
  constructor(private readonly opts: LiveRunnerOptions) {}

  async run(req: AutoRequest): Promise<AutoOutcome> {
    if (req.inputs.action_type !== 'call') {
      // The script's author wrote the command (its own program and words, or a line for sh).
      const [program, args] =
        req.inputs.action_type === 'argv'
          ? [req.inputs.action[0], argv().operator(req.inputs.action.slice(1)).build()]
          : ['sh', argv().flag('-c').operands(req.inputs.action).build()];
      try {
        const r = await runProcess(program, args, {
          signal: req.signal,
          cwd: req.workingDir,
          env: req.trace
            ? { ...this.opts.env, ...traceFields(req.trace, { parent: 'TRACEPARENT', state: 'TRACESTATE' }) }
            : this.opts.env,
          timeoutMs: this.opts.stepTimeoutMs,
          maxOutputBytes: this.opts.maxOutputBytes,
        });
        let output = r.stdout + r.stderr;
        if (r.timedOut) output += `\n[timed out after ${this.opts.stepTimeoutMs} ms]`;
        if (r.truncated) output += `\n[output cut at ${this.opts.maxOutputBytes} bytes]`;
        return { kind: 'shell', exit_code: r.exitCode, output };
      } catch (err) {
        return { kind: 'exception', exception: (err as Error).message ?? String(err), output: '' };
      }
    }
    const printed: string[] = [];
    try {
      if (!req.fn) throw new Error(`auto step '${req.inputs.action}' has no function to call`);
      const value = await req.fn(req.args ?? req.inputs.kwargs, {
        cwd: req.workingDir,
        signal: req.signal,
        print: (text) => printed.push(String(text)),
      });
      // Results are journalled and recorded: keep them to what JSON can hold.
      return {
        kind: 'call',
        value: value === undefined ? null : JSON.parse(JSON.stringify(value)),
        output: printed.join(''),
      };
    } catch (err) {
      const e = err as Error;
      return {
        kind: 'exception',
        exception: e instanceof Error ? `${e.name}: ${e.message}` : String(err),
        output: printed.join(''),
      };
    }
  }
}
