// agent.resume: continue a session with its stored agent, provider, model and directory — a new prompt, or the
// answers to its pending callback tool calls.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { BuiltinConfigInput, meerkatResumeKeys, nullToAbsent, ProviderInput } from '../meerkat-keys.ts';
import type { AgentRuntime } from '../runtime.ts';
import { SessionName } from '../session-name.ts';
import { liveHooks, present } from './shared.ts';

const CallbackToolInput = z.strictObject({
  name: z.string(),
  description: z.string().default(''),
  input_schema: z.record(z.string(), z.unknown()).default({ type: 'object' }),
  handler: z.literal('callback').nullable().optional(),
});

const Input = z.strictObject({
  session_name: SessionName.optional().describe("The session (Meerkat's session_id is the same name)"),
  session_id: SessionName.optional().describe("Meerkat's spelling of session_name"),
  prompt: z.string().nullable().optional(),
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
  provider: ProviderInput.describe(
    'Run this turn, and the ones after it, on another provider (between the API providers)',
  ),
  model: z.string().min(1).nullable().optional().describe('Run this turn, and the ones after it, on this model'),
  max_tokens: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .nullable()
    .optional()
    .describe('Max tokens per model call from this turn on'),
  tools: z
    .array(CallbackToolInput)
    .max(128)
    .optional()
    .describe("The session's callback tools, fixed at its start: [] or the same list"),
  enable_builtins: z.boolean().nullable().optional().describe('From this turn on (null: as the session has it)'),
  builtin_config: BuiltinConfigInput,
  output_schema: z.record(z.string(), z.unknown()).nullable().optional().describe('From this turn on'),
  structured_output_retries: z.number().int().min(0).max(10).nullable().optional().describe('From this turn on'),
  ...meerkatResumeKeys,
});

/** The session a resume names: session_name, or Meerkat's session_id; both must agree. */
function sessionOf(input: { session_name?: string; session_id?: string }): string {
  const { session_name: name, session_id: id } = input;
  if (name && id && name !== id)
    throw new SwitchboardError(
      'INVALID_INPUT',
      `session_id: '${id}' and session_name: '${name}' name different sessions; give one of them.`,
    );
  const session = name ?? id;
  if (!session)
    throw new SwitchboardError('INVALID_INPUT', 'session_name: required (or session_id, as Meerkat spells it).');
  return session;
}

export function agentResume(rt: AgentRuntime) {
  return defineCapability({
    name: 'agent.resume',
    title: 'Resume an agent session',
    description:
      "Continue a session with a new prompt, or answer its pending tool calls with tool_results [{tool_use_id, content, is_error?}] (the prompt may then be empty). The session keeps its agent, provider, model and directory; provider, model, max_tokens, enable_builtins, builtin_config, output_schema and structured_output_retries change them from this turn on. One turn at a time per session: resuming a running session is an error. With async: true it returns at once; poll agent__status. Meerkat's other meerkat_resume keys are taken; those Switchboard has no equivalent for only at their default (null, false or empty).",
    input: Input,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    policy: { timeoutMs: rt.config().sync_timeout_ms },
    task: 'optional',
    // Its built-in tools run as the caller, narrowed (agentPrincipal): only what the caller could call itself.
    reachesOthers: true,
    handle: async (input, ctx) =>
      present(
        rt,
        await rt.resume(
          {
            ...nullToAbsent(input),
            session_name: sessionOf(input),
            builtin_config: input.builtin_config ? nullToAbsent(input.builtin_config) : undefined,
            tools: input.tools?.map(({ name, description, input_schema }) => ({ name, description, input_schema })),
          },
          liveHooks(ctx, input.stream === true),
        ),
      ),
  });
}
