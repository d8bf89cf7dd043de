// The `anthropic` provider: the Messages API through @anthropic-ai/sdk, streaming, with Switchboard's tool loop.
// Key and base URL come from [agents.providers.anthropic] or ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, never tool input.
import type Anthropic from '@anthropic-ai/sdk';
import type { AgentsConfig } from '../../../config/schema.ts';
import { traceHeaders } from '../../../core/trace-context.ts';
import { type Completion, runToolLoop } from '../tool-loop.ts';
import type { Block, Message, Provider } from './provider.ts';

function credentials(config: AgentsConfig, env: NodeJS.ProcessEnv) {
  const own = config.providers.anthropic;
  return { apiKey: own.api_key ?? env.ANTHROPIC_API_KEY, baseURL: own.base_url ?? env.ANTHROPIC_BASE_URL };
}

/** One client per key and URL: the SDK keeps connections alive between calls. */
const clients = new Map<string, Anthropic>();
/** The SDK is loaded on the first turn: a hub that never runs an anthropic turn never loads it (cold start). */
async function clientFor(apiKey: string, baseURL: string | undefined): Promise<Anthropic> {
  const key = `${baseURL ?? ''}\n${apiKey}`;
  let client = clients.get(key);
  if (!client) {
    const { default: Anthropic } = await import('@anthropic-ai/sdk');
    client = new Anthropic({ apiKey, ...(baseURL ? { baseURL } : {}), maxRetries: 2 });
    clients.set(key, client);
  }
  return client;
}

/** The neutral history is the Messages API's own shape, less what only Gemini gets back (a call's signature). */
function toMessageParams(messages: Message[]): Anthropic.MessageParam[] {
  return messages.map((m) => ({
    role: m.role,
    content: m.content.map((b) =>
      b.type === 'tool_use' ? { type: 'tool_use' as const, id: b.id, name: b.name, input: b.input } : b,
    ),
  }));
}

export const anthropicProvider: Provider = {
  name: 'anthropic',
  toolLoop: true,
  problem(config, env) {
    if (credentials(config, env).apiKey) return undefined;
    return 'The anthropic provider is not configured: set the ANTHROPIC_API_KEY environment variable or api_key in [agents.providers.anthropic] (and base_url / ANTHROPIC_BASE_URL for a compatible endpoint).';
  },
  defaultModel: (config) => config.providers.anthropic.model,
  async runTurn(req) {
    const { apiKey, baseURL } = credentials(req.config, req.env);
    const client = await clientFor(apiKey as string, baseURL);
    const model = req.model ?? req.config.providers.anthropic.model;
    return runToolLoop(req, model, async (args): Promise<Completion> => {
      const stream = client.messages.stream(
        {
          model: args.model,
          max_tokens: args.maxTokens,
          ...(args.system ? { system: args.system } : {}),
          messages: toMessageParams(args.messages),
          ...(args.tools.length
            ? {
                tools: args.tools.map((t) => ({
                  name: t.name,
                  description: t.description,
                  input_schema: t.input_schema as Anthropic.Tool.InputSchema,
                })),
              }
            : {}),
        },
        { signal: args.signal, ...(req.trace ? { headers: traceHeaders(req.trace) } : {}) },
      );
      const message = await stream.finalMessage();
      const content: Block[] = [];
      for (const b of message.content) {
        if (b.type === 'text') content.push({ type: 'text', text: b.text });
        else if (b.type === 'tool_use') content.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input });
      }
      return {
        content,
        usage: { input_tokens: message.usage.input_tokens ?? 0, output_tokens: message.usage.output_tokens ?? 0 },
      };
    });
  },
};
