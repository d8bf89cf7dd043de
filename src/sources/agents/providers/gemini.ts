// The `gemini` provider: the Gemini API through Google's @google/genai, streaming, with Switchboard's tool loop.
// Key and base URL come from [agents.providers.gemini] or GEMINI_API_KEY (GOOGLE_API_KEY) / GOOGLE_GEMINI_BASE_URL,
// never tool input.
import type { Content, GoogleGenAI, Part } from '@google/genai';
import type { AgentsConfig } from '../../../config/schema.ts';
import { traceHeaders } from '../../../core/trace-context.ts';
import { type Completion, runToolLoop } from '../tool-loop.ts';
import type { Block, Message, Provider } from './provider.ts';

/** The public endpoint, named so the SDK never picks a base URL or Vertex AI from the hub's own environment. */
const PUBLIC_URL = 'https://generativelanguage.googleapis.com/';

function credentials(config: AgentsConfig, env: NodeJS.ProcessEnv) {
  const own = config.providers.gemini;
  return {
    apiKey: own.api_key ?? env.GEMINI_API_KEY ?? env.GOOGLE_API_KEY,
    baseUrl: own.base_url ?? env.GOOGLE_GEMINI_BASE_URL ?? PUBLIC_URL,
  };
}

const clients = new Map<string, GoogleGenAI>();
/** The SDK is loaded on the first turn: a hub that never runs a gemini turn never loads it (cold start). */
async function clientFor(apiKey: string, baseUrl: string): Promise<GoogleGenAI> {
  const key = `${baseUrl}\n${apiKey}`;
  let client = clients.get(key);
  if (!client) {
    const { GoogleGenAI } = await import('@google/genai');
    client = new GoogleGenAI({ apiKey, vertexai: false, httpOptions: { baseUrl } });
    clients.set(key, client);
  }
  return client;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The neutral history as Gemini contents: assistant → `model`, tool_use → functionCall (with its signature),
 * tool_result → functionResponse, which Gemini matches by the function's name as well as the call's id.
 */
export function toContents(messages: Message[]): Content[] {
  const names = new Map<string, string>();
  for (const m of messages) for (const b of m.content) if (b.type === 'tool_use') names.set(b.id, b.name);
  return messages.map((m) => ({
    role: m.role === 'assistant' ? 'model' : 'user',
    parts: m.content.map((b): Part => {
      if (b.type === 'text') return { text: b.text };
      if (b.type === 'tool_use')
        return {
          functionCall: { id: b.id, name: b.name, args: isObject(b.input) ? b.input : { value: b.input } },
          ...(b.signature ? { thoughtSignature: b.signature } : {}),
        };
      return {
        functionResponse: {
          id: b.tool_use_id,
          name: names.get(b.tool_use_id) ?? b.tool_use_id,
          response: b.is_error ? { error: b.content } : { output: b.content },
        },
      };
    }),
  }));
}

let callCounter = 0;

export const geminiProvider: Provider = {
  name: 'gemini',
  toolLoop: true,
  problem(config, env) {
    if (credentials(config, env).apiKey) return undefined;
    return 'The gemini provider is not configured: set the GEMINI_API_KEY (or GOOGLE_API_KEY) environment variable or api_key in [agents.providers.gemini] (and base_url / GOOGLE_GEMINI_BASE_URL for another endpoint).';
  },
  defaultModel: (config) => config.providers.gemini.model,
  async runTurn(req) {
    const { apiKey, baseUrl } = credentials(req.config, req.env);
    const client = await clientFor(apiKey as string, baseUrl);
    const model = req.model ?? req.config.providers.gemini.model;
    return runToolLoop(req, model, async (args): Promise<Completion> => {
      const stream = await client.models.generateContentStream({
        model: args.model,
        contents: toContents(args.messages),
        config: {
          abortSignal: args.signal,
          ...(req.trace ? { httpOptions: { headers: traceHeaders(req.trace) } } : {}),
          maxOutputTokens: args.maxTokens,
          ...(args.system ? { systemInstruction: args.system } : {}),
          ...(args.tools.length
            ? {
                tools: [
                  {
                    // The tools' schemas are JSON Schema as given (not Gemini's OpenAPI subset).
                    functionDeclarations: args.tools.map((t) => ({
                      name: t.name,
                      description: t.description,
                      parametersJsonSchema: t.input_schema,
                    })),
                  },
                ],
              }
            : {}),
        },
      });
      let text = '';
      const calls: Block[] = [];
      const usage = { input_tokens: 0, output_tokens: 0 };
      for await (const chunk of stream) {
        // Each chunk's usage is the total so far; the last one counts.
        if (chunk.usageMetadata) {
          usage.input_tokens = chunk.usageMetadata.promptTokenCount ?? 0;
          usage.output_tokens =
            (chunk.usageMetadata.candidatesTokenCount ?? 0) + (chunk.usageMetadata.thoughtsTokenCount ?? 0);
        }
        for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
          if (part.thought) continue;
          if (part.text) text += part.text;
          if (part.functionCall?.name)
            calls.push({
              type: 'tool_use',
              // The Gemini API may leave the id out; the caller of a callback tool needs one to answer it.
              id: part.functionCall.id || `call_${Date.now().toString(36)}_${(callCounter++).toString(36)}`,
              name: part.functionCall.name,
              input: part.functionCall.args ?? {},
              ...(part.thoughtSignature ? { signature: part.thoughtSignature } : {}),
            });
        }
      }
      return { content: [...(text ? [{ type: 'text' as const, text }] : []), ...calls], usage };
    });
  },
};
