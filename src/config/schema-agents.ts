// The `[agents]` part of the configuration schema (src/config/schema.ts composes it): sub-agent sessions, their
// providers and the permission modes a session may be granted.
import { z } from 'zod';

/**
 * claude's `--permission-mode`s, from the least to the most a headless session may do: `plan` changes nothing,
 * `dontAsk` and `default` run only what claude's own settings pre-approve (nobody answers a prompt in `-p` mode),
 * `acceptEdits` also edits files, `auto` lets a classifier approve commands, `bypassPermissions` runs anything.
 * The order is how a grant is compared: a session may use a mode at or below the one it was granted.
 */
export const PERMISSION_MODES = ['plan', 'dontAsk', 'default', 'acceptEdits', 'auto', 'bypassPermissions'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** `[agents.providers.claude-cli]`: the `claude` binary run per turn. */
const ClaudeCliProviderSchema = z
  .object({
    /** The command; a bare name is looked up on PATH and in the project's and Switchboard's node_modules/.bin. */
    command: z.string().min(1).default('claude'),
    /** The most any claude-cli session may use (agent.json grants up to this; see docs/agents.md#permissions). */
    permission_mode: z.enum(PERMISSION_MODES).default('acceptEdits'),
    /** Extra environment for the child (`${VAR}` expands); ANTHROPIC_* and CLAUDE_* of the hub pass through. */
    env: z.record(z.string(), z.string()).default({}),
    /** Default model (`--model`); unset lets claude choose. */
    model: z.string().min(1).optional(),
  })
  .strict();

/** `[agents.providers.anthropic]` / `.openai]` / `.gemini]`: a model API reached over HTTP. */
const ApiProviderSchema = (defaultModel: string) =>
  z
    .object({
      /** The key; when unset the provider's environment variable is read (never tool input). */
      api_key: z.string().min(1).optional(),
      /** Base URL; when unset the provider's `*_BASE_URL` variable, else the public endpoint. */
      base_url: z.string().url().optional(),
      model: z.string().min(1).default(defaultModel),
    })
    .strict();

/** `[agents]`: sub-agent sessions (see docs/agents.md). */
export const AgentsSchema = z
  .object({
    /** Provider when neither the call nor the agent definition names one. */
    default_provider: z.enum(['claude-cli', 'anthropic', 'openai', 'gemini']).default('claude-cli'),
    /** Default max tokens per model call on the API providers. */
    max_tokens: z.number().int().min(1).default(4096),
    /** Model calls one turn may make on the API providers before it stops (a tool loop that never ends). */
    max_model_calls: z.number().int().min(1).max(1000).default(50),
    /** A turn (every provider) is cancelled after this long. */
    turn_timeout_ms: z.number().int().min(1000).default(1_800_000),
    /** Time limit of a synchronous agent__start / agent__resume call; longer runs belong to `async`. */
    sync_timeout_ms: z.number().int().min(1000).default(600_000),
    /** Turns that may run at once in this process; more are refused with RATE_LIMITED. */
    max_running: z.number().int().min(1).default(20),
    /** Final texts longer than this are cut in tool results (the transcript keeps everything). */
    max_output_chars: z.number().int().min(100).default(20_000),
    /** Whether `enable_builtins` may be used at all (an agent.json must still allow them). */
    builtins: z.boolean().default(true),
    /** Whether `builtin_config.enable_shell` may be used at all (an agent.json must still say `"shell": true`). */
    shell: z.boolean().default(true),
    providers: z
      .object({
        'claude-cli': ClaudeCliProviderSchema.prefault({}),
        anthropic: ApiProviderSchema('claude-sonnet-5').prefault({}),
        openai: ApiProviderSchema('gpt-5.4').prefault({}),
        gemini: ApiProviderSchema('gemini-3.5-flash').prefault({}),
      })
      .strict()
      .prefault({}),
  })
  .strict();

export type AgentsConfig = z.output<typeof AgentsSchema>;
