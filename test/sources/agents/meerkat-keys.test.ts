// Meerkat's meerkat_run / meerkat_resume keys on agent__start / agent__resume: at their defaults they ask for
// nothing and are taken; those Switchboard honours change the turn (transient_turn_context, a resume's built-ins,
// output_schema and retries, session_id); any other value is refused naming the key; an unknown key still is.
// Meerkat's own doc examples run in test/originals/meerkat.test.ts; the calls here are ours, in Meerkat's shape.
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { agentHub } from './agent-hub.ts';

let api: FakeAnthropic | undefined;
let hub: TestHub | undefined;
closeAfterEach(() => [hub, api]);

/** Every key of Meerkat's run input that Switchboard has no equivalent for, each at a default. */
const AT_DEFAULTS = {
  stream: false,
  verbose: false,
  host_mode: false,
  keep_alive: null,
  comms_name: null,
  peer_meta: null,
  hooks_override: {},
  enable_memory: null,
  enable_schedule: false,
  enable_workgraph: null,
  enable_mob: null,
  enable_web_search: false,
  provider_params: null,
  budget_limits: { max_tokens: null, max_duration_secs: null },
  preload_skills: [],
  skill_refs: null,
  skill_references: null,
  labels: null,
  additional_instructions: [],
  app_context: null,
  shell_env: {},
  auth_binding: null,
  structured_output_retries: null,
  enable_builtins: null,
  builtin_config: { enable_shell: null, shell_timeout_secs: null },
  output_schema: null,
  system_prompt: null,
  model: null,
  max_tokens: null,
  provider: 'anthropic',
};

async function started(replies: Parameters<typeof startFakeAnthropic>[0] = {}) {
  api = await startFakeAnthropic(replies);
  hub = await agentHub({ anthropic: api.url });
  return { api, hub };
}

const userTexts = (body: { messages: { role: string; content: unknown }[] }) =>
  JSON.stringify(body.messages.filter((m) => m.role === 'user'));

describe("Meerkat's run keys on agent__start", () => {
  it('at their defaults they ask for nothing: the turn runs as without them', async () => {
    const { api, hub } = await started({ replies: ['fine'] });
    const result = await hub.value('agent.start', { session_name: 'd', prompt: 'hello', ...AT_DEFAULTS });
    expect(result).toMatchObject({ status: 'completed', content: 'fine' });
    expect(api.messages()[0].body).not.toHaveProperty('tools');
  });

  it('a value Switchboard cannot honour is refused naming the key and what it takes; nothing runs', async () => {
    const { api, hub } = await started();
    const cases: Array<[string, unknown, RegExp]> = [
      ['keep_alive', true, /keep_alive: .*at its default.*no inter-agent comms/],
      ['hooks_override', { entries: [{ point: 'pre_tool_execution' }] }, /hooks_override: .*docs\/hooks\.md/],
      ['budget_limits', { max_tool_calls: 3 }, /budget_limits: .*\[agents\] max_model_calls/],
      ['enable_mob', true, /enable_mob: .*no mobs/],
      ['labels', { team: 'a' }, /labels: .*found by their name/],
      ['preload_skills', [{ source_uuid: 'u', skill_name: 's' }], /preload_skills: .*does not inject skills/],
    ];
    for (const [key, value, message] of cases) {
      const out = await hub.call('agent.start', { session_name: 'r', prompt: 'p', [key]: value });
      expect(!out.ok && out.error, key).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(message),
      });
    }
    const unknown = await hub.call('agent.start', { session_name: 'r', prompt: 'p', strem: true });
    expect(!unknown.ok && unknown.error.message).toMatch(/Unrecognized key.*"strem"/);
    const shellKey = await hub.call('agent.start', { session_name: 'r', prompt: 'p', builtin_config: { shell: true } });
    expect(!shellKey.ok && shellKey.error.message).toMatch(/builtin_config: Unrecognized key.*"shell"/);
    const other = await hub.call('agent.start', { session_name: 'r', prompt: 'p', provider: 'other' });
    expect(!other.ok && other.error.message).toMatch(
      /provider: expected one of claude-cli, anthropic, openai, gemini, got "other" \(Meerkat's "other" and "self_hosted" are openai with \[agents\.providers\.openai\] base_url\)/,
    );
    expect(api.messages()).toEqual([]);
  });

  it("transient_turn_context: that turn's model calls see it after the prompt; the history keeps only the prompt", async () => {
    const { api, hub } = await started({
      replies: [{ content: [{ type: 'tool_use', id: 't1', name: 'task__list', input: {} }] }, 'first', 'second'],
    });
    await hub.value('agent.start', {
      session_name: 'ctx',
      provider: 'anthropic',
      prompt: 'list my tasks',
      transient_turn_context: 'It is Tuesday.',
      enable_builtins: true,
    });
    // Both model calls of the turn (before and after its tool call) carry it; the next turn does not.
    const [one, two] = api.messages().map((m) => userTexts(m.body));
    expect(one).toContain('It is Tuesday.');
    expect(two).toContain('It is Tuesday.');
    await hub.value('agent.resume', { session_name: 'ctx', prompt: 'and now?' });
    const three = userTexts(api.messages()[2].body);
    expect(three).toContain('list my tasks');
    expect(three).not.toContain('It is Tuesday.');
    const transcript = await hub.value('session.transcript', { session_name: 'ctx' });
    expect(JSON.stringify(transcript)).toContain('list my tasks');
    expect(JSON.stringify(transcript)).not.toContain('It is Tuesday.');
  });

  it('transient_turn_context on claude-cli, which keeps every message in its own session, is refused', async () => {
    const { hub } = await started();
    const out = await hub.call('agent.start', {
      session_name: 'cli',
      provider: 'claude-cli',
      prompt: 'p',
      transient_turn_context: 'facts',
    });
    expect(!out.ok && out.error.message).toMatch(/transient_turn_context: claude-cli keeps every message/);
    expect(await hub.value('session.list', { response_format: 'json' })).toMatchObject({ sessions: [] });
  });
});

