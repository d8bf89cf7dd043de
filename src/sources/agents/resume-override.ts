// Meerkat's resume overrides: an `agent__resume` may give a provider, model and max_tokens. They apply to its turn
// and stay the session's (the meta says what the last turn ran with, as Meerkat's session metadata does).
import type { AgentsConfig } from '../../config/schema.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { AgentDefinition, ProviderName } from './definitions.ts';
import type { Provider } from './providers/provider.ts';
import type { ResumeInput } from './session-input.ts';
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
}
