// hook.pre_tool (ClaudeBench's hook__pre_tool): may the agent run this tool? The answer of Switchboard's own
// PreToolUse hooks: a compiled script called as a skill is sent to script.start, and a plugin hook that exits 2
// denies the tool — asked by any client, or another hub, before it acts.
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import { preToolUse } from '../scripts/hooks.ts';
import {
  agentEvent,
  HOOK_CALLER_FIELDS,
  HOOK_TOOL_POLICY,
  type HookDeciders,
  pluginVerdict,
  Verdict,
} from './shared.ts';

// Module constants (why: src/snapshot-tools.ts).
const PreToolInput = z
  .strictObject({
    tool: z.string().min(1).describe("The tool the agent is about to call, by the agent's name for it."),
    params: z.unknown().describe('Its input, as the agent would send it (any JSON; null for none).'),
    metadata: z.record(z.string(), z.unknown()).optional().describe("Anything else, for the caller's records."),
    ...HOOK_CALLER_FIELDS,
  })
  .refine((i) => 'params' in i, {
    path: ['params'],
    message: 'params is required (the tool input; null for none)',
  });
const PreToolOutput = z.object(Verdict);

export function hookPreTool(deciders: HookDeciders) {
  return defineCapability({
    name: 'hook.pre_tool',
    title: 'Ask before running a tool',
    description:
      "Ask whether an agent may run a tool, before it does: answers {allow, reason}. allow is false when the project's plugin hooks deny it (a PreToolUse hook that exits 2) or when the tool is the Skill tool naming a compiled Switchboard script (reason: call script__start instead). tool is the agent's tool name (Claude Code's Edit, Bash, Skill, mcp__server__tool), params its input.",
    input: PreToolInput,
    output: PreToolOutput,
    policy: HOOK_TOOL_POLICY,
    reachesOthers: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ tool, params, sessionId }, ctx) => {
      const event = agentEvent(deciders, 'PreToolUse', { sessionId, tool, params });
      const rerouted = preToolUse(event, { cwd: deciders.projectDir, env: deciders.env }) as
        | { hookSpecificOutput: { permissionDecisionReason: string } }
        | undefined;
      if (rerouted) return { allow: false, reason: rerouted.hookSpecificOutput.permissionDecisionReason };
      return pluginVerdict(deciders, event, ctx);
    },
  });
}
