// The pull-based script executor: a stack of frames (compiled generator or NL script). It runs auto steps until
// a step needs the agent, a script ends, or the stack is empty; the pending state is computed from the top frame.
// Over 400 lines as one file: the frames, their step loop and their fallbacks are one state machine.
import { resolve } from 'node:path';
import { SwitchboardError } from '../../core/errors.ts';
import type { TraceContext, Tracer } from '../../core/trace-context.ts';
import { type AutoOutcome, type AutoRunner, autoInputs } from './auto-runner.ts';
import { openCompiled, type StepSource } from './compiled.ts';
import { loadNl } from './nl.ts';
import { PythonMissing } from './python.ts';
import { type ResolvedScript, resolveScript, type ScriptRoots } from './resolve.ts';
import { type AutoStep, autoLabel, type CallScriptStep, isStep, type LlmStep, type Step } from './steps.ts';

interface FrameBase {
  script: ResolvedScript;
  args: string;
  /** Where auto steps run (never used to resolve scripts). */
  workingDir: string;
}

export interface CompiledFrame extends FrameBase {
  kind: 'compiled';
  gen: StepSource;
  /** The step the generator yielded last and is waiting on. */
  step: Step | undefined;
  /** Index of `step` (0 for the first yield). */
  index: number;
  /** The NL source has been shown to the agent (it is shown once, the first time the model is needed). */
  contextShown: boolean;
  /** A shell step exited non-zero: the agent decides how to go on. */
  shellFailure?: { command: string; exit_code: number; output: string };
  /** An auto step threw (or the script itself did): the agent completes the script by hand. */
  fallback?: { where: string; exception: string };
  /** Replaying a journal ran out in this auto step: the hub stopped while it ran. */
  interrupted?: boolean;
}

export interface NlFrame extends FrameBase {
  kind: 'nl';
}

export type Frame = CompiledFrame | NlFrame;

/** A step that ran (or ended) since the last answer, with its own output. */
export interface ExecutedStep {
  where: string;
  ok: boolean;
  description: string;
  output?: string;
}

/** What the agent must do next; derived from the top frame each time it is asked. */
export type Pending =
  | { kind: 'none' }
  | { kind: 'llm'; frame: CompiledFrame; step: LlmStep }
  | { kind: 'shell_failure'; frame: CompiledFrame; failure: NonNullable<CompiledFrame['shellFailure']> }
  | { kind: 'fallback'; frame: CompiledFrame; fallback: NonNullable<CompiledFrame['fallback']> }
  | { kind: 'interrupted'; frame: CompiledFrame; step: AutoStep }
  | { kind: 'nl'; frame: NlFrame };

/** The expected outputs of a failed shell step. */
export const SHELL_FAILURE_EXPECTS = {
  success:
    'true when you resolved the failure so the script can go on as if the command had succeeded; false to let the script handle the failure',
};

/** Thrown by a replaying runner when the recorded results end inside an auto step. */
export class StepInterrupted extends Error {
  constructor() {
    super('the recorded results end inside this auto step');
    this.name = 'StepInterrupted';
  }
}

export interface ExecutorOptions {
  roots: ScriptRoots;
  runner: AutoRunner;
  /** Default working directory of scripts started without one. */
  projectDir: string;
  /**
   * A nested script's `working_dir` (relative to `base`, its caller's) as the real directory it names, throwing
   * when it is outside the workspace (live runs: src/core/confine.ts). Replaying a cassette runs nothing and leaves
   * it out.
   */
  confine?: (dir: string, base?: string) => string;
  /** Cap on a step's output kept for the answer (the script itself gets all of it). */
  maxShownOutput?: number;
  /** Environment of the Python runner of mekara scripts (its PATH finds `python3`); the hub's own by default. */
  pythonEnv?: NodeJS.ProcessEnv;
}

/** Where auto steps' spans go, with telemetry on: the tracer, and the span of the tool call that runs them. */
export interface StepTracing {
  tracer: Tracer;
  parent: TraceContext;
}

const MAX_STEPS_PER_CALL = 100_000;

/** Label of a frame in a stack trace: `test:random[1]` for compiled, `test:nl` for NL frames. */
export function frameLabel(frame: Frame): string {
  return frame.kind === 'compiled' ? `${frame.script.name}[${Math.max(frame.index, 0)}]` : frame.script.name;
}

function describeAuto(step: AutoStep): string {
  return `\`${autoLabel(step)}\``;
}