describe("Meerkat's resume keys on agent__resume", () => {
  const tool = { name: 'lookup', description: 'Look up', input_schema: { type: 'object' } };

  it('session_id names the session; a different session_name beside it, or neither, is refused', async () => {
    const { hub } = await started({ replies: ['one', 'two'] });
    await hub.value('agent.start', { session_name: 's1', provider: 'anthropic', prompt: 'a' });
    expect(await hub.value('agent.resume', { session_id: 's1', prompt: 'b', stream: false })).toMatchObject({
      session_id: 's1',
      content: 'two',
    });
    const both = await hub.call('agent.resume', { session_id: 's1', session_name: 's2', prompt: 'c' });
    expect(!both.ok && both.error.message).toMatch(/session_id: 's1' and session_name: 's2' name different sessions/);
    const none = await hub.call('agent.resume', { prompt: 'c' });
    expect(!none.ok && none.error.message).toMatch(/session_name: required \(or session_id, as Meerkat spells it\)/);
  });

  it("tools: [] or the session's own list is taken; another list is refused naming the session's tools", async () => {
    const { api, hub } = await started({
      replies: [{ content: [{ type: 'tool_use', id: 'c1', name: 'lookup', input: {} }] }, 'done', 'again'],
    });
    await hub.value('agent.start', { session_name: 't', provider: 'anthropic', prompt: 'a', tools: [tool] });
    const other = await hub.call('agent.resume', {
      session_name: 't',
      tool_results: [{ tool_use_id: 'c1', content: 'x' }],
      tools: [{ ...tool, name: 'search' }],
    });
    expect(!other.ok && other.error.message).toMatch(
      /tools: session 't' keeps the callback tools it started with \(lookup\)/,
    );
    await hub.value('agent.resume', {
      session_name: 't',
      prompt: '',
      tool_results: [{ tool_use_id: 'c1', content: 'x', is_error: false }],
      tools: [{ ...tool, handler: 'callback' }],
    });
    await hub.value('agent.resume', { session_name: 't', prompt: 'b', tools: [] });
    expect(api.messages()).toHaveLength(3);
  });

  it('enable_builtins, output_schema and structured_output_retries apply from this turn on', async () => {
    const { api, hub } = await started({ replies: ['plain', 'not json', '{"n": 2}', '{"n": 3}'] });
    await hub.value('agent.start', { session_name: 'o', provider: 'anthropic', prompt: 'a' });
    expect(api.messages()[0].body).not.toHaveProperty('tools');
    const second = await hub.value('agent.resume', {
      session_name: 'o',
      prompt: 'count',
      enable_builtins: true,
      output_schema: { schema: { type: 'object', required: ['n'] }, name: 'count' },
      structured_output_retries: 1,
    });
    expect(second).toMatchObject({ status: 'completed', structured_output: { n: 2 }, turns: 2 });
    expect(api.messages()[1].body.tools.map((t: { name: string }) => t.name)).toContain('task__list');
    expect(api.messages()[1].body.system).toContain('(count)');
    // The next resume keeps them: built-ins offered, the schema checked.
    expect(await hub.value('agent.resume', { session_name: 'o', prompt: 'again' })).toMatchObject({
      structured_output: { n: 3 },
    });
    expect(api.messages()[3].body.tools.map((t: { name: string }) => t.name)).toContain('task__list');
    const shell = await hub.call('agent.resume', {
      session_name: 'o',
      prompt: 'x',
      enable_builtins: false,
      builtin_config: { enable_shell: true },
    });
    expect(!shell.ok && shell.error.message).toMatch(/builtin_config\.enable_shell needs enable_builtins: true/);
  });

  it('system_prompt and turn_tool_overlay at their defaults are taken; given, they are refused by name', async () => {
    const { hub } = await started({ replies: ['one', 'two'] });
    await hub.value('agent.start', { session_name: 'p', provider: 'anthropic', prompt: 'a' });
    const out = await hub.call('agent.resume', { session_name: 'p', prompt: 'b', system_prompt: 'Be brief.' });
    expect(!out.ok && out.error.message).toMatch(/system_prompt: .*fixed at its start/);
    expect(
      await hub.value('agent.resume', {
        session_name: 'p',
        prompt: 'b',
        system_prompt: null,
        turn_tool_overlay: null,
        keep_alive: false,
      }),
    ).toMatchObject({ content: 'two' });
  });
});
