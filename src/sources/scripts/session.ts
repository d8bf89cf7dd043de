// One run's tool surface: start / continue_compiled_script / finish_nl_script / status over one executor, with
// every tool input, auto step and output sent to the recorders (journal, cassette). The same code runs live and
// in replay, so a replay checks exactly what a live run does.
import { SwitchboardError } from '../../core/errors.ts';
import type { AutoOutcome, AutoRequest, AutoRunner } from './auto-runner.ts';
import type { EventSink, ScriptEvent } from './events.ts';
import { Executor, type StepTracing } from './executor.ts';
import { type Answer, formatAnswer, formatPending } from './format.ts';
import type { ScriptRoots } from './resolve.ts';

export const RUN_TOOLS = [
  'script__start',
  'script__continue_compiled_script',
  'script__finish_nl_script',
  'script__status',
] as const;
export type RunTool = (typeof RUN_TOOLS)[number];

/** Passes auto steps to the real runner and reports each with its result. */
class RecordingRunner implements AutoRunner {
  constructor(
    public inner: AutoRunner,
    private readonly sinks: () => readonly EventSink[],
  ) {}
  async run(req: AutoRequest): Promise<AutoOutcome> {
    const result = await this.inner.run(req);
    const event: ScriptEvent = {
      type: 'auto_step',
      working_dir: req.workingDir,
      inputs: JSON.parse(JSON.stringify(req.inputs)),
      result,
    };
    for (const sink of this.sinks()) await sink(event);
    return result;
  }
}

export interface SessionOptions {
  roots: ScriptRoots;
  projectDir: string;
  /** See ExecutorOptions.confine. */
  confine?: (dir: string, base?: string) => string;
  runner: AutoRunner;
  /** See ExecutorOptions.pythonEnv. */
  pythonEnv?: NodeJS.ProcessEnv;
}

function str(input: Record<string, unknown>, key: string): string | undefined {
  const v = input[key];
  return typeof v === 'string' ? v : undefined;
}

/**
 * An executor plus its tool surface. `dispatch` answers a tool call; `call` does the same and records it.
 *
 * @example
 * const s = new ScriptSession({ roots, projectDir, runner });
 * const a = await s.call('script__start', { name: 'test:random' }, signal);
 */
export class ScriptSession {
  readonly executor: Executor;
  /** Recorders: the run journal, a VCR cassette. Status calls go to those that want them (`all`). */
  private readonly sinks: { sink: EventSink; all: boolean }[] = [];
  private readonly runner: RecordingRunner;

  constructor(opts: SessionOptions) {
    this.runner = new RecordingRunner(opts.runner, () => this.sinks.map((s) => s.sink));
    this.executor = new Executor({
      roots: opts.roots,
      runner: this.runner,
      projectDir: opts.projectDir,
      ...(opts.confine ? { confine: opts.confine } : {}),
      ...(opts.pythonEnv ? { pythonEnv: opts.pythonEnv } : {}),
    });
  }

  /** Switch the runner (a run rebuilt from its journal goes on with real steps). */
  useRunner(runner: AutoRunner): void {
    this.runner.inner = runner;
  }

  /** Add a recorder; `all` also records status calls (a cassette), otherwise only calls that change the run. */
  record(sink: EventSink, opts: { all?: boolean } = {}): void {
    this.sinks.push({ sink, all: opts.all ?? false });
  }

  /**
   * Answer one tool call (no recording). `runId` is given for a client without a session, whose suggested next
   * calls must name the run.
   */
  async dispatch(tool: string, input: Record<string, unknown>, signal: AbortSignal, runId?: string): Promise<Answer> {
    const ex = this.executor;
    switch (tool) {
      case 'script__start': {
        const name = str(input, 'name');
        if (!name) throw new SwitchboardError('INVALID_INPUT', 'name: expected the script name, e.g. "test:random".');
        await ex.start(name, str(input, 'arguments') ?? '', str(input, 'working_dir'), signal);
        return formatAnswer(ex, runId);
      }
      case 'script__continue_compiled_script': {
        const outputs = input.outputs;
        if (!outputs || typeof outputs !== 'object' || Array.isArray(outputs))
          throw new SwitchboardError(
            'INVALID_INPUT',
            "outputs: expected an object of the step's expected outputs ({} when it expects none).",
          );
        await ex.continueCompiled(outputs as Record<string, unknown>, signal);
        return formatAnswer(ex, runId);
      }
      case 'script__finish_nl_script':
        await ex.finishNl(signal);
        return formatAnswer(ex, runId);
      case 'script__status': {
        const pending = formatPending(ex, false, runId);
        return ex.running ? { ...pending, text: `Stack: \`${ex.trace()}\`\n\n${pending.text}` } : pending;
      }
      default:
        throw new SwitchboardError(
          'NOT_FOUND',
          `'${tool}' is not a script run tool; expected one of ${RUN_TOOLS.join(', ')}.`,
        );
    }
  }

  /** Answer a tool call and record its input, its auto steps and its output; `tracing`: its steps' spans. */
  async call(
    tool: RunTool,
    input: Record<string, unknown>,
    signal: AbortSignal,
    runId?: string,
    tracing?: StepTracing,
  ): Promise<Answer> {
    const sinks = this.sinks.filter((s) => s.all || tool !== 'script__status').map((s) => s.sink);
    for (const sink of sinks) await sink({ type: 'mcp_tool_input', tool, input });
    this.executor.tracing = tracing;
    try {
      const answer = await this.dispatch(tool, input, signal, runId);
      for (const sink of sinks) await sink({ type: 'mcp_tool_output', tool, output: answer.text });
      return answer;
    } catch (err) {
      for (const sink of sinks)
        await sink({ type: 'mcp_tool_output', tool, output: (err as Error).message, is_error: true });
      throw err;
    } finally {
      this.executor.tracing = undefined;
    }
  }
}
