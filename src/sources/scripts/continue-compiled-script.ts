// script.continue_compiled_script: report the outputs of the pending step of a compiled script and go on.
// Separate from finish_nl_script on purpose: a model must not "continue" when a whole NL script is asked of it.
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import { answerResult, RunIdInput, type ScriptDeps } from './deps.ts';

const Input = z.strictObject({
  outputs: z
    .record(z.string(), z.unknown())
    .describe('The expected outputs of the pending step, by name; {} when nothing is expected.'),
  run_id: RunIdInput,
});

export function scriptContinueCompiledScript(deps: ScriptDeps) {
  return defineCapability({
    name: 'script.continue_compiled_script',
    title: 'Continue compiled script',
    description:
      'After you did the pending LLM step of a compiled script, report its expected outputs here (an empty object when it expects none); the script goes on. Not for NL scripts: those end with script__finish_nl_script.',
    input: Input,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    policy: { timeoutMs: deps.callTimeoutMs },
    handle: async (input, ctx) => answerResult(await deps.runs.call('script__continue_compiled_script', input, ctx)),
  });
}
