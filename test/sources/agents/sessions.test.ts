// Session lifecycle through the pipeline: names, async runs with status polling, one turn per session, many in
// parallel, cancel, clean, listings, broken definitions, and what a crash leaves behind.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import { gate } from '../../helpers/gate.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { until } from '../../helpers/until.ts';
import { agentHub } from './agent-hub.ts';

let api: FakeAnthropic | undefined;
let hub: TestHub | undefined;
closeAfterEach(() => [hub, api]);

const ANTHROPIC = '[agents]\ndefault_provider = "anthropic"';

describe('session names', () => {
  it.each([
    ['', 'Session name cannot be empty'],
    ['x'.repeat(61), 'Session name must not exceed 60 characters'],
    ['has space', 'Session name can only contain alphanumeric characters, dashes, and underscores'],
    ['../escape', 'Session name can only contain alphanumeric characters, dashes, and underscores'],
  ])('rejects %j with the exact message', async (name, message) => {
    hub = await agentHub({ config: ANTHROPIC });
    for (const tool of ['agent.start', 'agent.resume', 'agent.status', 'agent.result', 'agent.cancel']) {
      const out = await hub.call(tool, { session_name: name, prompt: 'p' });
      expect(out.ok).toBe(false);
      if (!out.ok) {
        expect(out.error.code).toBe('INVALID_INPUT');
        expect(out.error.message).toContain(`session_name: ${message}`);
      }
    }
  });

  it('rejects keys a tool does not take, naming them, like every other tool', async () => {
    hub = await agentHub({ config: ANTHROPIC });
    const calls: Array<[string, Record<string, unknown>]> = [
      ['agent.start', { session_name: 's', prompt: 'p', bogus_field: 1 }],
      ['agent.resume', { session_name: 's', prompt: 'p', bogus_field: 1 }],
      ['agent.resume', { session_name: 's', tool_results: [{ tool_use_id: 't', content: 'c', bogus_field: 1 }] }],
      ['agent.start', { session_name: 's', prompt: 'p', tools: [{ name: 't', bogus_field: 1 }] }],
      ['agent.status', { session_name: 's', bogus_field: 1 }],
      ['agent.result', { session_name: 's', bogus_field: 1 }],
      ['agent.cancel', { session_name: 's', bogus_field: 1 }],
      ['agent.list', { bogus_field: 1 }],
      ['session.list', { bogus_field: 1 }],
      ['session.clean', { bogus_field: 1 }],
    ];
    for (const [tool, input] of calls) {
      const out = await hub.call(tool, input);
      expect(!out.ok && out.error, `${tool} ${JSON.stringify(input)}`).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('bogus_field'),
      });
    }
  });

  it('accepts 60 characters of letters, digits, dashes and underscores', async () => {
    api = await startFakeAnthropic({ fallback: 'fine' });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    const name = `Ab-_9${'z'.repeat(55)}`;
    expect((await hub.value('agent.start', { session_name: name, prompt: 'p' })).status).toBe('completed');
  });

  it('an existing session name is an error that says to use resume', async () => {
    api = await startFakeAnthropic({ fallback: 'fine' });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    await hub.value('agent.start', { session_name: 'dup', prompt: 'p' });
    const again = await hub.call('agent.start', { session_name: 'dup', prompt: 'p' });
    expect(!again.ok && again.error).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/already exists\. Continue it with agent__resume/),
    });
    const unknown = await hub.call('agent.resume', { session_name: 'nope', prompt: 'p' });
    expect(!unknown.ok && unknown.error).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/No session 'nope'/),
    });
  });

  it('an empty resume prompt is allowed only with tool_results', async () => {
    api = await startFakeAnthropic({ fallback: 'fine' });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    await hub.value('agent.start', { session_name: 'e', prompt: 'p' });
    const out = await hub.call('agent.resume', { session_name: 'e', prompt: '' });
    expect(!out.ok && out.error.message).toMatch(/prompt: cannot be empty unless tool_results/);
    const stray = await hub.call('agent.resume', {
      session_name: 'e',
      tool_results: [{ tool_use_id: 'x', content: 'y' }],
    });
    expect(!stray.ok && stray.error.message).toMatch(/has no pending tool calls \(status completed\)/);
  });
});

