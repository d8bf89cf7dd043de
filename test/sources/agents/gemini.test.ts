// The gemini provider through the pipeline: @google/genai against the fake Gemini API on loopback. The behaviour
// every API provider shares is the contract (provider-contract.ts), run here through the adapter in gemini-adapter.ts;
// the rest is what is that API's own: the history as Gemini contents (functionCall / functionResponse, thought
// signatures), the model in the path, and calls Gemini gives no id.
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import { type FakeGemini, startFakeGemini } from '../../helpers/fake-gemini.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { agentHub } from './agent-hub.ts';
import { geminiUnderTest } from './gemini-adapter.ts';
import { providerContract } from './provider-contract.ts';

providerContract(geminiUnderTest);

const LOOKUP = {
  name: 'lookup',
  description: 'Look up',
  input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};

describe('gemini provider: the Gemini API wire format', () => {
  let api: FakeGemini | undefined;
  let hub: TestHub | undefined;
  closeAfterEach(() => [hub, api]);

  it('the first request streams from the model in the path, with the system instruction and maxOutputTokens', async () => {
    api = await startFakeGemini({ replies: ['Hello from Gemini'] });
    hub = await agentHub({
      gemini: api.url,
      agents: {
        g: {
          json: { name: 'g', description: 'On Gemini', provider: 'gemini', model: 'gemini-test' },
          prompt: 'Be brief.',
        },
      },
    });
    await hub.value('agent.start', { session_name: 'g1', agent_name: 'g', prompt: 'hi', max_tokens: 77 });
    const [call] = api.generations();
    expect(call.path).toBe('/v1beta/models/gemini-test:streamGenerateContent');
    expect(call.query).toBe('alt=sse');
    expect(call.headers['x-goog-api-key']).toBe('test-key');
    expect(call.body.contents).toEqual([{ role: 'user', parts: [{ text: 'hi' }] }]);
    expect(JSON.stringify(call.body.systemInstruction)).toContain('Be brief.');
    expect(call.body.generationConfig.maxOutputTokens).toBe(77);
  });

  it('a callback tool round trip: functionCall pauses the turn, tool_results go back as functionResponse', async () => {
    api = await startFakeGemini({
      replies: [
        {
          text: 'Looking.',
          function_calls: [{ id: 'fc_1', name: 'lookup', args: { q: 'weather' }, thoughtSignature: 'c2lnbmF0dXJl' }],
        },
        'It is sunny.',
        'You asked about the weather.',
      ],
    });
    hub = await agentHub({ gemini: api.url });
    const paused = await hub.value('agent.start', {
      session_name: 'g2',
      provider: 'gemini',
      prompt: 'weather?',
      tools: [LOOKUP],
    });
    expect(paused).toMatchObject({
      status: 'pending_tool_call',
      content: 'Looking.',
      pending_tool_calls: [{ id: 'fc_1', tool_name: 'lookup', args: { q: 'weather' } }],
    });
    expect(api.generations()[0].body.tools).toEqual([
      { functionDeclarations: [{ name: 'lookup', description: 'Look up', parametersJsonSchema: LOOKUP.input_schema }] },
    ]);
    const done = await hub.value('agent.resume', {
      session_name: 'g2',
      tool_results: [{ tool_use_id: 'fc_1', content: 'sunny' }],
    });
    expect(done).toMatchObject({ status: 'completed', content: 'It is sunny.' });
    expect(api.generations()[1].body.contents).toEqual([
      { role: 'user', parts: [{ text: 'weather?' }] },
      {
        role: 'model',
        parts: [
          { text: 'Looking.' },
          // The call's thought signature goes back with it, as Gemini requires.
          { functionCall: { id: 'fc_1', name: 'lookup', args: { q: 'weather' } }, thoughtSignature: 'c2lnbmF0dXJl' },
        ],
      },
      { role: 'user', parts: [{ functionResponse: { id: 'fc_1', name: 'lookup', response: { output: 'sunny' } } }] },
    ]);
    await hub.value('agent.resume', { session_name: 'g2', prompt: 'What did I ask?' });
    const third = api.generations()[2].body.contents;
    expect(third.at(-2)).toEqual({ role: 'model', parts: [{ text: 'It is sunny.' }] });
    expect(third.at(-1)).toEqual({ role: 'user', parts: [{ text: 'What did I ask?' }] });
  });

  it('names a call Gemini gave no id (a built-in task board call here), and answers it under that id', async () => {
    api = await startFakeGemini({
      replies: [
        { function_calls: [{ name: 'task__create', args: { text: 'Written by Gemini', priority: 60 } }] },
        'Done.',
      ],
    });
    hub = await agentHub({ gemini: api.url });
    const result = await hub.value('agent.start', {
      session_name: 'g3',
      provider: 'gemini',
      prompt: 'plan',
      enable_builtins: true,
    });
    expect(result).toMatchObject({ status: 'completed', content: 'Done.', tool_calls: 1, turns: 2 });
    expect(JSON.stringify(await hub.value('task.list', {}))).toContain('Written by Gemini');
    const [model, answer] = api.generations()[1].body.contents.slice(-2);
    const id = model.parts[0].functionCall.id;
    expect(id).toMatch(/^call_/);
    expect(answer.parts[0].functionResponse).toMatchObject({ id, name: 'task__create' });
    expect(answer.parts[0].functionResponse.response.output).toContain('Written by Gemini');
  });
});
