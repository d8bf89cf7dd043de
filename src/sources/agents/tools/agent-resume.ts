// agent.resume: continue a session with its stored agent, provider, model and directory — a new prompt, or the
// answers to its pending callback tool calls.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import type { AgentRuntime } from '../runtime.ts';
import { SessionName } from '../session-name.ts';
import { liveHooks, present } from './shared.ts';

const Input = z.strictObject({
  session_name: SessionName,
  prompt: z.string().optional(),
  tool_results: z
    .array(
      z.strictObject({
        tool_use_id: z.string().min(1),
        content: z.string(),
        is_error: z.boolean().optional(),
      }),
    )
    .optional(),
  async: z.boolean().default(false),
});

export function agentResume(rt: AgentRuntime) {
  return defineCapability({
    name: 'agent.resume',
    title: 'Resume an agent session',
    description:
      'Continue a session with a new prompt, or answer its pending tool calls with tool_results [{tool_use_id, content, is_error?}] (the prompt may then be empty). The session keeps its agent, provider, model and directory. One turn at a time per session: resuming a running session is an error. With async: true it returns at once; poll agent__status.',
    input: Input,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    policy: { timeoutMs: rt.config().sync_timeout_ms },
    handle: async (input, ctx) => present(rt, await rt.resume(input, liveHooks(ctx))),
  });
}
