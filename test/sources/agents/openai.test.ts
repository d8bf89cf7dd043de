// The openai provider through the pipeline: the `openai` package against the fake chat-completions endpoint,
// with the history converted to chat messages (tool calls and `tool` results) and callback tools.
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeOpenAI, startFakeOpenAI } from '../../helpers/fake-openai.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { agentHub } from './agent-hub.ts';

let api: FakeOpenAI | undefined;
let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  await api?.close();
  hub = api = undefined;
});

describe('openai provider', () => {
  it('start → result with the system prompt, model, max_tokens and usage', async () => {
    api = await startFakeOpenAI({
      replies: [{ content: 'Hello from a local model', usage: { prompt_tokens: 11, completion_tokens: 3 } }],
    });
    hub = await agentHub({
      openai: api.url,
      agents: {
        local: {
          json: { name: 'local', description: 'A local model', provider: 'openai', model: 'qwen-test' },
          prompt: 'Be brief.',
        },
      },
    });
    const result = await hub.value('agent.start', {
      session_name: 'o1',
      agent_name: 'local',
      prompt: 'hi',
      max_tokens: 99,
    });
    expect(result).toMatchObject({
      status: 'completed',
      content: 'Hello from a local model',
      usage: { input_tokens: 11, output_tokens: 3 },
      turns: 1,
    });
    const body = api.completions()[0].body;
    expect(body).toMatchObject({ model: 'qwen-test', max_tokens: 99, stream: true });
    expect(body.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
    expect(api.completions()[0].headers.authorization).toBe('Bearer test-key');
  });

  it('base_url and api_key from config reach the endpoint', async () => {
    api = await startFakeOpenAI({ replies: ['configured'] });
    hub = await agentHub({
      config: `[agents.providers.openai]\nbase_url = "${api.url}"\napi_key = "from-config"\nmodel = "m-config"`,
    });
    const result = await hub.value('agent.start', { session_name: 'cfg', provider: 'openai', prompt: 'x' });
    expect(result.content).toBe('configured');
    expect(api.completions()[0].headers.authorization).toBe('Bearer from-config');
    expect(api.completions()[0].body.model).toBe('m-config');
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

  it('missing provider configuration names OPENAI_API_KEY and the config setting', async () => {
    hub = await agentHub({});
    const out = await hub.call('agent.start', { session_name: 'nokey', provider: 'openai', prompt: 'x' });
    expect(!out.ok && out.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/OPENAI_API_KEY.*\[agents\.providers\.openai\]/),
    });
  });
});
