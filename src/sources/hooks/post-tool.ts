// hook.post_tool (ClaudeBench's hook__post_tool): a tool ran — do the project's checks pass? The answer of the
// plugins' PostToolUse hooks: a failing check tells the agent to fix it before going on.
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import {
  agentEvent,
  HOOK_CALLER_FIELDS,
  HOOK_TOOL_POLICY,
  type HookDeciders,
  pluginVerdict,
  Verdict,
} from './shared.ts';

/** The answer after a tool: ClaudeBench's `processed`, and the plugins' verdict. */
export const AfterToolOutput = z.object({
  processed: z.literal(true).describe('The event was handled (always true; a failure to handle it is an error).'),
  ...Verdict,
});

// Module constants (why: src/snapshot-tools.ts).
const PostToolInput = z
  .strictObject({
    tool: z.string().min(1).describe("The tool that ran, by the agent's name for it."),
    params: z.unknown().optional().describe('Its input (file_path / path names the file a check is about).'),
    result: z.unknown().describe('What it returned (any JSON; null for nothing).'),
    executionTime: z.number().min(0).optional().describe("How long it ran (ms), for the caller's records."),
    success: z.boolean().optional().describe("Whether it succeeded, for the caller's records."),
    ...HOOK_CALLER_FIELDS,
  })
  .refine((i) => 'result' in i, {
    path: ['result'],
    message: 'result is required (what the tool returned; null for nothing)',
  });

export function hookPostTool(deciders: HookDeciders) {
  return defineCapability({
    name: 'hook.post_tool',
    title: 'Check after a tool ran',
    description:
      "Report a tool call that just ran and run the project's plugin hooks for it (PostToolUse, e.g. lint after Edit): answers {processed, allow, reason}. allow is false when a check failed: the agent should fix what reason says before going on. tool is the agent's tool name (Claude Code's Edit, Write, Bash), params its input (file_path picks the file checks), result what it returned.",
    input: PostToolInput,
    output: AfterToolOutput,
    policy: HOOK_TOOL_POLICY,
    reachesOthers: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ tool, params, result, sessionId }, ctx) => {
      const event = agentEvent(deciders, 'PostToolUse', { sessionId, tool, params, result });
      return { processed: true as const, ...(await pluginVerdict(deciders, event, ctx)) };
    },
  });
}
