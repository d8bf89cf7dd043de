// Answers of the script tools: the steps executed since the last answer (each with its own indented `<output>`
// block), then the pending step with its stack and expected outputs, and the tool to call next.
import { type ExecutedStep, type Executor, type Pending, SHELL_FAILURE_EXPECTS } from './executor.ts';
import { autoLabel } from './steps.ts';

export type AnswerState = 'finished' | 'idle' | 'running' | Exclude<Pending['kind'], 'none'>;

export interface Answer {
  text: string;
  state: AnswerState;
  /** The tool the agent should call next (absent when nothing runs). */
  nextTool?: string;
}

const TOOL_CONTINUE = 'script__continue_compiled_script';
const TOOL_FINISH = 'script__finish_nl_script';

function indent(text: string, by = '  '): string {
  return text
    .split('\n')
    .map((l) => (l.length ? by + l : l))
    .join('\n');
}

/** The `### Steps executed:` block (empty when nothing ran). */
export function formatExecuted(steps: readonly ExecutedStep[]): string {
  if (steps.length === 0) return '';
  const lines = ['### Steps executed:'];
  for (const s of steps) {
    lines.push(`- \`${s.where}\`: ${s.ok ? '✓' : '✗'} ${s.description}`);
    if (s.output !== undefined && s.output.length > 0) {
      const body = s.output.endsWith('\n') ? s.output.slice(0, -1) : s.output;
      lines.push('', indent(`<output>\n${body}\n</output>`), '');
    }
  }
  return lines.join('\n').trimEnd();
}

/**
 * A suggested call: the tool, with the arguments to send. A client without a session (2026 stateless HTTP, REST)
 * must name its run in every call, so its suggestions carry `run_id`.
 */
function suggestedCall(tool: string, args: Record<string, unknown> | undefined, runId: string | undefined): string {
  const sent = runId ? { run_id: runId, ...args } : args;
  return sent === undefined ? `\`${tool}\`` : `\`${tool}\` with \`${JSON.stringify(sent)}\``;
}

function expectsBlock(expects: Record<string, string>, runId: string | undefined): string {
  const keys = Object.keys(expects);
  if (keys.length === 0)
    return `**Expected outputs:** none — call ${suggestedCall(TOOL_CONTINUE, { outputs: {} }, runId)} when you are done.`;
  const example = { outputs: Object.fromEntries(keys.map((k) => [k, '…'])) };
  return [
    `**Expected outputs** (pass them to \`${TOOL_CONTINUE}\` as \`outputs\`):`,
    ...keys.map((k) => `- \`${k}\`: ${expects[k]}`),
    '',
    `Call ${suggestedCall(TOOL_CONTINUE, example, runId)} when you are done.`,
  ].join('\n');
}

/**
 * Render the pending state. `withContext` shows a compiled script's NL source the first time the model is needed
 * (and marks it shown); status answers pass false so looking does not consume it. `runId` is given for a client
 * without a session: the suggested calls then name the run.
 */
export function formatPending(ex: Executor, withContext: boolean, runId?: string): Answer {
  const p = ex.pending();
  if (p.kind === 'none') return { text: 'No script is running. Call `script__start` to run one.', state: 'idle' };
  const trace = ex.trace();
  const parts: string[] = [];
  const context = (frame: Parameters<Executor['takeContext']>[0]) => {
    if (!withContext) return;
    const text = ex.takeContext(frame);
    if (text !== undefined)
      parts.push(
        `### Context: the instructions of \`${frame.script.name}\` (shown once; its steps run through Switchboard)`,
        '',
        '<instructions>',
        text.trimEnd(),
        '</instructions>',
        '',
      );
  };
  switch (p.kind) {
    case 'llm':
      context(p.frame);
      parts.push(
        `### Pending LLM step: \`${trace}\``,
        '',
        p.step.prompt.trimEnd(),
        '',
        expectsBlock(p.step.expects, runId),
      );
      return { text: parts.join('\n'), state: 'llm', nextTool: TOOL_CONTINUE };
    case 'shell_failure':
      context(p.frame);
      parts.push(
        `### Pending LLM step: \`${trace}\` — a command failed`,
        '',
        `The command \`${p.failure.command}\` exited with code ${p.failure.exit_code}.`,
        '',
        indent(`<output>\n${p.failure.output.trimEnd()}\n</output>`),
        '',
        'Find out why and decide how to proceed: fix the cause and re-run the command yourself if that is right, or leave it failed.',
        '',
        expectsBlock(SHELL_FAILURE_EXPECTS, runId),
      );
      return { text: parts.join('\n'), state: 'shell_failure', nextTool: TOOL_CONTINUE };
    case 'interrupted':
      parts.push(
        `### Interrupted step: \`${trace}\``,
        '',
        `Switchboard stopped while this auto step ran: \`${autoLabel(p.step)}\`. Its result was never recorded.`,
        '',
        `Call ${suggestedCall(TOOL_CONTINUE, { outputs: {} }, runId)} to run it again and go on.`,
      );
      return { text: parts.join('\n'), state: 'interrupted', nextTool: TOOL_CONTINUE };
    case 'fallback':
      parts.push(
        `### Script failed: \`${trace}\``,
        '',
        `The step \`${p.fallback.where}\` failed: ${p.fallback.exception}`,
        '',
        `Complete the rest of \`${p.frame.script.name}\` by hand, following its instructions below (skip what already ran above). When you have completed this command, call ${suggestedCall(TOOL_FINISH, undefined, runId)}.`,
        '',
        '<instructions>',
        ex.nlText(p.frame).trimEnd(),
        '</instructions>',
      );
      p.frame.contextShown = true;
      return { text: parts.join('\n'), state: 'fallback', nextTool: TOOL_FINISH };
    case 'nl':
      parts.push(
        `### Pending NL script: \`${trace}\``,
        '',
        'Follow these instructions. They describe a whole command, not one step.',
        '',
        '<instructions>',
        ex.nlText(p.frame).trimEnd(),
        '</instructions>',
        '',
        `When you have completed this command, call ${suggestedCall(TOOL_FINISH, undefined, runId)} (do not call it after single steps).`,
      );
      return { text: parts.join('\n'), state: 'nl', nextTool: TOOL_FINISH };
  }
}

/** The answer after a start / continue / finish: executed steps (drained), then what is pending. */
export function formatAnswer(ex: Executor, runId?: string): Answer {
  const executed = formatExecuted(ex.executed);
  ex.executed = [];
  const pending = ex.running
    ? formatPending(ex, true, runId)
    : ({
        text: '### All scripts finished.\n\nNothing is running. Call `script__start` to run another script.',
        state: 'finished',
      } as Answer);
  return { ...pending, text: executed ? `${executed}\n\n${pending.text}` : pending.text };
}
