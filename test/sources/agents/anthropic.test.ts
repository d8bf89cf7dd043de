// The anthropic provider end to end through the pipeline: @anthropic-ai/sdk against the fake Messages API. The
// behaviour every API provider shares is the contract (provider-contract.ts); here are the adapter that reads the
// Messages API's wire format for it, and what is the Messages API's own: its history of content blocks.
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import {
  type FakeAnthropic,
  type FakeBlock,
  type FakeReply,
  startFakeAnthropic,
} from '../../helpers/fake-anthropic.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { agentHub } from './agent-hub.ts';
import { type ModelCall, providerContract, type ScriptedReply, type Turn } from './provider-contract.ts';

function toFakeReply(reply: ScriptedReply): FakeReply {
  if (typeof reply === 'string') return reply;
  const content: FakeBlock[] = [
    ...(reply.text ? [{ type: 'text' as const, text: reply.text }] : []),
    ...(reply.calls ?? []).map((c) => ({
      type: 'tool_use' as const,
      name: c.name,
      input: c.args,
      ...(c.id ? { id: c.id } : {}),
    })),
  ];
  return {
    content,
    ...(reply.usage ? { usage: { input_tokens: reply.usage.input, output_tokens: reply.usage.output } } : {}),
    ...(reply.delayMs ? { delayMs: reply.delayMs } : {}),
    ...(reply.error ? { error: { ...reply.error, type: 'invalid_request_error' } } : {}),
  };
}

/** Text of a content field: a string, or the text blocks of an array, joined by newlines. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

function turnOf(message: { role: 'user' | 'assistant'; content: any }): Turn {
  const blocks: any[] = Array.isArray(message.content) ? message.content : [];
  return {
    role: message.role,
    text: textOf(message.content),
    calls: blocks.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, args: b.input })),
    results: blocks
      .filter((b) => b.type === 'tool_result')
      .map((b) => ({ id: b.tool_use_id, content: textOf(b.content) })),
  };
}

function modelCallOf(req: FakeAnthropic['requests'][number]): ModelCall {
  const { body, headers } = req;
  return {
    model: body.model,
    maxTokens: body.max_tokens,
    system: textOf(body.system),
    apiKey: String(headers['x-api-key'] ?? headers.authorization ?? '').replace(/^Bearer /, ''),
    tools: (body.tools ?? []).map((t: { name: string }) => t.name),
    conversation: body.messages.map(turnOf),
  };
}

providerContract({
  name: 'anthropic',
  keyVariable: 'ANTHROPIC_API_KEY',
  hubOptions: (url) => ({ anthropic: url }),
  async start(opts = {}) {
    const fake = await startFakeAnthropic({
      replies: opts.replies?.map(toFakeReply),
      ...(opts.fallback ? { fallback: toFakeReply(opts.fallback) } : {}),
    });
    return {
      url: fake.url,
      calls: () => fake.messages().map(modelCallOf),
      hungUp: fake.hungUp,
      close: fake.close,
    };
  },
});

describe('anthropic provider: the Messages API wire format', () => {
  let api: FakeAnthropic | undefined;
  let hub: TestHub | undefined;
  closeAfterEach(() => [hub, api]);

  it('the history is content blocks: text, tool_use, and the tool_results in one user message', async () => {
    api = await startFakeAnthropic({
      replies: [
        {
          content: [
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'weather' } },
          ],
        },
        'It is sunny.',
        'You asked about the weather.',
      ],
    });
    hub = await agentHub({ anthropic: api.url });
    const lookup = {
      name: 'lookup',
      description: 'Look up',
      input_schema: { type: 'object', properties: { q: { type: 'string' } } },
    };
    await hub.value('agent.start', { session_name: 'w', provider: 'anthropic', prompt: 'weather?', tools: [lookup] });
    expect(api.messages()[0].body).toMatchObject({ stream: true, tools: [lookup] });
    await hub.value('agent.resume', {
      session_name: 'w',
      tool_results: [{ tool_use_id: 'toolu_1', content: 'sunny' }],
    });
    expect(api.messages()[1].body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'weather' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
    ]);
    await hub.value('agent.resume', { session_name: 'w', prompt: 'What did I ask?' });
    expect(api.messages()[2].body.messages.slice(-2)).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'It is sunny.' }] },
      { role: 'user', content: [{ type: 'text', text: 'What did I ask?' }] },
    ]);
  });

  it("a failed turn's prompt and the next one go as two text blocks of one user message", async () => {
    api = await startFakeAnthropic({
      replies: [
        { content: [], error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long' } },
        'better now',
      ],
    });
    hub = await agentHub({ anthropic: api.url });
    await hub.call('agent.start', { session_name: 'err', provider: 'anthropic', prompt: 'x' });
    await hub.value('agent.resume', { session_name: 'err', prompt: 'shorter' });
    expect(api.messages()[1].body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'x' },
          { type: 'text', text: 'shorter' },
        ],
      },
    ]);
  });
});
