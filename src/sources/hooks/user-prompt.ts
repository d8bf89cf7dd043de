// hook.user_prompt (ClaudeBench's hook__user_prompt): the prompt as Switchboard's UserPromptSubmit hook changes it —
// `/name args` naming a compiled script gains the instruction to start it through script.start, a bundled NL
// script's text is added — and the plugins' UserPromptSubmit hooks run (a failure is passed on as the reason).
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import { userPromptSubmit } from '../scripts/hooks.ts';
import { agentEvent, HOOK_CALLER_FIELDS, HOOK_TOOL_POLICY, type HookDeciders, pluginVerdict } from './shared.ts';

// Module constants (why: src/snapshot-tools.ts).
const UserPromptInput = z.strictObject({
  prompt: z.string().min(1).describe('The prompt as the user typed it.'),
  context: z.looseObject({}).optional().describe("Anything about the prompt, for the caller's records."),
  ...HOOK_CALLER_FIELDS,
});
const UserPromptOutput = z.object({
  modified: z.string().optional().describe('The prompt to use instead; absent: use it as it is.'),
  reason: z.string().optional().describe("A failing plugin check's output (it does not block the prompt)."),
});

export function hookUserPrompt(deciders: HookDeciders) {
  return defineCapability({
    name: 'hook.user_prompt',
    title: 'Route a user prompt',
    description:
      "Ask what a user's prompt should become before the agent reads it: answers {modified} — the prompt with what Switchboard adds (for /name naming a compiled script, the instruction to start it with script__start; for a bundled NL script, its text) — or {} when it stays as it is. reason carries a failing plugin check's output.",
    input: UserPromptInput,
    output: UserPromptOutput,
    policy: HOOK_TOOL_POLICY,
    reachesOthers: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ prompt, sessionId }, ctx) => {
      const event = agentEvent(deciders, 'UserPromptSubmit', { sessionId, prompt });
      const added = userPromptSubmit(event, { cwd: deciders.projectDir, env: deciders.env });
      const { reason } = await pluginVerdict(deciders, event, ctx);
      return { ...(added ? { modified: `${prompt}\n\n${added}` } : {}), ...(reason ? { reason } : {}) };
    },
  });
}
