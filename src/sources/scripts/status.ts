// script.status: what runs for this client — the stack and the pending step — without changing anything.
// After a restart it rebuilds the client's run from its journal, or lists the runs that can be continued.
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import { answerResult, RunIdInput, type ScriptDeps } from './deps.ts';

const Input = z.strictObject({ run_id: RunIdInput });

export function scriptStatus(deps: ScriptDeps) {
  return defineCapability({
    name: 'script.status',
    title: 'Script status',
    description:
      'Show the running script stack of this client and the pending step with the tool to call next. With nothing running, lists unfinished runs (e.g. from before a restart) that can be continued by passing their run_id.',
    input: Input,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    policy: { timeoutMs: deps.callTimeoutMs },
    handle: async (input, ctx) => answerResult(await deps.runs.call('script__status', input, ctx)),
  });
}
