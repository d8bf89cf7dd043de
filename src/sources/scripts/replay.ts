// Replays recorded events through the real executor: auto steps get their recorded results (nothing runs), tool
// inputs are fed again and outputs compared. Used by VCR replay (strict) and by journal restore after a restart.
import { SwitchboardError } from '../../core/errors.ts';
import type { AutoOutcome, AutoRequest, AutoRunner } from './auto-runner.ts';
import { describeAuto, describeEvent, type ScriptEvent, stableJson } from './events.ts';
import { StepInterrupted } from './executor.ts';
import { PythonMissing } from './python.ts';
import type { ScriptSession } from './session.ts';

/**
 * `vcr`: a Switchboard cassette, outputs compared exactly. `mekara`: a mekara cassette, whose outputs are mekara's
 * wording: each is checked for what it says is pending (LLM step, NL script, fallback, the end) and where on the
 * stack, while its auto steps are compared exactly. `journal`: rebuilding a run after a restart.
 */
export type ReplayMode = 'vcr' | 'mekara' | 'journal';

/** A recording that does not match what the executor does now. */
export class ReplayMismatch extends SwitchboardError {
  constructor(mode: ReplayMode, index: number, expected: ScriptEvent | undefined, actual: string) {
    super(
      'CONFLICT',
      mode !== 'journal'
        ? `VCR replay mismatch at event ${index + 1}${mode === 'mekara' ? ' of a mekara cassette' : ''}.\nExpected: ${describeEvent(expected)}\nActual: ${actual}\nThe scripts or the executor changed since the cassette was recorded: re-record the cassette.`
        : `The run's replay diverged from its journal at entry ${index + 1}.\nJournal: ${describeEvent(expected)}\nNow: ${actual}\nThe script changed since the run started, so it cannot be continued; start it again.`,
      { index, expected: expected ?? null },
    );
    this.name = 'ReplayMismatch';
  }
}

/** A read position over recorded events, shared by the replay driver and the replaying runner. */
export class ReplayCursor {
  index = 0;
  /** Whether outputs carry `is_error` (a mekara-format cassette Switchboard wrote has no place for it). */
  readonly errorFlags: boolean;
  constructor(
    readonly events: readonly ScriptEvent[],
    readonly mode: ReplayMode,
    opts: { errorFlags?: boolean } = {},
  ) {
    this.errorFlags = opts.errorFlags ?? true;
  }
  peek(): ScriptEvent | undefined {
    return this.events[this.index];
  }
  next(): ScriptEvent | undefined {
    return this.events[this.index++];
  }
  mismatch(expected: ScriptEvent | undefined, actual: string, at = this.index): ReplayMismatch {
    return new ReplayMismatch(this.mode, at, expected, actual);
  }
}

/** An AutoRunner that answers from the recording and never runs a command or calls a function. */
export class ReplayRunner implements AutoRunner {
  constructor(private readonly cursor: ReplayCursor) {}

  async run(req: AutoRequest): Promise<AutoOutcome> {
    const at = this.cursor.index;
    const event = this.cursor.peek();
    // A journal that ends inside a step: the hub stopped while it ran.
    if (!event && this.cursor.mode === 'journal') throw new StepInterrupted();
    // Compared as JSON, the form they were recorded in (the working directory is not compared: it may be gone).
    const inputs = JSON.parse(JSON.stringify(req.inputs));
    if (event?.type !== 'auto_step' || stableJson(event.inputs) !== stableJson(inputs))
      throw this.cursor.mismatch(event, describeAuto(inputs), at);
    this.cursor.next();
    return event.result;
  }
}

/**
 * Feed every recorded tool input to `session` in order, checking each output. `vcr`: outputs must match
 * exactly and every auto step must be consumed. `journal`: outputs are compared by tool and error flag only
 * (the text may mention files that changed), and a recording that stops mid-call leaves that step interrupted.
 * Throws PythonMissing, not a mismatch, when a compiled Python script cannot start for want of `python3`.
 */
export async function replayEvents(session: ScriptSession, cursor: ReplayCursor, signal: AbortSignal): Promise<number> {
  let calls = 0;
  for (;;) {
    const at = cursor.index;
    const event = cursor.next();
    if (!event) return calls;
    if (event.type !== 'mcp_tool_input')
      throw cursor.mismatch(event, 'the next MCP tool call (the executor asked for nothing more)', at);
    calls++;
    let text: string;
    let state: string | undefined;
    let isError = false;
    try {
      ({ text, state } = await session.dispatch(event.tool, event.input, signal));
    } catch (err) {
      if (err instanceof ReplayMismatch || err instanceof PythonMissing) throw err;
      text = (err as Error).message;
      isError = true;
    }
    // A missing interpreter makes the replay take another path than the recording: say what is missing instead.
    if (session.executor.pythonMissing) throw session.executor.pythonMissing;
    const outAt = cursor.index;
    const out = cursor.next();
    const actual = `mcp_tool_output ${event.tool}${isError ? ' (error)' : ''}:\n${text}`;
    if (!out) {
      if (cursor.mode === 'journal') return calls;
      throw cursor.mismatch(undefined, actual, outAt);
    }
    if (
      out.type !== 'mcp_tool_output' ||
      out.tool !== event.tool ||
      (cursor.errorFlags && Boolean(out.is_error) !== isError)
    )
      throw cursor.mismatch(out, actual, outAt);
    if (cursor.mode === 'vcr' && out.output !== text) throw cursor.mismatch(out, actual, outAt);
    if (cursor.mode === 'mekara' && !isError) {
      const differs = mekaraOutputDiffers(out.output, state, session.executor.trace());
      if (differs) throw cursor.mismatch(out, `${actual}\n(${differs})`, outAt);
    }
  }
}

/**
 * What a mekara tool output says is pending, compared with Switchboard's answer: undefined when they agree.
 * mekara writes `## LLM Step N in \`name\`` (with `**Stack:** \`…\`` when nested), `## Natural Language Script:`,
 * `## Exception in Compiled Script:` and `## All Steps Completed`; its stack trace has Switchboard's form.
 */
export function mekaraOutputDiffers(output: string, state: string | undefined, trace: string): string | undefined {
  const stack = /\*\*Stack:\*\* `([^`]+)`/.exec(output)?.[1];
  const llm = /^## LLM Step (?:(\d+) in `([^`]+)`|in `([^`]+)` \(step (\d+)\))/m.exec(output);
  const nl = /^## Natural Language Script: `([^`]+)`/m.exec(output);
  let expected: { states: string[]; trace?: string } | undefined;
  if (/^## All Steps Completed/m.test(output)) expected = { states: ['finished'], trace: '' };
  else if (/^## Exception in Compiled Script/m.test(output)) expected = { states: ['fallback'] };
  else if (nl) expected = { states: ['nl'] };
  else if (llm)
    expected = {
      // mekara hands a failed command to the model as an LLM step too.
      states: ['llm', 'shell_failure'],
      trace: stack ?? (llm[1] ? `${llm[2]}[${llm[1]}]` : undefined),
    };
  if (!expected) return undefined;
  if (!expected.states.includes(state ?? ''))
    return `mekara's output shows a pending ${expected.states[0]} state; Switchboard's is ${state ?? 'none'}`;
  if (nl && !trace.endsWith(nl[1])) return `mekara's pending NL script is ${nl[1]}; Switchboard's stack is ${trace}`;
  if (expected.trace !== undefined && expected.trace !== trace)
    return `mekara's stack is \`${expected.trace}\`; Switchboard's is \`${trace}\``;
  return undefined;
}
