// script.start: run a script (NL or compiled) for the calling client; pushes onto a running stack (manual nesting).
// Auto steps run until a step needs the agent; the answer says what ran and what to do next.
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import { answerResult, RunIdInput, type ScriptDeps } from './deps.ts';

const Input = z.strictObject({
  name: z.string().min(1).max(200).describe('Script name; "a:b" and "a/b" are the same script.'),
  arguments: z.string().max(100_000).optional().describe('Replaces $ARGUMENTS in the script (default empty).'),
  // Nullable as well: mekara's clients send `working_dir: null` for "not given".
  working_dir: z
    .string()
    .min(1)
    .nullish()
    .describe(
      'Where auto steps run, absolute or relative to the project, inside the project or [workspace] extra_dirs (default, or null: the project directory). Does not change which script is found.',
    ),
  run_id: RunIdInput,
});

export function scriptStart(deps: ScriptDeps) {
  return defineCapability({
    name: 'script.start',
    title: 'Start script',
    description:
      'Run a Switchboard script by name (e.g. "test:random" or "release-notes"). Auto steps (shell commands, code) run by themselves; the answer lists them with their output and then hands you the first step only a model can do, with the tool to call next. May be called while another script runs: the new one is pushed on top and, when it ends, you return to the step you were on.',
    input: Input,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    policy: { timeoutMs: deps.callTimeoutMs },
    // Its auto steps may run for minutes before a model step: a task for a client with MCP's tasks extension.
    task: 'optional',
    handle: async (input, ctx) => {
      // Relative to the project, like every other path Switchboard takes; checked here so a typo or a directory
      // outside the workspace is an input error rather than a failed first step.
      const { working_dir, ...rest } = input;
      const given = working_dir == null ? rest : { ...rest, working_dir: deps.confine(working_dir) };
      return answerResult(await deps.runs.call('script__start', given, ctx));
    },
  });
}
