// The gemini provider through the pipeline: @google/genai against the fake Gemini API on loopback, with the
// history as Gemini contents (functionCall / functionResponse), callback and built-in tools, structured output
// (Meerkat's wrapper form), usage and cancellation.
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeGemini, startFakeGemini } from '../../helpers/fake-gemini.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { until } from '../../helpers/until.ts';
import { agentHub } from './agent-hub.ts';

let api: FakeGemini | undefined;
let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  await api?.close();
  hub = api = undefined;
});

const LOOKUP = {
  name: 'lookup',
  description: 'Look up',
  input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};

describe('gemini provider', () => {
  it('start → result with the system prompt, model, max_tokens, key and usage', async () => {
    api = await startFakeGemini({
      replies: [{ text: 'Hello from Gemini', usage: { promptTokenCount: 12, candidatesTokenCount: 4 } }],
    });
    hub = await agentHub({
      gemini: api.url,
      agents: {
        g: {
          json: { name: 'g', description: 'On Gemini', provider: 'gemini', model: 'gemini-test' },
          prompt: 'Be brief.',
        },
      },
    });
    const result = await hub.value('agent.start', {
      session_name: 'g1',
      agent_name: 'g',
      prompt: 'hi',
      max_tokens: 77,
    });
    expect(result).toMatchObject({
      status: 'completed',
      content: 'Hello from Gemini',
      usage: { input_tokens: 12, output_tokens: 4 },
      turns: 1,
    });
    const [call] = api.generations();
    expect(call.path).toBe('/v1beta/models/gemini-test:streamGenerateContent');
    expect(call.query).toBe('alt=sse');
    expect(call.headers['x-goog-api-key']).toBe('test-key');
    expect(call.body.contents).toEqual([{ role: 'user', parts: [{ text: 'hi' }] }]);
    expect(JSON.stringify(call.body.systemInstruction)).toContain('Be brief.');
    expect(call.body.generationConfig.maxOutputTokens).toBe(77);
  });

  it('base_url, api_key and model from [agents.providers.gemini] reach the endpoint', async () => {
    api = await startFakeGemini({ replies: ['configured'] });
    hub = await agentHub({
      config: `[agents]\ndefault_provider = "gemini"\n[agents.providers.gemini]\nbase_url = "${api.url}"\napi_key = "from-config"\nmodel = "gemini-config"`,
    });
    const result = await hub.value('agent.start', { session_name: 'cfg', prompt: 'x' });
    expect(result.content).toBe('configured');
    expect(api.generations()[0].headers['x-goog-api-key']).toBe('from-config');
    expect(api.generations()[0].path).toBe('/v1beta/models/gemini-config:streamGenerateContent');
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

  it("runs Switchboard's own tools in its loop (the task board), and names a call Gemini gave no id", async () => {
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

  // Meerkat's own wrapper example goes through the same in test/originals/meerkat.test.ts.
  it("structured output in Meerkat's wrapper form: the inner schema is what the answer is checked against", async () => {
    const wrapper = {
      schema: { type: 'object', properties: { verdict: { type: 'boolean' } }, required: ['verdict'] },
      name: 'review-verdict',
      strict: true,
      compat: 'strict',
      format: 'meerkat_v1',
    };
    api = await startFakeGemini({ replies: ['{"verdict": "yes"}', '{"verdict": true}'] });
    hub = await agentHub({ gemini: api.url });
    const result = await hub.value('agent.start', {
      session_name: 'g4',
      provider: 'gemini',
      prompt: 'answer',
      output_schema: wrapper,
    });
    expect(result).toMatchObject({
      status: 'completed',
      structured_output: { verdict: true },
      schema_warnings: null,
      turns: 2,
    });
    const system = JSON.stringify(api.generations()[0].body.systemInstruction);
    expect(system).toContain('(review-verdict)');
    expect(system).not.toContain('meerkat_v1');
    expect(JSON.stringify(api.generations()[1].body.contents)).toContain('/verdict must be boolean');
  });

  it('cancel stops a running turn (the request is dropped); the session resumes afterwards', async () => {
    api = await startFakeGemini({ replies: [{ text: 'never', delayMs: 30_000 }, 'back again'] });
    hub = await agentHub({ gemini: api.url });
    await hub.value('agent.start', { session_name: 'gc', provider: 'gemini', prompt: 'p', async: true });
    await until(() => api!.generations().length === 1);
    expect(await hub.value('agent.cancel', { session_name: 'gc' })).toMatchObject({
      cancelled: true,
      status: 'cancelled',
    });
    await until(() => api!.hungUp() === 1, { what: 'the request to be dropped' });
    expect((await hub.value('agent.resume', { session_name: 'gc', prompt: 'go' })).content).toBe('back again');
  });

  it('an API error fails the turn with the reason; missing configuration names GEMINI_API_KEY and the setting', async () => {
    api = await startFakeGemini({ replies: [{ error: { status: 400, message: 'model not found: gemini-nope' } }] });
    hub = await agentHub({ gemini: api.url });
    const failed = await hub.call('agent.start', { session_name: 'ge', provider: 'gemini', prompt: 'p' });
    expect(failed.ok && failed.raw?.isError).toBe(true);
    expect(JSON.stringify(failed.ok && failed.raw)).toContain('model not found: gemini-nope');
    await hub.close();
    hub = await agentHub({});
    const out = await hub.call('agent.start', { session_name: 'nokey', provider: 'gemini', prompt: 'x' });
    expect(!out.ok && out.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/GEMINI_API_KEY.*\[agents\.providers\.gemini\]/),
    });
  });
});