describe('running sessions', () => {
  it('each turn is announced on the bus as agent.turn: running, then how it ended', async () => {
    api = await startFakeAnthropic({ fallback: 'fine' });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    const seen: unknown[] = [];
    const off = hub.services.bus.subscribe((e) => {
      if (e.type === 'agent.turn') seen.push(e);
    });
    await hub.value('agent.start', { session_name: 'bus', prompt: 'p' });
    off();
    expect(seen).toEqual([
      expect.objectContaining({ type: 'agent.turn', session: 'bus', provider: 'anthropic', status: 'running' }),
      expect.objectContaining({
        type: 'agent.turn',
        session: 'bus',
        status: 'completed',
        usage: { input_tokens: 10, output_tokens: 5 },
      }),
    ]);
  });

  it('async start returns at once; agent__status waits for the turn; agent__result reads it', async () => {
    // The model answers only when the test lets it: "running" below then proves start did not wait for the turn,
    // however slowly the calls before the release run.
    const model = gate();
    api = await startFakeAnthropic({
      respond: () => model.pass('slow answer'),
    });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    const started = await hub.value('agent.start', { session_name: 'bg', prompt: 'p', async: true });
    expect(started).toMatchObject({
      session_id: 'bg',
      status: 'running',
      note: expect.stringMatching(/agent__status/),
    });
    expect(await hub.value('agent.result', { session_name: 'bg' })).toMatchObject({ status: 'running', content: '' });
    const quick = await hub.value('agent.status', { session_name: 'bg', wait_seconds: 0 });
    expect(quick).toMatchObject({ status: 'running', running: true });
    model.open();
    const waited = await hub.value('agent.status', { session_name: 'bg', wait_seconds: 10 });
    expect(waited).toMatchObject({ status: 'completed', running: false, turns: 1 });
    expect(await hub.value('agent.result', { session_name: 'bg' })).toMatchObject({
      status: 'completed',
      content: 'slow answer',
    });
  });

  it('a second resume while a turn runs is refused; the running turn is unharmed', async () => {
    // The second turn's answer waits for the test, so the refusals below meet a turn that is surely running.
    const model = gate();
    api = await startFakeAnthropic({
      replies: ['first'],
      respond: () => model.pass('second'),
    });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    await hub.value('agent.start', { session_name: 'one', prompt: 'p' });
    const running = hub.value('agent.resume', { session_name: 'one', prompt: 'again' });
    await until(() => api!.messages().length === 2);
    const refused = await hub.call('agent.resume', { session_name: 'one', prompt: 'third' });
    expect(!refused.ok && refused.error).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/is running a turn; one session runs one turn at a time/),
    });
    const clean = await hub.call('session.clean', { session_name: 'one' });
    expect(!clean.ok && clean.error.code).toBe('CONFLICT');
    model.open();
    expect((await running).content).toBe('second');
    expect(api.messages()).toHaveLength(2);
  });

  it('many sessions run in parallel: twenty turns are at the model together, not one after another', async () => {
    // No answer comes before all twenty requests have arrived: turns run one after another would never get there.
    const model = gate();
    api = await startFakeAnthropic({
      respond: (req) => model.pass(`answer to ${req.body.messages[0].content[0].text}`),
    });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    const turns = Promise.all(
      Array.from({ length: 20 }, (_, i) => hub!.value('agent.start', { session_name: `p${i}`, prompt: `q${i}` })),
    );
    await until(() => api!.messages().length === 20, { what: () => `20 turns at once (${api!.messages().length})` });
    model.open();
    const results = await turns;
    for (const [i, r] of results.entries())
      expect(r).toMatchObject({ session_id: `p${i}`, status: 'completed', content: `answer to q${i}` });
    const list = await hub.value('session.list', { response_format: 'json' });
    expect(list.total).toBe(20);
  });

  it('past [agents] max_running a new turn is refused with RATE_LIMITED', async () => {
    const model = gate();
    api = await startFakeAnthropic({ respond: () => model.pass('x') });
    hub = await agentHub({ anthropic: api.url, config: `${ANTHROPIC}\nmax_running = 1` });
    await hub.value('agent.start', { session_name: 'a', prompt: 'p', async: true });
    const out = await hub.call('agent.start', { session_name: 'b', prompt: 'p' });
    expect(!out.ok && out.error).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/max_running = 1/),
    });
    model.open();
    await hub.value('agent.status', { session_name: 'a', wait_seconds: 5 });
  });

  it('max_running holds for turns started at the same moment, while their locks are still being taken', async () => {
    const model = gate();
    api = await startFakeAnthropic({ respond: () => model.pass('x') });
    hub = await agentHub({ anthropic: api.url, config: `${ANTHROPIC}\nmax_running = 2` });
    const outs = await Promise.all(
      ['p1', 'p2', 'p3', 'p4'].map((session_name) =>
        hub!.call('agent.start', { session_name, prompt: 'p', async: true }),
      ),
    );
    expect(outs.filter((o) => o.ok)).toHaveLength(2);
    expect(outs.filter((o) => !o.ok && o.error.code === 'RATE_LIMITED')).toHaveLength(2);
    // The refused ones left nothing behind: their names are free.
    const refused = ['p1', 'p2', 'p3', 'p4'].filter((_, i) => !outs[i].ok);
    for (const n of refused)
      expect(await hub.call('agent.status', { session_name: n })).toMatchObject({
        ok: false,
        error: { code: 'NOT_FOUND' },
      });
    model.open();
    for (const n of ['p1', 'p2', 'p3', 'p4'].filter((_, i) => outs[i].ok))
      await hub.value('agent.status', { session_name: n, wait_seconds: 5 });
  });

  it('cancel stops a running API turn; the session is resumable afterwards', async () => {
    api = await startFakeAnthropic({
      replies: [{ content: [{ type: 'text', text: 'never' }], delayMs: 30_000 }, 'back again'],
    });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    await hub.value('agent.start', { session_name: 'c', prompt: 'p', async: true });
    await until(() => api!.messages().length === 1);
    expect(await hub.value('agent.cancel', { session_name: 'c' })).toMatchObject({
      cancelled: true,
      status: 'cancelled',
    });
    expect(await hub.value('agent.cancel', { session_name: 'c' })).toMatchObject({
      cancelled: false,
      status: 'cancelled',
    });
    const result = await hub.call('agent.result', { session_name: 'c' });
    expect(result.ok && result.raw?.isError).toBe(true);
    expect((await hub.value('agent.resume', { session_name: 'c', prompt: 'go' })).content).toBe('back again');
  });

  it('a synchronous call that is cancelled cancels its turn', async () => {
    api = await startFakeAnthropic({ replies: [{ content: [{ type: 'text', text: 'never' }], delayMs: 30_000 }] });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    const controller = new AbortController();
    const call = hub.pipeline.call({
      principal: { id: 't', roles: ['*'] },
      name: 'agent.start',
      input: { session_name: 'sync', prompt: 'p' },
      transport: 'cli',
      signal: controller.signal,
    });
    await until(() => api!.messages().length === 1);
    controller.abort();
    expect(await call).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
    const status = await hub.value('agent.status', { session_name: 'sync', wait_seconds: 5 });
    expect(status).toMatchObject({ status: 'cancelled', running: false });
  });
});

