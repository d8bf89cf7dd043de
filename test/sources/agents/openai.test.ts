// The openai provider through the pipeline: the `openai` package against the fake chat-completions endpoint. The
// behaviour every API provider shares is the contract (provider-contract.ts); here are the adapter that reads chat
// completions for it, and what is that API's own: the history converted to chat messages (tool calls and `tool`
// results), the system prompt as the first message, streaming.
import { describe, expect, it } from 'vitest';
import { toChatMessages } from '../../../src/sources/agents/providers/openai.ts';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import {
  type FakeChatReply,
  type FakeOpenAI,
  type RecordedChatRequest,
  startFakeOpenAI,
} from '../../helpers/fake-openai.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { agentHub } from './agent-hub.ts';
import { type ModelCall, providerContract, type ScriptedReply, type Turn } from './provider-contract.ts';

function toFakeReply(reply: ScriptedReply): FakeChatReply {
  if (typeof reply === 'string') return reply;
  return {
    ...(reply.text ? { content: reply.text } : {}),
    ...(reply.calls
      ? { tool_calls: reply.calls.map((c) => ({ name: c.name, arguments: c.args, ...(c.id ? { id: c.id } : {}) })) }
      : {}),
    ...(reply.usage ? { usage: { prompt_tokens: reply.usage.input, completion_tokens: reply.usage.output } } : {}),
    ...(reply.delayMs ? { delayMs: reply.delayMs } : {}),
    ...(reply.error ? { error: reply.error } : {}),
  };
}

/**
 * Chat messages as neutral turns: the system message is left out, and `tool` messages with the user message after
 * them are one user turn (the provider writes one neutral user message that way).
 */
function conversationOf(messages: any[]): Turn[] {
  const turns: Turn[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    if (m.role === 'assistant') {
      turns.push({
        role: 'assistant',
        text: m.content ?? '',
        calls: (m.tool_calls ?? []).map((c: any) => ({
          id: c.id,
          name: c.function.name,
          args: JSON.parse(c.function.arguments),
        })),
        results: [],
      });
      continue;
    }
    let last = turns.at(-1);
    if (last?.role !== 'user' || last.text) {
      last = { role: 'user', text: '', calls: [], results: [] };
      turns.push(last);
    }
    if (m.role === 'tool') last.results.push({ id: m.tool_call_id, content: m.content });
    else last.text = m.content;
  }
  return turns;
}

function modelCallOf(req: RecordedChatRequest): ModelCall {
  const { body, headers } = req;
  return {
    model: body.model,
    maxTokens: body.max_tokens,
    system: body.messages.find((m: { role: string }) => m.role === 'system')?.content ?? '',
    apiKey: String(headers.authorization ?? '').replace(/^Bearer /, ''),
    tools: (body.tools ?? []).map((t: { function: { name: string } }) => t.function.name),
    conversation: conversationOf(body.messages),
  };
}

providerContract({
  name: 'openai',
  keyVariable: 'OPENAI_API_KEY',
  hubOptions: (url) => ({ openai: url }),
  async start(opts = {}) {
    const fake = await startFakeOpenAI({
      replies: opts.replies?.map(toFakeReply),
      ...(opts.fallback ? { fallback: toFakeReply(opts.fallback) } : {}),
    });
    return {
      url: fake.url,
      calls: () => fake.completions().map(modelCallOf),
      hungUp: fake.hungUp,
      close: fake.close,
    };
  },
});

describe('openai provider: the chat-completions wire format', () => {
  let api: FakeOpenAI | undefined;
  let hub: TestHub | undefined;
  closeAfterEach(() => [hub, api]);

  it('the first request streams, with usage asked for and the system prompt as the first chat message', async () => {
    api = await startFakeOpenAI({ replies: ['Hello from a local model'] });
    hub = await agentHub({
      openai: api.url,
      agents: {
        local: {
          json: { name: 'local', description: 'A local model', provider: 'openai', model: 'qwen-test' },
          prompt: 'Be brief.',
        },
      },
    });
    await hub.value('agent.start', { session_name: 'o1', agent_name: 'local', prompt: 'hi', max_tokens: 99 });
    const body = api.completions()[0].body;
    expect(body).toMatchObject({
      model: 'qwen-test',
      max_tokens: 99,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(api.completions()[0].headers.authorization).toBe('Bearer test-key');
  });

  it('a callback tool round trip and resume keep the conversation as chat messages', async () => {
    api = await startFakeOpenAI({
      replies: [
        { content: 'Looking.', tool_calls: [{ id: 'call_1', name: 'lookup', arguments: { q: 'weather' } }] },
        'It is sunny.',
        'You asked about the weather.',
      ],
    });
    hub = await agentHub({ openai: api.url });
    const paused = await hub.value('agent.start', {
      session_name: 'o2',
      provider: 'openai',
      prompt: 'weather?',
      tools: [
        {
          name: 'lookup',
          description: 'Look up',
          input_schema: { type: 'object', properties: { q: { type: 'string' } } },
        },
      ],
    });
    expect(paused).toMatchObject({
      status: 'pending_tool_call',
      pending_tool_calls: [{ id: 'call_1', tool_name: 'lookup', args: { q: 'weather' } }],
    });
    expect(api.completions()[0].body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'lookup',
          description: 'Look up',
          parameters: { type: 'object', properties: { q: { type: 'string' } } },
        },
      },
    ]);
    const done = await hub.value('agent.resume', {
      session_name: 'o2',
      tool_results: [{ tool_use_id: 'call_1', content: 'sunny' }],
    });
    expect(done).toMatchObject({ status: 'completed', content: 'It is sunny.' });
    expect(api.completions()[1].body.messages).toEqual([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"weather"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
    ]);
    await hub.value('agent.resume', { session_name: 'o2', prompt: 'What did I ask?' });
    const third = api.completions()[2].body.messages;
    expect(third.at(-2)).toEqual({ role: 'assistant', content: 'It is sunny.' });
    expect(third.at(-1)).toEqual({ role: 'user', content: 'What did I ask?' });
  });
});

describe('toChatMessages', () => {
  it("keeps a user message's texts apart: a failed turn's prompt and the next are two paragraphs", () => {
    const messages = toChatMessages('sys', [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first prompt' },
          { type: 'text', text: 'second prompt' },
        ],
      },
    ]);
    expect(messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'first prompt\n\nsecond prompt' },
    ]);
  });
});
