// agent.result: the result of a session's last finished turn (content, structured output, pending tool calls).
// While a turn runs it answers status running, so a poller never mistakes an old answer for the new one.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import type { AgentRuntime } from '../runtime.ts';
import { SessionName } from '../session-name.ts';
import { present } from './shared.ts';

const Input = z.strictObject({ session_name: SessionName });

export function agentResult(rt: AgentRuntime) {
  return defineCapability({
    name: 'agent.result',
    title: 'Agent session result',
    description:
      "The result of a session's last finished turn: {session_id, status, turns, tool_calls, usage, content, structured_output, schema_warnings, extraction_error, pending_tool_calls}. While a turn runs it answers status running; wait with agent__status.",
    input: Input,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ session_name }) => {
      const { running: _running, ...result } = await rt.status(session_name);
      return present(rt, result);
    },
  });
}
