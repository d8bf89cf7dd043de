// What the script capabilities share: the runs of this hub, where scripts live, and the answer shape.
// Kept apart so each capability file stays one capability.
import { z } from 'zod';
import { rawResult } from '../../core/capability.ts';
import type { ResolvedScript, ScriptRoots } from './resolve.ts';
import type { RunAnswer, ScriptRuns } from './runs.ts';

export interface ScriptDeps {
  runs: ScriptRuns;
  roots: ScriptRoots;
  projectDir: string;
  /**
   * A `working_dir` (relative to `base`, default the project) as the real directory it names, or INVALID_INPUT
   * when it is outside the workspace.
   */
  confine(dir: string, base?: string): string;
  /** Time limit of one run-tool call. */
  callTimeoutMs: number;
  /** Re-read the scripts on disk (prompts follow). */
  refresh(): ResolvedScript[];
  /** Script files hidden by a same-named one (mekara folder vs Switchboard's own), one message each. */
  clashes(): string[];
}

export const RunIdInput = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/)
  .optional()
  .describe(
    'The run to act on, as returned by script__start. Needed only by clients without a session (stateless HTTP, REST); stdio and session clients are tracked automatically.',
  );

/**
 * A run answer as an MCP result: the text for the model, the state for programs. The structured content carries
 * the text too (`answer`): Claude Code hands a tool's structuredContent to the model instead of its text content
 * when both are present, and the model must read the answer.
 */
export function answerResult(answer: RunAnswer) {
  const text = answer.text + (answer.runId ? `\n\n(run_id: ${answer.runId})` : '');
  return rawResult([{ type: 'text', text }], {
    structuredContent: {
      state: answer.state,
      ...(answer.runId ? { run_id: answer.runId } : {}),
      ...(answer.nextTool ? { next_tool: answer.nextTool } : {}),
      answer: text,
    },
  });
}