describe('listing and cleaning', () => {
  it('session__list in markdown and JSON, with status and provider session id', async () => {
    api = await startFakeAnthropic({ fallback: 'fine' });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    expect(await hub.value('session.list', {})).toMatch(/No sessions yet/);
    await hub.value('agent.start', { session_name: 's-a', prompt: 'p' });
    const json = await hub.value('session.list', { response_format: 'json' });
    expect(json).toMatchObject({
      total: 1,
      sessions: [
        { session_name: 's-a', provider: 'anthropic', status: 'completed', provider_session_id: null, turns: 1 },
      ],
    });
    const md = await hub.value('session.list', { response_format: 'markdown' });
    expect(md).toMatch(/^# Sessions/);
    expect(md).toContain('**s-a** — completed — (no agent) on anthropic');
  });

  it('agent__list shows good definitions and reports broken ones with their path', async () => {
    hub = await agentHub({
      agents: {
        good: {
          json: { name: 'good', description: 'Works' },
          prompt: 'hi',
          mcp: { mcpServers: { fs: { command: 'x' } } },
        },
        'bad-json': { raw: '{ not json' },
        mismatch: { json: { name: 'other', description: 'x' } },
        'bad-mcp': { json: { name: 'bad-mcp', description: 'x' }, mcp: { servers: [] } },
        'bad-grant': { json: { name: 'bad-grant', shell: 'yes', permission_mode: 'everything' } },
        empty: {},
      },
    });
    const json = await hub.value('agent.list', { response_format: 'json' });
    expect(json.total).toBe(1);
    expect(json.agents).toEqual([
      {
        name: 'good',
        description: 'Works',
        source: 'switchboard',
        tags: [],
        parameters_schema: null,
        has_output_schema: false,
        provider: null,
        model: null,
        has_system_prompt: true,
        mcp_servers: ['fs'],
        roles: ['agent'],
        permission_mode: null,
        shell: false,
        builtins: true,
        directories: ['.'],
      },
    ]);
    const broken = Object.fromEntries(
      json.broken.map((b: { name: string; error: string; path: string }) => [b.name, b]),
    );
    expect(Object.keys(broken).sort()).toEqual(['bad-grant', 'bad-json', 'bad-mcp', 'empty', 'mismatch']);
    expect(broken['bad-grant'].error).toMatch(/permission_mode: .*"acceptEdits".*"bypassPermissions"/);
    expect(broken['bad-grant'].error).toMatch(/shell: .*boolean/);
    expect(broken['bad-json'].error).toMatch(/bad-json\/agent\.json: .*JSON/);
    expect(broken.mismatch.error).toMatch(/name 'other' must equal the folder name 'mismatch'/);
    expect(broken['bad-mcp'].error).toMatch(/agent\.mcp\.json: .*servers/);
    expect(broken.empty.error).toMatch(/agent\.json: missing/);
    expect(broken.empty.path).toBe(join(hub.dir, '.switchboard/agents/empty'));
    const md = await hub.value('agent.list', {});
    expect(md).toContain('- **good**: Works');
    expect(md).toContain('## Broken definitions');
    // Starting a broken or unknown agent says which and why.
    const out = await hub.call('agent.start', { session_name: 's', agent_name: 'mismatch', prompt: 'p' });
    expect(!out.ok && out.error.message).toMatch(/Agent 'mismatch' is broken: .*must equal the folder name/);
    const missing = await hub.call('agent.start', { session_name: 's', agent_name: 'ghost', prompt: 'p' });
    expect(!missing.ok && missing.error).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/Known agents: good\./),
    });
  });

  it('session__clean removes one session or all, keeps running ones, and is marked destructive', async () => {
    const slow = gate();
    api = await startFakeAnthropic({
      respond: (req) => (req.body.messages[0].content[0].text === 'slow' ? slow.pass('x') : 'done'),
    });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    for (const n of ['k1', 'k2', 'k3']) await hub.value('agent.start', { session_name: n, prompt: 'p' });
    await hub.value('agent.start', { session_name: 'busy', prompt: 'slow', async: true });
    expect(await hub.value('session.clean', { session_name: 'k1' })).toMatchObject({ removed: ['k1'], total: 1 });
    const all = await hub.value('session.clean', {});
    expect(all).toMatchObject({ removed: ['k2', 'k3'], skipped: [{ session: 'busy', reason: 'running' }] });
    expect(
      (await hub.value('session.list', { response_format: 'json' })).sessions.map(
        (s: { session_name: string }) => s.session_name,
      ),
    ).toEqual(['busy']);
    const missing = await hub.call('session.clean', { session_name: 'k1' });
    expect(!missing.ok && missing.error.code).toBe('NOT_FOUND');
    const tool = hub.services.registry.get('session.clean')?.tool;
    expect(tool?.annotations).toMatchObject({ destructiveHint: true });
    slow.open();
    await hub.value('agent.status', { session_name: 'busy', wait_seconds: 5 });
  });
});

