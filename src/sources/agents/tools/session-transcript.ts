// session.transcript: a page of a session's transcript (what the model said, the tools it called and their
// results, usage), read from where the last page ended. The dashboard follows a running turn with it: each
// `agent.transcript` event on the bus says new events were written.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import type { AgentRuntime } from '../runtime.ts';
import { SessionName } from '../session-name.ts';

const Input = z.strictObject({
  session_name: SessionName,
  from: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('Where to start: 0 for the beginning, or the `next` of the previous page.'),
});

export function sessionTranscript(rt: AgentRuntime) {
  return defineCapability({
    name: 'session.transcript',
    title: 'Agent session transcript',
    description:
      "Read a session's transcript events (turn starts and ends, model text, tool calls and results, usage) from `from` (0: the beginning). Returns {events, next, skipped}: pass next as from to read what was written since.",
    input: Input,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ session_name, from }) => {
      await rt.view(session_name);
      return rt.sessions.transcript(session_name, from);
    },
  });
}