export class Executor {
  readonly stack: Frame[] = [];
  /** Steps executed since the last answer; an answer drains it. */
  executed: ExecutedStep[] = [];
  /** Set by the session for each tool call (a run's calls are queued, one at a time), when telemetry is on. */
  tracing?: StepTracing;
  /** A nested Python script found no `python3` (its caller fell back): a replay reports this, not a changed script. */
  pythonMissing?: PythonMissing;
  private readonly maxShown: number;

  constructor(private readonly opts: ExecutorOptions) {
    this.maxShown = opts.maxShownOutput ?? 8192;
  }

  get running(): boolean {
    return this.stack.length > 0;
  }

  /** The pending state, computed from the top frame. */
  pending(): Pending {
    const top = this.stack.at(-1);
    if (!top) return { kind: 'none' };
    if (top.kind === 'nl') return { kind: 'nl', frame: top };
    if (top.fallback) return { kind: 'fallback', frame: top, fallback: top.fallback };
    if (top.shellFailure) return { kind: 'shell_failure', frame: top, failure: top.shellFailure };
    const step = top.step;
    if (step?.__switchboardStep === 'llm') return { kind: 'llm', frame: top, step };
    if (top.interrupted && step?.__switchboardStep === 'auto') return { kind: 'interrupted', frame: top, step };
    // Auto and call steps never wait at rest; a frame without a step has just finished and is popped.
    return { kind: 'none' };
  }

  /** The stack as a trace, outermost first: `test:nested[0] > test:random[1]`. */
  trace(): string {
    return this.stack.map(frameLabel).join(' > ');
  }

  /** The NL source of a compiled frame, the first time the model needs it (then marked shown). */
  takeContext(frame: CompiledFrame): string | undefined {
    if (frame.contextShown) return undefined;
    frame.contextShown = true;
    return loadNl(frame.script.nlFile, frame.args);
  }

  nlText(frame: Frame): string {
    return loadNl(frame.script.nlFile, frame.args);
  }

  private resolve(name: string): ResolvedScript {
    const found = resolveScript(this.opts.roots, name);
    if (!found)
      throw new SwitchboardError(
        'NOT_FOUND',
        `No script named '${name}' in the project (.switchboard/scripts), the user scripts (~/.switchboard/scripts) or the bundled scripts. Call script__list to see which scripts exist.`,
      );
    return found;
  }

  /** Build a frame for a script (loading a compiled module); throws when it cannot be found or loaded. */
  private async frameFor(name: string, args: string, workingDir: string): Promise<Frame> {
    const script = this.resolve(name);
    if (!script.compiledFile) return { kind: 'nl', script, args, workingDir };
    const gen = await openCompiled(script.compiledFile, args, {
      env: this.opts.pythonEnv ?? process.env,
      cwd: this.opts.projectDir,
    });
    return { kind: 'compiled', script, args, workingDir, gen, step: undefined, index: -1, contextShown: false };
  }

  /**
   * Start a script: push its frame (on top of whatever runs: manual nesting) and run until the agent is needed.
   * A missing or unloadable script fails without touching the stack.
   */
  async start(name: string, args: string, workingDir: string | undefined, signal: AbortSignal): Promise<void> {
    const frame = await this.frameFor(name, args, workingDir ?? this.opts.projectDir);
    this.stack.push(frame);
    if (frame.kind === 'compiled') await this.resume(frame, undefined);
    await this.runUntilLlm(signal);
  }

  /** Check that continue_compiled_script fits the pending state; throws naming the right tool when it does not. */
  checkContinue(outputs: Record<string, unknown>): void {
    const p = this.pending();
    if (p.kind === 'nl' || p.kind === 'fallback')
      throw new SwitchboardError(
        'CONFLICT',
        `script__continue_compiled_script is for a pending step of a compiled script, but ${p.kind === 'nl' ? `the NL script '${p.frame.script.name}' is pending` : `the script '${p.frame.script.name}' fell back to its NL instructions`}. Complete the whole script as instructed, then call script__finish_nl_script instead.`,
      );
    if (p.kind === 'none')
      throw new SwitchboardError('CONFLICT', 'No script step is pending. Call script__start to run a script.');
    const expects = p.kind === 'llm' ? p.step.expects : p.kind === 'shell_failure' ? SHELL_FAILURE_EXPECTS : {};
    const missing = Object.keys(expects).filter((k) => !(k in outputs));
    if (missing.length)
      throw new SwitchboardError(
        'INVALID_INPUT',
        `outputs is missing ${missing.map((k) => `'${k}'`).join(', ')}; this step expects ${Object.keys(expects)
          .map((k) => `'${k}' (${expects[k as keyof typeof expects]})`)
          .join(', ')}.`,
        { missing },
      );
  }

