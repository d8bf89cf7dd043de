// script.start: run a script (NL or compiled) for the calling client; pushes onto a running stack (manual nesting).
// Auto steps run until a step needs the agent; the answer says what ran and what to do next.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import { SwitchboardError } from '../../core/errors.ts';
import { answerResult, RunIdInput, type ScriptDeps } from './deps.ts';

const Input = z.strictObject({
  name: z.string().min(1).max(200).describe('Script name; "a:b" and "a/b" are the same script.'),
  arguments: z.string().max(100_000).optional().describe('Replaces $ARGUMENTS in the script (default empty).'),
  working_dir: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Where auto steps run, absolute or relative to the project (default: the project directory). Does not change which script is found.',
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
    handle: async (input, ctx) => {
      if (input.working_dir !== undefined) {
        // Relative to the project, like every other path Switchboard takes; checked here so a typo is an input
        // error rather than a failed first step.
        const dir = resolve(deps.projectDir, input.working_dir);
        if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory())
          throw new SwitchboardError('INVALID_INPUT', `working_dir: ${dir} is not a directory.`);
        input = { ...input, working_dir: dir };
      }
      return answerResult(await deps.runs.call('script__start', input, ctx));
    },
  });
}
