// The adapter that puts the gemini provider under the API-provider contract (provider-contract.ts): it scripts
// replies for the fake Gemini API and reads each generation back in the contract's neutral form. gemini.test.ts runs
// the contract through it, and test/originals/meerkat.test.ts runs the contract's wrapper-form case on Meerkat's own
// file through it; it lives outside the test file so both import it without importing a test file.
import { type FakeGeminiReply, type RecordedGeminiRequest, startFakeGemini } from '../../helpers/fake-gemini.ts';
import type { ModelCall, ProviderUnderTest, ScriptedReply, Turn } from './provider-contract.ts';

function toFakeReply(reply: ScriptedReply): FakeGeminiReply {
  if (typeof reply === 'string') return reply;
  return {
    ...(reply.text ? { text: reply.text } : {}),
    ...(reply.calls
      ? { function_calls: reply.calls.map((c) => ({ name: c.name, args: c.args, ...(c.id ? { id: c.id } : {}) })) }
      : {}),
    ...(reply.usage
      ? { usage: { promptTokenCount: reply.usage.input, candidatesTokenCount: reply.usage.output } }
      : {}),
    ...(reply.delayMs ? { delayMs: reply.delayMs } : {}),
    ...(reply.error ? { error: reply.error } : {}),
  };
}

/** The text parts of a content (or a plain string), joined by newlines. */
function textOf(content: any): string {
  if (typeof content === 'string') return content;
  return (content?.parts ?? [])
    .filter((p: { text?: string }) => typeof p.text === 'string')
    .map((p: { text: string }) => p.text)
    .join('\n');
}

function turnOf(content: { role: string; parts: any[] }): Turn {
  return {
    role: content.role === 'model' ? 'assistant' : 'user',
    text: textOf(content),
    calls: content.parts
      .filter((p) => p.functionCall)
      .map(({ functionCall: { id, name, args } }) => ({ id, name, args })),
    results: content.parts
      .filter((p) => p.functionResponse)
      .map((p) => ({
        id: p.functionResponse.id,
        content: p.functionResponse.response.output ?? p.functionResponse.response.error,
      })),
  };
}

function modelCallOf(req: RecordedGeminiRequest): ModelCall {
  const { body, headers } = req;
  return {
    model: /\/models\/([^/:]+):/.exec(req.path)?.[1] ?? '',
    maxTokens: body.generationConfig?.maxOutputTokens,
    system: textOf(body.systemInstruction),
    apiKey: String(headers['x-goog-api-key'] ?? ''),
    tools: (body.tools ?? []).flatMap((t: { functionDeclarations?: { name: string }[] }) =>
      (t.functionDeclarations ?? []).map((d) => d.name),
    ),
    conversation: body.contents.map(turnOf),
  };
}

/** The gemini provider under the API-provider contract, through the fake Gemini API. */
export const geminiUnderTest: ProviderUnderTest = {
  name: 'gemini',
  keyVariable: 'GEMINI_API_KEY',
  hubOptions: (url) => ({ gemini: url }),
  async start(opts = {}) {
    const fake = await startFakeGemini({
      replies: opts.replies?.map(toFakeReply),
      ...(opts.fallback ? { fallback: toFakeReply(opts.fallback) } : {}),
    });
    return {
      url: fake.url,
      calls: () => fake.generations().map(modelCallOf),
      hungUp: fake.hungUp,
      close: fake.close,
    };
  },
};
