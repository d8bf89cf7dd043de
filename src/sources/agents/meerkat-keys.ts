// The keys of Meerkat's meerkat_run / meerkat_resume that agent__start / agent__resume take besides their own, so a
// call copied from Meerkat's docs runs with its tool name and a session_name changed and nothing else. Meerkat's
// schema: `MeerkatRunInput` / `MeerkatResumeInput` in meerkat-mcp-server's lib.rs (and `host_mode`, a key of its
// earlier docs' full example). A key Switchboard has no equivalent for is accepted at its default — absent, null,
// false or empty, which asks for nothing — and any other value is refused naming the key and what is accepted.
import { z } from 'zod';
import { PROVIDERS } from './definitions.ts';

/**
 * Whether a value asks for nothing: null, false, an empty string list or object, or an object whose values all ask
 * for nothing (Meerkat's `hooks_override: {}` or `budget_limits: {max_tokens: null}`).
 */
export function asksNothing(value: unknown): boolean {
  if (value === undefined || value === null || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.values(value).every(asksNothing);
  return false;
}

/** A Meerkat key Switchboard cannot honour: its default is accepted, any other value refused saying `instead`. */
const notHonoured = (instead: string) =>
  z
    .unknown()
    .optional()
    .superRefine((value, ctx) => {
      if (!asksNothing(value))
        ctx.addIssue({
          code: 'custom',
          message: `Switchboard takes this Meerkat key only at its default (null, false or empty) — ${instead}.`,
        });
    });

const NO_COMMS =
  'Switchboard has no inter-agent comms; a session ends its turn and is resumed by name with agent__resume';
const NO_SKILLS = 'Switchboard does not inject skills; put the instructions in the prompt or the agent definition';

/** Keys of both tools that Switchboard has no equivalent for, with what to do instead. */
const sharedKeys = {
  host_mode: notHonoured(NO_COMMS),
  keep_alive: notHonoured(NO_COMMS),
  comms_name: notHonoured(NO_COMMS),
  peer_meta: notHonoured(NO_COMMS),
  hooks_override: notHonoured(
    "hooks are the project's own ([hooks] and plugin manifests, docs/hooks.md), not overridden per run",
  ),
  enable_memory: notHonoured('there is no semantic memory store for agents'),
  enable_schedule: notHonoured('there are no schedule tools for agents'),
  enable_workgraph: notHonoured('the task board is among the built-in tools: enable_builtins: true'),
  enable_mob: notHonoured('there are no mobs; start several sessions by name'),
  enable_web_search: notHonoured('give the agent a search server in its agent.mcp.json'),
  provider_params: notHonoured('provider parameters are not passed through'),
  budget_limits: notHonoured('the limits are [agents] max_model_calls, max_tokens and sync_timeout_ms'),
  preload_skills: notHonoured(NO_SKILLS),
  skill_refs: notHonoured(NO_SKILLS),
  skill_references: notHonoured(NO_SKILLS),
  additional_instructions: notHonoured('put the instructions in system_prompt at start, or in the prompt'),
};

/**
 * Meerkat's per-turn keys Switchboard honours: transient_turn_context on the API providers (turn.ts), and `stream`
 * and `verbose`: `stream: true` sends the turn's events to the caller as MCP
 * log notifications (as a progressToken does); `verbose` asks for a server-side record of every event, which the
 * session's transcript always is (session__transcript).
 */
const turnKeys = {
  transient_turn_context: z
    .string()
    .min(1, 'transient_turn_context cannot be empty (give null for none)')
    .nullable()
    .optional()
    .describe("Meerkat: text this turn's model calls see after the prompt, kept out of the session history"),
  stream: z
    .boolean()
    .nullable()
    .optional()
    .describe('Meerkat: true sends the turn events as MCP log notifications (as a progressToken does)'),
  verbose: z.boolean().nullable().optional().describe('Meerkat: every event is always in the session transcript'),
};

/** What agent__start takes of meerkat_run's keys besides the ones it shares with it. */
export const meerkatRunKeys = {
  ...turnKeys,
  ...sharedKeys,
  labels: notHonoured('sessions are found by their name'),
  app_context: notHonoured('there is no application context passed to agents'),
  shell_env: notHonoured('the shell tool gets no per-session environment variables'),
  auth_binding: notHonoured('provider keys come from the environment or [agents.providers.*]'),
};

/** What agent__resume takes of meerkat_resume's keys besides the ones it shares with it. */
export const meerkatResumeKeys = {
  ...turnKeys,
  ...sharedKeys,
  system_prompt: notHonoured("a session's system prompt is fixed at its start; say it in the prompt"),
  turn_tool_overlay: notHonoured("the session's tools are fixed at its start"),
};

/** A nullable key of Meerkat's: null means the same as absent. */
export function nullToAbsent<T extends Record<string, unknown>>(input: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== null)) as {
    [K in keyof T]: Exclude<T[K], null>;
  };
}

/** A provider as both tools take it; Meerkat's `other` and `self_hosted` are told where they went. */
export const ProviderInput = z
  .enum(PROVIDERS, {
    error: (issue) =>
      `expected one of ${PROVIDERS.join(', ')}, got ${JSON.stringify(issue.input)} (Meerkat's "other" and "self_hosted" are openai with [agents.providers.openai] base_url)`,
  })
  .nullable()
  .optional();

/** builtin_config as both tools take it (Meerkat's `BuiltinConfigInput`: every field nullable). */
export const BuiltinConfigInput = z
  .strictObject({
    enable_shell: z.boolean().nullable().optional().describe('Default false; needs enable_builtins'),
    shell_timeout_secs: z.number().int().min(1).max(3600).nullable().optional().describe('Default 30'),
  })
  .nullable()
  .optional();
