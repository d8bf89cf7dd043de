// script.finish_nl_script: the agent completed a whole NL script (or a failed compiled script by hand).
// The frame is popped and its caller goes on; a compiled caller of a failed script halts.
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import { answerResult, RunIdInput, type ScriptDeps } from './deps.ts';

const Input = z.strictObject({ run_id: RunIdInput });

export function scriptFinishNlScript(deps: ScriptDeps) {
  return defineCapability({
    name: 'script.finish_nl_script',
    title: 'Finish NL script',
    description:
      'Call once you have completed a whole natural-language script (or finished a failed compiled script by hand as instructed). Never after a single step: steps of compiled scripts are reported with script__continue_compiled_script.',
    input: Input,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    policy: { timeoutMs: deps.callTimeoutMs },
    handle: async (input, ctx) => answerResult(await deps.runs.call('script__finish_nl_script', input, ctx)),
  });
}