  /** Resume after the agent did the pending compiled step. */
  async continueCompiled(outputs: Record<string, unknown>, signal: AbortSignal): Promise<void> {
    this.checkContinue(outputs);
    const p = this.pending();
    if (p.kind === 'llm') {
      this.executed.push({ where: frameLabel(p.frame), ok: true, description: 'LLM step completed' });
      await this.resume(p.frame, { success: true, outputs });
    } else if (p.kind === 'shell_failure') {
      const success = outputs.success === true || outputs.success === 'true';
      p.frame.shellFailure = undefined;
      this.executed.push({
        where: frameLabel(p.frame),
        ok: success,
        description: `failed command handed back to the script (${success ? 'resolved' : 'not resolved'})`,
      });
      await this.resume(p.frame, {
        success,
        exit_code: p.failure.exit_code,
        output: p.failure.output,
        outputs,
      });
    } else if (p.kind === 'interrupted') {
      // Run the interrupted step again: it never finished.
      p.frame.interrupted = false;
    }
    await this.runUntilLlm(signal);
  }

  checkFinish(): void {
    const p = this.pending();
    if (p.kind === 'llm' || p.kind === 'shell_failure' || p.kind === 'interrupted')
      throw new SwitchboardError(
        'CONFLICT',
        `script__finish_nl_script ends a whole NL script, but a single step of the compiled script '${p.frame.script.name}' is pending. Do that step, then call script__continue_compiled_script with its outputs instead.`,
      );
    if (p.kind === 'none')
      throw new SwitchboardError('CONFLICT', 'No NL script is pending. Call script__start to run a script.');
  }

  /** The agent completed a whole NL script (or a compiled one that fell back to its NL instructions). */
  async finishNl(signal: AbortSignal): Promise<void> {
    this.checkFinish();
    const frame = this.stack.pop() as Frame;
    if (frame.kind === 'nl') {
      this.executed.push({ where: frame.script.name, ok: true, description: 'NL script completed' });
      await this.returnToParent({ success: true, exception: null }, frame);
    } else {
      // The generator stays suspended at its failed step: end it so its `finally` blocks run.
      await frame.gen.close();
      this.executed.push({
        where: frameLabel(frame),
        ok: false,
        description: 'completed by hand after the failure; the script counts as failed',
      });
      await this.returnToParent({ success: false, exception: frame.fallback?.exception ?? 'failed' }, frame);
    }
    await this.runUntilLlm(signal);
  }

  /**
   * A frame ended (already popped). A parent that called it with callScript goes on by itself (or halts when it
   * failed); a parent that was waiting on the agent (manual start) shows its pending step again.
   */
  private async returnToParent(result: { success: boolean; exception: string | null }, child: Frame): Promise<void> {
    const parent = this.stack.at(-1);
    if (parent?.kind !== 'compiled' || parent.step?.__switchboardStep !== 'call_script') return;
    // A script started by hand on top of a halted parent leaves the parent halted.
    if (parent.fallback || parent.shellFailure) return;
    if (result.success) await this.resume(parent, result);
    else
      this.halt(
        parent,
        `The call to script \`${child.script.name}\` failed.${result.exception ? ` ${result.exception}` : ''}`,
      );
  }

  private halt(frame: CompiledFrame, exception: string): void {
    frame.fallback = { where: frameLabel(frame), exception };
  }

  /** Feed the generator and take its next step; a throw or a non-step switches the frame to fallback. */
  private async resume(frame: CompiledFrame, value: unknown): Promise<void> {
    let r: IteratorResult<unknown, unknown>;
    try {
      r = await frame.gen.next(value);
    } catch (err) {
      const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      this.executed.push({ where: frameLabel(frame), ok: false, description: `the script raised ${message}` });
      this.halt(frame, message);
      return;
    }
    if (r.done) {
      frame.step = undefined;
      this.stack.pop();
      this.executed.push({ where: frame.script.name, ok: true, description: 'script completed' });
      await this.returnToParent({ success: true, exception: null }, frame);
      return;
    }
    frame.index++;
    if (!isStep(r.value)) {
      this.halt(frame, `The script yielded ${typeof r.value}, not a step made with auto(), llm() or callScript().`);
      return;
    }
    frame.step = r.value;
  }

