// Meerkat's resume overrides: an `agent__resume` may give a provider, model, max_tokens, built-ins, an output_schema
// and its retries. They apply to its turn and stay the session's (the meta says what the last turn ran with, as
// Meerkat's session metadata does).
import type { AgentsConfig } from '../../config/schema.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { AgentDefinition, ProviderName } from './definitions.ts';
import type { Provider } from './providers/provider.ts';
import { checkSchemas, type ResumeInput, unwrapOutputSchema } from './session-input.ts';
import type { SessionMeta } from './session-types.ts';

/**
 * Write a resume's provider, model and max_tokens into the session's meta. The API providers share one history, so
 * a session moves between them; claude-cli keeps its conversation in its own session, which no other provider can
 * read. A new provider without a model takes the agent's model for it, else the provider's default.
 */
export function applyResumeOverrides(
  meta: SessionMeta,
  agent: AgentDefinition | undefined,
  input: ResumeInput,
  providers: Record<ProviderName, Provider>,
  config: () => AgentsConfig,
): void {
  const to = input.provider;
  if (to && to !== meta.provider) {
    const from = meta.provider;
    if (!providers[from].toolLoop || !providers[to].toolLoop)
      throw new SwitchboardError(
        'INVALID_INPUT',
        `provider: session '${meta.session_name}' runs on ${from}; it can move only between the API providers (anthropic, openai, gemini), which share its history — claude-cli keeps the conversation in its own session. Start a new session on ${to} instead.`,
      );
    meta.provider = to;
    meta.model =
      input.model ?? (agent?.provider === to ? agent.model : undefined) ?? providers[to].defaultModel(config()) ?? null;
  }
  if (input.model) meta.model = input.model;
  if (input.max_tokens) meta.options.max_tokens = input.max_tokens;
  applyToolOverrides(meta, input, providers[meta.provider].toolLoop);
}

/**
 * Meerkat's resume may give the session's tools and built-ins again. Callback tools are fixed at start (the
 * conversation has calls to them): the same list, or [], is accepted. enable_builtins and builtin_config apply from
 * this turn on, within the agent's grant (checked before the turn), as a start's do; structured_output_retries too.
 */
function applyToolOverrides(meta: SessionMeta, input: ResumeInput, toolLoop: boolean): void {
  const options = meta.options;
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (input.tools?.length && !same(input.tools, options.tools))
    throw new SwitchboardError(
      'INVALID_INPUT',
      `tools: session '${meta.session_name}' keeps the callback tools it started with (${options.tools.map((t) => t.name).join(', ') || 'none'}); give [] or that same list.`,
    );
  if (input.enable_builtins !== undefined) options.enable_builtins = input.enable_builtins;
  const shell = input.builtin_config?.enable_shell;
  if (shell !== undefined) options.builtin_config = { ...options.builtin_config, enable_shell: shell };
  const timeout = input.builtin_config?.shell_timeout_secs;
  if (timeout !== undefined) options.builtin_config = { ...options.builtin_config, shell_timeout_secs: timeout };
  if (options.enable_builtins && !toolLoop)
    throw new SwitchboardError(
      'INVALID_INPUT',
      `enable_builtins: session '${meta.session_name}' runs on ${meta.provider}, which runs its own tools; built-ins need an API provider (anthropic, openai or gemini).`,
    );
  if (options.builtin_config.enable_shell && !options.enable_builtins)
    throw new SwitchboardError('INVALID_INPUT', 'builtin_config.enable_shell needs enable_builtins: true.');
  if (input.structured_output_retries !== undefined)
    options.structured_output_retries = input.structured_output_retries;
}

/** A resume's output_schema (either form, as at start): checked, then the session's from this turn on. */
export async function applyOutputSchema(meta: SessionMeta, given: Record<string, unknown> | undefined): Promise<void> {
  if (!given) return;
  const output = unwrapOutputSchema(given);
  await checkSchemas(output.schema, []);
  meta.options.output_schema = output.schema;
  if (output.name) meta.options.output_schema_name = output.name;
  else delete meta.options.output_schema_name;
}
