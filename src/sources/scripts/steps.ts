// The steps a compiled script yields — `auto`, `llm`, `callScript` — and the results it gets back.
// Public API (exported from `switchboard`); steps are plain tagged objects so a script's own copy of the package works.

/** Free-form data shown with a step (why it runs, what it is for); recorded in journals and cassettes. */
export type StepContext = Record<string, unknown>;

/** A step's context as the executor sees it: a JS step's object, or the sentence a mekara (Python) step carries. */
export type AnyStepContext = StepContext | string;

/** What an auto step may do with its environment when it is a function. */
export interface AutoFunctionContext {
  /** Where the step runs (`working_dir` of the script, the project directory by default). */
  cwd: string;
  /** Aborted when the call running the script is cancelled or times out. */
  signal: AbortSignal;
  /** Add text to the step's output (shown to the agent in the step's `<output>` block). */
  print(text: string): void;
}

export type AutoFunction = (args: any, ctx: AutoFunctionContext) => unknown | Promise<unknown>;

/** A command line run by `sh -c`: for constant commands that need the shell (pipes, `||`, globs). */
export interface AutoShellStep {
  readonly __switchboardStep: 'auto';
  readonly action: string;
  readonly context: AnyStepContext;
}

/** A program and its arguments, run without a shell: for any command that carries a value (a path, input, output). */
export interface AutoArgvStep {
  readonly __switchboardStep: 'auto';
  readonly action: readonly string[];
  readonly context: AnyStepContext;
}

export interface AutoCallStep {
  readonly __switchboardStep: 'auto';
  readonly action: AutoFunction;
  readonly args: Record<string, unknown>;
  readonly context: AnyStepContext;
}

export type AutoStep = AutoShellStep | AutoArgvStep | AutoCallStep;

export interface LlmStep {
  readonly __switchboardStep: 'llm';
  readonly prompt: string;
  /** Output name → what the agent must put there. */
  readonly expects: Record<string, string>;
}

export interface CallScriptStep {
  readonly __switchboardStep: 'call_script';
  readonly name: string;
  /** The nested script's arguments (its `$ARGUMENTS`). */
  readonly request: string;
  /** Where the nested script's auto steps run; the caller's working directory by default. */
  readonly workingDir?: string;
}

export type Step = AutoStep | LlmStep | CallScriptStep;

/** Result of a command auto step (shell or argv). A non-zero exit first goes to the agent, whose verdict sets `success`. */
export interface ShellResult {
  success: boolean;
  exit_code: number;
  /** stdout then stderr. */
  output: string;
  /** Present when the command failed and the agent resolved it: the outputs it reported. */
  outputs?: Record<string, unknown>;
}

/** Result of a function auto step (a function that throws never returns here: the script falls back instead). */
export interface CallResult {
  success: boolean;
  value: unknown;
  error: string | null;
  output: string;
}

export interface LlmResult {
  success: boolean;
  outputs: Record<string, unknown>;
}

export interface CallScriptResult {
  success: boolean;
  exception: string | null;
}

/**
 * A step that runs by itself: a program with its arguments (an array, run without a shell), a shell command (a
 * string, run with `sh -c`), or a function; commands run in the script's working directory. Put every value that
 * comes from outside the script's own text (arguments, paths, outputs, the model's answers) in an array: a
 * shell string built from one runs whatever the value says.
 *
 * @example
 * const d = yield auto(['git', 'diff', '--staged'], { why: 'the staged changes' }); // ShellResult
 * yield auto(['git', 'tag', `v${version}`]);                                        // no quoting needed
 * const r = yield auto('git status --short | wc -l', { why: 'count changes' });     // constant: the shell is fine
 * const v = yield auto(async ({ n }) => n * 2, { n: 21 }, { why: 'double it' });    // CallResult, v.value === 42
 */
export function auto(argv: readonly string[], context?: StepContext): AutoArgvStep;
export function auto(command: string, context?: StepContext): AutoShellStep;
export function auto(fn: AutoFunction, args?: Record<string, unknown>, context?: StepContext): AutoCallStep;
export function auto(
  action: string | readonly string[] | AutoFunction,
  argsOrContext: Record<string, unknown> = {},
  context: StepContext = {},
): AutoStep {
  if (typeof action === 'string') return { __switchboardStep: 'auto', action, context: argsOrContext };
  if (Array.isArray(action)) {
    if (action.length === 0 || !action.every((a) => typeof a === 'string'))
      throw new TypeError(
        `auto(argv) expects a non-empty array of strings (the program, then its arguments), got ${JSON.stringify(action)}.`,
      );
    return { __switchboardStep: 'auto', action: [...action], context: argsOrContext };
  }
  if (typeof action !== 'function')
    throw new TypeError(
      'auto(action) expects an array of strings (program and arguments), a shell command string or a function.',
    );
  return { __switchboardStep: 'auto', action, args: argsOrContext, context };
}

/** How an auto step is shown to the agent: the command line (an argv quoted as a shell would need), or `name(…)`. */
export function autoLabel(step: AutoStep): string {
  if (typeof step.action === 'string') return step.action;
  if (typeof step.action === 'function') return `${step.action.name || 'anonymous'}(…)`;
  return step.action.map(shellWord).join(' ');
}

/** One argument as a POSIX shell would read it back: bare when safe, else single-quoted. Display only. */
function shellWord(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

/**
 * A step only the model can do: the agent gets `prompt` and answers with `outputs` holding every `expects` key.
 *
 * @example
 * const { outputs } = yield llm('Write a commit message for the staged diff.', { expects: { message: 'the message' } });
 */
export function llm(prompt: string, opts: { expects?: Record<string, string> } = {}): LlmStep {
  if (typeof prompt !== 'string' || prompt.length === 0) throw new TypeError('llm(prompt) expects a non-empty prompt.');
  return { __switchboardStep: 'llm', prompt, expects: { ...(opts.expects ?? {}) } };
}

/**
 * Run another script (NL or compiled) as a nested frame; the parent continues when it completes.
 *
 * @example
 * const r = yield callScript('test:random');
 * if (!r.success) throw new Error(r.exception ?? 'failed');
 */
export function callScript(name: string, request = '', opts: { working_dir?: string } = {}): CallScriptStep {
  if (typeof name !== 'string' || name.length === 0) throw new TypeError('callScript(name) expects a script name.');
  return {
    __switchboardStep: 'call_script',
    name,
    request,
    ...(opts.working_dir ? { workingDir: opts.working_dir } : {}),
  };
}

/** Whether a yielded value is a step (checked by shape: scripts may carry their own copy of this module). */
export function isStep(value: unknown): value is Step {
  if (typeof value !== 'object' || value === null) return false;
  const kind = (value as { __switchboardStep?: unknown }).__switchboardStep;
  return kind === 'auto' || kind === 'llm' || kind === 'call_script';
}