  /** Run auto and call steps until the top frame needs the agent or the stack is empty. */
  private async runUntilLlm(signal: AbortSignal): Promise<void> {
    for (let guard = 0; guard < MAX_STEPS_PER_CALL; guard++) {
      const top = this.stack.at(-1);
      if (!top || top.kind === 'nl' || top.fallback || top.shellFailure || top.interrupted) return;
      const step = top.step;
      if (!step || step.__switchboardStep === 'llm') return;
      if (step.__switchboardStep === 'auto') await this.runAuto(top, step, signal);
      else await this.callNested(top, step);
    }
    throw new SwitchboardError('INTERNAL', `A script ran more than ${MAX_STEPS_PER_CALL} steps in one call.`);
  }

  private async runAuto(frame: CompiledFrame, step: AutoStep, signal: AbortSignal): Promise<void> {
    const inputs = autoInputs(step);
    const span = this.tracing?.tracer.start(`script step ${frame.script.name}`, this.tracing.parent, {
      'switchboard.script.name': frame.script.name,
      'switchboard.script.step': frameLabel(frame),
      'switchboard.script.step.kind': inputs.action_type,
      'switchboard.script.step.action': autoLabel(step).slice(0, 200),
    });
    let outcome: AutoOutcome;
    try {
      outcome = await this.opts.runner.run({
        workingDir: frame.workingDir,
        inputs,
        fn: typeof step.action === 'function' ? step.action : undefined,
        args: 'args' in step ? step.args : undefined,
        signal,
        ...(span ? { trace: span.trace } : {}),
      });
    } catch (err) {
      span?.end(err instanceof StepInterrupted ? 'interrupted' : 'exception');
      if (err instanceof StepInterrupted) {
        frame.interrupted = true;
        return;
      }
      throw err;
    }
    if (span) {
      const failed = outcome.kind === 'exception' || (outcome.kind === 'shell' && outcome.exit_code !== 0);
      span.set({ 'process.exit.code': outcome.kind === 'shell' ? outcome.exit_code : undefined });
      span.end(failed ? (outcome.kind === 'exception' ? 'exception' : 'nonzero_exit') : undefined);
    }
    const where = frameLabel(frame);
    const output = this.shown(outcome.output);
    if (outcome.kind === 'exception') {
      this.executed.push({
        where,
        ok: false,
        description: `${describeAuto(step)} raised ${outcome.exception}`,
        output,
      });
      this.halt(frame, outcome.exception);
      return;
    }
    if (outcome.kind === 'shell') {
      const ok = outcome.exit_code === 0;
      this.executed.push({
        where,
        ok,
        description: ok ? describeAuto(step) : `${describeAuto(step)} exited with ${outcome.exit_code}`,
        output,
      });
      if (!ok) {
        frame.shellFailure = { command: autoLabel(step), exit_code: outcome.exit_code, output: outcome.output };
        return;
      }
      await this.resume(frame, { success: true, exit_code: 0, output: outcome.output });
      return;
    }
    this.executed.push({ where, ok: true, description: describeAuto(step), output });
    await this.resume(frame, { success: true, value: outcome.value, error: null, output: outcome.output });
  }

  private async callNested(parent: CompiledFrame, step: CallScriptStep): Promise<void> {
    let child: Frame;
    try {
      // A relative working_dir is relative to the caller's.
      const asked = step.workingDir;
      const dir = asked
        ? (this.opts.confine?.(asked, parent.workingDir) ?? resolve(parent.workingDir, asked))
        : parent.workingDir;
      child = await this.frameFor(step.name, step.request ?? '', dir);
    } catch (err) {
      if (err instanceof PythonMissing) this.pythonMissing = err;
      this.executed.push({
        where: frameLabel(parent),
        ok: false,
        description: `callScript('${step.name}') failed: ${(err as Error).message}`,
      });
      this.halt(parent, `The call to script \`${step.name}\` failed. ${(err as Error).message}`);
      return;
    }
    this.stack.push(child);
    if (child.kind === 'compiled') await this.resume(child, undefined);
  }

  /** End every script on the stack (the run leaves memory): Python children exit, `finally` blocks run. */
  async dispose(): Promise<void> {
    for (const frame of this.stack.splice(0).reverse()) if (frame.kind === 'compiled') await frame.gen.close();
  }

  private shown(output: string): string {
    return output.length > this.maxShown
      ? `${output.slice(0, this.maxShown)}\n[… ${output.length - this.maxShown} more characters not shown]`
      : output;
  }
}
