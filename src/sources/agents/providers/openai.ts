// The `openai` provider: any OpenAI-compatible chat-completions endpoint through the `openai` package, streaming,
// with Switchboard's tool loop. `base_url` in config covers local model servers; the key may be any string there.
import type OpenAI from 'openai';
import type { AgentsConfig } from '../../../config/schema.ts';
import { traceHeaders } from '../../../core/trace-context.ts';
import { type Completion, runToolLoop } from '../tool-loop.ts';
import type { Block, Message, Provider } from './provider.ts';

function credentials(config: AgentsConfig, env: NodeJS.ProcessEnv) {
  const own = config.providers.openai;
  return { apiKey: own.api_key ?? env.OPENAI_API_KEY, baseURL: own.base_url ?? env.OPENAI_BASE_URL };
}

const clients = new Map<string, OpenAI>();
/** The package is loaded on the first turn: a hub that never runs an openai turn never loads it (cold start). */
async function clientFor(apiKey: string, baseURL: string | undefined): Promise<OpenAI> {
  const key = `${baseURL ?? ''}\n${apiKey}`;
  let client = clients.get(key);
  if (!client) {
    const { default: OpenAI } = await import('openai');
    client = new OpenAI({ apiKey, ...(baseURL ? { baseURL } : {}), maxRetries: 2 });
    clients.set(key, client);
  }
  return client;
}

/** The neutral history as chat messages: tool_use → assistant tool_calls, tool_result → `tool` messages. */
export function toChatMessages(system: string | undefined, messages: Message[]): OpenAI.ChatCompletionMessageParam[] {
  const out: OpenAI.ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  for (const m of messages) {
    // A user message's blocks are separate texts (a failed turn's prompt, then the next): paragraphs, not one run.
    const text = m.content
      .filter((b) => b.type === 'text')
      .map((b) => (b as { text: string }).text)
      .join(m.role === 'user' ? '\n\n' : '');
    if (m.role === 'assistant') {
      const calls = m.content.filter((b) => b.type === 'tool_use') as Extract<Block, { type: 'tool_use' }>[];
      out.push({
        role: 'assistant',
        content: text || null,
        ...(calls.length
          ? {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: JSON.stringify(c.input ?? {}) },
              })),
            }
          : {}),
      });
      continue;
    }
    for (const b of m.content) {
      if (b.type === 'tool_result')
        out.push({
          role: 'tool',
          tool_call_id: b.tool_use_id,
          content: b.is_error ? `Error: ${b.content}` : b.content,
        });
    }
    if (text) out.push({ role: 'user', content: text });
  }
  return out;
}

export const openaiProvider: Provider = {
  name: 'openai',
  toolLoop: true,
  problem(config, env) {
    if (credentials(config, env).apiKey) return undefined;
    return 'The openai provider is not configured: set the OPENAI_API_KEY environment variable or api_key in [agents.providers.openai] (with base_url / OPENAI_BASE_URL for a compatible or local server).';
  },
  defaultModel: (config) => config.providers.openai.model,
  async runTurn(req) {
    const { apiKey, baseURL } = credentials(req.config, req.env);
    const client = await clientFor(apiKey as string, baseURL);
    const model = req.model ?? req.config.providers.openai.model;
    return runToolLoop(req, model, async (args): Promise<Completion> => {
      const stream = await client.chat.completions.create(
        {
          model: args.model,
          max_tokens: args.maxTokens,
          stream: true,
          stream_options: { include_usage: true },
          messages: toChatMessages(args.system, args.messages),
          ...(args.tools.length
            ? {
                tools: args.tools.map((t) => ({
                  type: 'function' as const,
                  function: { name: t.name, description: t.description, parameters: t.input_schema },
                })),
              }
            : {}),
        },
        { signal: args.signal, ...(req.trace ? { headers: traceHeaders(req.trace) } : {}) },
      );
      let text = '';
      const calls: { id: string; name: string; args: string }[] = [];
      const usage = { input_tokens: 0, output_tokens: 0 };
      for await (const chunk of stream) {
        if (chunk.usage) {
          usage.input_tokens = chunk.usage.prompt_tokens ?? 0;
          usage.output_tokens = chunk.usage.completion_tokens ?? 0;
        }
        const delta = chunk.choices[0]?.delta;
        if (!delta) continue;
        if (delta.content) text += delta.content;
        for (const tc of delta.tool_calls ?? []) {
          if (!calls[tc.index]) calls[tc.index] = { id: '', name: '', args: '' };
          const slot = calls[tc.index];
          if (tc.id) slot.id = tc.id;
          if (tc.function?.name) slot.name += tc.function.name;
          if (tc.function?.arguments) slot.args += tc.function.arguments;
        }
      }
      const content: Block[] = text ? [{ type: 'text', text }] : [];
      for (const c of calls) {
        let input: unknown = {};
        try {
          input = c.args ? JSON.parse(c.args) : {};
        } catch {
          // A model that emits broken JSON arguments gets them back as a string; the tool's validation answers.
          input = { _raw: c.args };
        }
        content.push({ type: 'tool_use', id: c.id || `call_${calls.indexOf(c)}`, name: c.name, input });
      }
      return { content, usage };
    });
  },
};
