// What Meerkat's meerkat_resume takes beyond a prompt: `model`, `max_tokens` and `provider` apply to the resumed
// turn (the fake model APIs see them) and stay the session's; a provider switch sends the turn, with the
// conversation so far, to the other API. And `output_schema` in Meerkat's wrapper form at start.
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import { type FakeGemini, startFakeGemini } from '../../helpers/fake-gemini.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../../helpers/fake-openai.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { agentHub } from './agent-hub.ts';

let anthropic: FakeAnthropic | undefined;
let openai: FakeOpenAI | undefined;
let gemini: FakeGemini | undefined;
let hub: TestHub | undefined;
closeAfterEach(() => [hub, anthropic, openai, gemini]);

describe('agent.resume overrides', () => {
  it('model and max_tokens apply to the resumed turn and stay for the next ones', async () => {
    anthropic = await startFakeAnthropic({ replies: ['one', 'two', 'three'] });
    hub = await agentHub({ anthropic: anthropic.url });
    await hub.value('agent.start', {
      session_name: 'm',
      provider: 'anthropic',
      model: 'claude-first',
      max_tokens: 50,
      prompt: 'a',
    });
    await hub.value('agent.resume', { session_name: 'm', prompt: 'b', model: 'claude-second', max_tokens: 77 });
    await hub.value('agent.resume', { session_name: 'm', prompt: 'c' });
    expect(anthropic.messages().map((r) => [r.body.model, r.body.max_tokens])).toEqual([
      ['claude-first', 50],
      ['claude-second', 77],
      ['claude-second', 77],
    ]);
    const [shown] = (await hub.value('session.list', { response_format: 'json' })).sessions;
    expect(shown).toMatchObject({ session_name: 'm', model: 'claude-second' });
  });

  it('a provider switch sends the turn and the conversation so far to the other API, with its default model', async () => {
    anthropic = await startFakeAnthropic({ replies: ['Paris.'] });
    openai = await startFakeOpenAI({ replies: ['About 2 million.'] });
    gemini = await startFakeGemini({ replies: ['France.'] });
    hub = await agentHub({
      anthropic: anthropic.url,
      openai: openai.url,
      gemini: gemini.url,
      config: '[agents.providers.gemini]\nmodel = "gemini-default"',
    });
    await hub.value('agent.start', { session_name: 'p', provider: 'anthropic', prompt: 'Capital of France?' });
    const second = await hub.value('agent.resume', {
      session_name: 'p',
      prompt: 'Its population?',
      provider: 'openai',
      model: 'gpt-chosen',
    });
    expect(second.content).toBe('About 2 million.');
    expect(openai.completions()[0].body).toMatchObject({
      model: 'gpt-chosen',
      messages: [
        { role: 'user', content: 'Capital of France?' },
        { role: 'assistant', content: 'Paris.' },
        { role: 'user', content: 'Its population?' },
      ],
    });
    // No model given: the new provider's default, not the old provider's model.
    await hub.value('agent.resume', { session_name: 'p', prompt: 'Which country?', provider: 'gemini' });
    const [call] = gemini.generations();
    expect(call.path).toBe('/v1beta/models/gemini-default:streamGenerateContent');
    expect(call.body.contents.map((c: { role: string }) => c.role)).toEqual(['user', 'model', 'user', 'model', 'user']);
    expect(anthropic.messages()).toHaveLength(1);
  });

  it('refuses a switch to or from claude-cli, whose conversation lives in its own session, and runs nothing', async () => {
    anthropic = await startFakeAnthropic({ replies: ['hi'] });
    hub = await agentHub({ anthropic: anthropic.url });
    await hub.value('agent.start', { session_name: 'c', provider: 'anthropic', prompt: 'a' });
    const out = await hub.call('agent.resume', { session_name: 'c', prompt: 'b', provider: 'claude-cli' });
    expect(!out.ok && out.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/runs on anthropic; it can move only between the API providers/),
    });
    const unset = await hub.call('agent.resume', { session_name: 'c', prompt: 'b', provider: 'openai' });
    expect(!unset.ok && unset.error.message).toMatch(/OPENAI_API_KEY/);
    expect(anthropic.messages()).toHaveLength(1);
    // The refused resumes changed nothing: the next one runs where the session was.
    anthropic.enqueue('still here');
    expect((await hub.value('agent.resume', { session_name: 'c', prompt: 'b' })).content).toBe('still here');
  });
});

describe("output_schema in Meerkat's wrapper form", () => {
  it('a wrapper with something wrong is refused naming the key; a schema with a property called schema is a schema', async () => {
    anthropic = await startFakeAnthropic({ replies: ['{"schema": "x", "n": 1}'] });
    hub = await agentHub({ anthropic: anthropic.url });
    const start = (output_schema: unknown) =>
      hub!.call('agent.start', { session_name: 'w', provider: 'anthropic', prompt: 'p', output_schema });
    const cases: Array<[unknown, RegExp]> = [
      [{ schema: 'object', name: 'x' }, /output_schema\.schema: expected a JSON Schema object/],
      [{ schema: { type: 'object' }, compat: 'loose' }, /output_schema\.compat: expected "lossy" or "strict"/],
      [{ schema: { type: 'object' }, format: 'meerkat_v1', extra: 1 }, /unknown wrapper key 'extra'/],
      [{ schema: { type: 'nonsense' }, strict: true }, /output_schema is not a valid JSON Schema/],
    ];
    for (const [schema, message] of cases) {
      const out = await start(schema);
      expect(!out.ok && out.error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(message) });
    }
    // Meerkat's own rule: keys beside `schema` other than the wrapper's make it a plain JSON Schema.
    const raw = await hub.value('agent.start', {
      session_name: 'raw',
      provider: 'anthropic',
      prompt: 'p',
      output_schema: { type: 'object', schema: { type: 'string' }, properties: { n: { type: 'integer' } } },
    });
    expect(raw).toMatchObject({ status: 'completed', structured_output: { schema: 'x', n: 1 }, schema_warnings: null });
  });
});
