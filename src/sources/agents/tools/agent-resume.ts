// agent.resume: continue a session with its stored agent, provider, model and directory — a new prompt, or the
// answers to its pending callback tool calls.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { PROVIDERS } from '../definitions.ts';
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
  provider: z
    .enum(PROVIDERS)
    .optional()
    .describe('Run this turn, and the ones after it, on another provider (between the API providers)'),
  model: z.string().min(1).optional().describe('Run this turn, and the ones after it, on this model'),
  max_tokens: z.number().int().min(1).max(1_000_000).optional().describe('Max tokens per model call from this turn on'),
});

export function agentResume(rt: AgentRuntime) {
  return defineCapability({
    name: 'agent.resume',
    title: 'Resume an agent session',
    description:
      'Continue a session with a new prompt, or answer its pending tool calls with tool_results [{tool_use_id, content, is_error?}] (the prompt may then be empty). The session keeps its agent, provider, model and directory; provider, model and max_tokens change them from this turn on. One turn at a time per session: resuming a running session is an error. With async: true it returns at once; poll agent__status.',
    input: Input,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    policy: { timeoutMs: rt.config().sync_timeout_ms },
    task: 'optional',
    // Its built-in tools run as the caller, narrowed (agentPrincipal): only what the caller could call itself.
    reachesOthers: true,
    handle: async (input, ctx) => present(rt, await rt.resume(input, liveHooks(ctx))),
  });
}
