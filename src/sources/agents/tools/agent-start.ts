// agent.start: create a named session and run its first turn, synchronously (with progress) or in the background.
// Everything a session keeps for its life (agent, provider, model, directory, tools, schema) is fixed here.
import { z } from 'zod';
import { PERMISSION_MODES } from '../../../config/schema.ts';
import { defineCapability } from '../../../core/capability.ts';
import { BuiltinConfigInput, meerkatRunKeys, nullToAbsent, ProviderInput } from '../meerkat-keys.ts';
import type { AgentRuntime } from '../runtime.ts';
import { SessionName } from '../session-name.ts';
import { liveHooks, present } from './shared.ts';

const CallbackToolInput = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'tool names are 1-64 characters of letters, digits, _ and -'),
  description: z.string().default(''),
  input_schema: z.record(z.string(), z.unknown()).default({ type: 'object' }),
  handler: z
    .literal('callback')
    .nullable()
    .optional()
    .describe('Only callback tools exist: you run them and answer with agent__resume'),
});

const Input = z.strictObject({
  session_name: SessionName,
  agent_name: z.string().min(1).optional().describe('An agent from agent__list'),
  prompt: z
    .string()
    .min(1, 'prompt cannot be empty')
    .optional()
    .describe('What to ask; optional for an agent with a parameters_schema, whose parameters then are the prompt'),
  parameters: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'For an agent with a parameters_schema (agent__list shows it): checked against it, given to the agent as an <inputs> block, and filling ${params.NAME} in its system prompt',
    ),
  project_dir: z
    .string()
    .min(1)
    .optional()
    .describe(
      "Working directory, inside the project or [workspace] extra_dirs and the agent's directories (default: the agent's first directory, else the project directory)",
    ),
  permission_mode: z
    .enum(PERMISSION_MODES)
    .optional()
    .describe('claude-cli: run with less than the agent is granted (e.g. "plan"); more is FORBIDDEN'),
  async: z.boolean().default(false),
  provider: ProviderInput,
  model: z.string().min(1).nullable().optional(),
  max_tokens: z.number().int().min(1).max(1_000_000).nullable().optional(),
  system_prompt: z.string().nullable().optional().describe('Added after the agent definition’s system prompt'),
  output_schema: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .describe("JSON Schema the final answer must match, or Meerkat's wrapper {schema, name?, strict?}"),
  structured_output_retries: z.number().int().min(0).max(10).nullable().optional().describe('Default 2'),
  tools: z.array(CallbackToolInput).max(128).default([]),
  enable_builtins: z
    .boolean()
    .nullable()
    .optional()
    .describe("Give the agent Switchboard's own tools (task board, hooks, scripts) limited to its roles"),
  builtin_config: BuiltinConfigInput,
  ...meerkatRunKeys,
});

export function agentStart(rt: AgentRuntime) {
  return defineCapability({
    name: 'agent.start',
    title: 'Start an agent session',
    description:
      "Start a new named sub-agent session and run its first turn. With agent_name the definition in .switchboard/agents/<name>/ gives the system prompt, provider, model and MCP servers. With async: true it returns at once (poll agent__status, then agent__result) — use it for anything that may take more than a minute. tools are callback tools you run yourself (the result then says pending_tool_call); output_schema makes the final answer JSON validated against it. An existing session name is an error: continue it with agent__resume. Meerkat's other meerkat_run keys are taken; those Switchboard has no equivalent for only at their default (null, false or empty).",
    input: Input,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    policy: { timeoutMs: rt.config().sync_timeout_ms },
    // A turn takes minutes: a client with MCP's tasks extension gets a task to poll (docs/tasks.md).
    task: 'optional',
    // Its built-in tools run as the caller, narrowed (agentPrincipal): only what the caller could call itself.
    reachesOthers: true,
    handle: async (input, ctx) =>
      present(
        rt,
        await rt.start(
          {
            ...nullToAbsent(input),
            builtin_config: input.builtin_config ? nullToAbsent(input.builtin_config) : undefined,
            tools: input.tools.map(({ name, description, input_schema }) => ({ name, description, input_schema })),
          },
          liveHooks(ctx, input.stream === true),
        ),
      ),
  });
}
