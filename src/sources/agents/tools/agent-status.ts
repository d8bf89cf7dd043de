// agent.status: where a session stands, optionally waiting (up to 300 s) for its running turn to finish.
// The polling half of async runs: MCP clients time out long calls, so long turns are waited for here in slices.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import type { AgentRuntime } from '../runtime.ts';
import { SessionName } from '../session-name.ts';

const Input = z.strictObject({
  session_name: SessionName,
  wait_seconds: z.number().min(0).max(300).default(0),
});

export function agentStatus(rt: AgentRuntime) {
  return defineCapability({
    name: 'agent.status',
    title: 'Agent session status',
    description:
      "A session's status (running, completed, pending_tool_call, failed, cancelled, interrupted), turns, tool calls and usage. wait_seconds (0-300) waits for a running turn to finish first — poll with it after an async start or resume.",
    input: Input,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    policy: { timeoutMs: 310_000 },
    handle: async ({ session_name, wait_seconds }, ctx) => {
      const s = await rt.status(session_name, wait_seconds * 1000, ctx.signal);
      return {
        session_id: s.session_id,
        status: s.status,
        running: s.running,
        turns: s.turns,
        tool_calls: s.tool_calls,
        usage: s.usage,
        ...(s.pending_tool_calls ? { pending_tool_calls: s.pending_tool_calls } : {}),
        ...(s.error ? { error: s.error } : {}),
        provider_session_id: s.provider_session_id ?? null,
      };
    },
  });
}