describe('crash safety', () => {
  it('a torn last line is skipped by readers and closed before the next turn; the conversation goes on', async () => {
    api = await startFakeAnthropic({ replies: ['first answer', 'second answer'] });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    await hub.value('agent.start', { session_name: 'torn', prompt: 'one' });
    const file = join(hub.dir, '.switchboard/sessions/torn.jsonl');
    appendFileSync(file, '{"type":"message","role":"assist'); // a write cut short by a crash
    await hub.value('agent.resume', { session_name: 'torn', prompt: 'two' });
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const bad = lines.filter((l) => {
      try {
        JSON.parse(l);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad).toEqual(['{"type":"message","role":"assist']);
    expect(api.messages()[1].body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'one' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'first answer' }] },
      { role: 'user', content: [{ type: 'text', text: 'two' }] },
    ]);
  });

  it('a session left running by a dead process reads as interrupted, and a dangling tool call is answered on resume', async () => {
    api = await startFakeAnthropic({ replies: ['recovered'] });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    const dir = join(hub.dir, '.switchboard/sessions');
    mkdirSync(dir, { recursive: true });
    // What a process killed during a tool call leaves: meta says running, a lock with a dead pid, a tool_use without result.
    const now = new Date().toISOString();
    writeFileSync(
      join(dir, 'crashed.meta.json'),
      JSON.stringify({
        schema_version: 1,
        session_name: 'crashed',
        agent: null,
        provider: 'anthropic',
        model: 'claude-test',
        project_dir: hub.dir,
        created_at: now,
        last_resumed_at: null,
        status: 'running',
        provider_session_id: null,
        usage: { input_tokens: 0, output_tokens: 0 },
        turns: 1,
        tool_calls: 1,
        options: {
          structured_output_retries: 2,
          tools: [],
          enable_builtins: true,
          builtin_config: { enable_shell: false, shell_timeout_secs: 30 },
        },
        owner: { pid: 999_999_9, instance: 'gone' },
      }),
    );
    writeFileSync(join(dir, 'crashed.lock'), '9999999');
    writeFileSync(
      join(dir, 'crashed.jsonl'),
      [
        { type: 'turn_start', prompt: 'list tasks' },
        { type: 'message', role: 'user', content: [{ type: 'text', text: 'list tasks' }] },
        {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_x', name: 'task__list', input: {} }],
        },
        { type: 'tool_call', id: 'toolu_x', name: 'task__list', args: {} },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n')
        .concat('\n'),
    );
    expect(await hub.value('agent.status', { session_name: 'crashed' })).toMatchObject({
      status: 'interrupted',
      running: false,
    });
    const out = await hub.value('agent.resume', { session_name: 'crashed', prompt: 'carry on' });
    expect(out).toMatchObject({ status: 'completed', content: 'recovered' });
    expect(api.messages()[0].body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_x',
          content: 'The turn was interrupted before this tool returned a result.',
          is_error: true,
        },
        { type: 'text', text: 'carry on' },
      ],
    });
  });

  it('a lock whose pid now belongs to another process (a reused pid) counts as stale', async () => {
    api = await startFakeAnthropic({ replies: ['first', 'after the crash'] });
    hub = await agentHub({ anthropic: api.url, config: ANTHROPIC });
    await hub.value('agent.start', { session_name: 'reused', prompt: 'one' });
    // This test process is alive, but it did not start at "tick 1": the lock is a crashed turn's.
    writeFileSync(join(hub.dir, '.switchboard/sessions/reused.lock'), `${process.pid} 1`);
    expect(await hub.value('agent.status', { session_name: 'reused' })).toMatchObject({ status: 'interrupted' });
    expect((await hub.value('agent.resume', { session_name: 'reused', prompt: 'two' })).content).toBe(
      'after the crash',
    );
  });
});
