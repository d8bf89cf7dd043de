// The anthropic provider end to end through the pipeline: @anthropic-ai/sdk against the fake Messages API,
// with callback tools, structured output, Switchboard's built-in tools, the shell tool and the agent's MCP servers.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServer, tempProject } from '../../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { agentHub } from './agent-hub.ts';

const EVERYTHING = resolve(
  import.meta.dirname,
  '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

let api: FakeAnthropic | undefined;
let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  await api?.close();
  hub = api = undefined;
});

/** The text of every user message the fake received in its nth call (0-based). */
function sent(n: number): string {
  return JSON.stringify(api?.messages()[n].body.messages);
}

describe('anthropic provider', () => {
  it('starts a session with an agent definition and returns the result with usage', async () => {
    api = await startFakeAnthropic({
      replies: [{ content: [{ type: 'text', text: 'Design done.' }], usage: { input_tokens: 42, output_tokens: 7 } }],
    });
    hub = await agentHub({
      anthropic: api.url,
      agents: {
        architect: {
          json: {
            name: 'architect',
            description: 'Designs systems',
            provider: 'anthropic',
            model: 'claude-test-model',
            max_tokens: 321,
          },
          prompt: 'You are the architect.',
        },
      },
    });
    const result = await hub.value('agent.start', {
      session_name: 'arch-1',
      agent_name: 'architect',
      prompt: 'Design a queue',
    });
    expect(result).toMatchObject({
      session_id: 'arch-1',
      status: 'completed',
      content: 'Design done.',
      turns: 1,
      tool_calls: 0,
      usage: { input_tokens: 42, output_tokens: 7 },
      structured_output: null,
      schema_warnings: null,
    });
    const body = api.messages()[0].body;
    expect(body.model).toBe('claude-test-model');
    expect(body.max_tokens).toBe(321);
    expect(JSON.stringify(body.system)).toContain('You are the architect.');
    // The key comes from the environment (ANTHROPIC_API_KEY), never from tool input.
    expect(api.messages()[0].headers.authorization).toBe('Bearer test-key');
    // The meta names what the session is bound to; agent__result answers the same result later.
    const meta = JSON.parse(readFileSync(join(hub.dir, '.switchboard/sessions/arch-1.meta.json'), 'utf8'));
    expect(meta).toMatchObject({
      session_name: 'arch-1',
      agent: 'architect',
      provider: 'anthropic',
      model: 'claude-test-model',
      status: 'completed',
      schema_version: 1,
    });
    expect(await hub.value('agent.result', { session_name: 'arch-1' })).toMatchObject({
      content: 'Design done.',
      status: 'completed',
    });
  });

  it('resume keeps the conversation: the second call carries the first exchange', async () => {
    api = await startFakeAnthropic({ replies: ['The answer is 4.', 'You asked about 2+2.'] });
    hub = await agentHub({ anthropic: api.url, config: '[agents]\ndefault_provider = "anthropic"' });
    await hub.value('agent.start', { session_name: 'math', prompt: 'What is 2+2?' });
    const second = await hub.value('agent.resume', { session_name: 'math', prompt: 'What did I ask?' });
    expect(second).toMatchObject({ status: 'completed', content: 'You asked about 2+2.' });
    const messages = api.messages()[1].body.messages;
    expect(messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'What is 2+2?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'The answer is 4.' }] },
      { role: 'user', content: [{ type: 'text', text: 'What did I ask?' }] },
    ]);
    const meta = JSON.parse(readFileSync(join(hub.dir, '.switchboard/sessions/math.meta.json'), 'utf8'));
    expect(meta.turns).toBe(2);
    expect(meta.last_resumed_at).toEqual(expect.any(String));
  });

  it('callback tools: the turn pauses with every pending call, and tool_results continue it', async () => {
    api = await startFakeAnthropic({
      replies: [
        {
          content: [
            { type: 'text', text: 'Reading both.' },
            { type: 'tool_use', id: 'toolu_a', name: 'read_file', input: { path: 'a.txt' } },
            { type: 'tool_use', id: 'toolu_b', name: 'read_file', input: { path: 'b.txt' } },
          ],
        },
        'a says A, b says B',
      ],
    });
    hub = await agentHub({ anthropic: api.url });
    const tools = [
      {
        name: 'read_file',
        description: 'Read a file',
        input_schema: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ];
    const paused = await hub.value('agent.start', {
      session_name: 'cb',
      provider: 'anthropic',
      prompt: 'read a and b',
      tools,
    });
    expect(paused.status).toBe('pending_tool_call');
    expect(paused.pending_tool_calls).toEqual([
      { id: 'toolu_a', tool_name: 'read_file', args: { path: 'a.txt' } },
      { id: 'toolu_b', tool_name: 'read_file', args: { path: 'b.txt' } },
    ]);
    expect(api.messages()[0].body.tools.map((t: { name: string }) => t.name)).toEqual(['read_file']);
    // Half an answer is refused with the ids still expected; nothing is sent to the model.
    const partial = await hub.call('agent.resume', {
      session_name: 'cb',
      tool_results: [{ tool_use_id: 'toolu_a', content: 'A' }],
    });
    expect(partial.ok).toBe(false);
    if (!partial.ok) expect(partial.error.message).toMatch(/missing: toolu_b/);
    const resumeWithoutResults = await hub.call('agent.resume', { session_name: 'cb', prompt: 'go on' });
    expect(!resumeWithoutResults.ok && resumeWithoutResults.error.message).toMatch(
      /waiting for tool results: answer toolu_a, toolu_b/,
    );
    expect(api.messages()).toHaveLength(1);
    const done = await hub.value('agent.resume', {
      session_name: 'cb',
      prompt: '',
      tool_results: [
        { tool_use_id: 'toolu_b', content: 'B' },
        { tool_use_id: 'toolu_a', content: 'A', is_error: false },
      ],
    });
    expect(done).toMatchObject({ status: 'completed', content: 'a says A, b says B' });
    expect(api.messages()[1].body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_a', content: 'A' },
        { type: 'tool_result', tool_use_id: 'toolu_b', content: 'B' },
      ],
    });
  });

  it('structured output: a wrong answer is retried with the errors, then validated', async () => {
    api = await startFakeAnthropic({
      replies: ['not json at all', '{"bugs": "none"}', '```json\n{"bugs": ["off by one"], "severity": "high"}\n```'],
    });
    hub = await agentHub({ anthropic: api.url });
    const schema = {
      type: 'object',
      properties: { bugs: { type: 'array', items: { type: 'string' } }, severity: { type: 'string' } },
      required: ['bugs', 'severity'],
    };
    const result = await hub.value('agent.start', {
      session_name: 'so',
      provider: 'anthropic',
      prompt: 'review',
      output_schema: schema,
    });
    expect(result).toMatchObject({
      status: 'completed',
      structured_output: { bugs: ['off by one'], severity: 'high' },
      schema_warnings: null,
      turns: 3,
    });
    expect(api.messages()[0].body.system).toContain('"required":["bugs","severity"]');
    expect(sent(1)).toContain('not valid JSON');
    expect(sent(2)).toMatch(/\/bugs must be array/);
    expect(sent(2)).toMatch(/must have required property 'severity'/);
  });

  it('structured output: what still fails after the retries comes back with schema_warnings', async () => {
    api = await startFakeAnthropic({ fallback: '{"n": "three"}' });
    hub = await agentHub({ anthropic: api.url });
    const result = await hub.value('agent.start', {
      session_name: 'so2',
      provider: 'anthropic',
      prompt: 'count',
      output_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      structured_output_retries: 1,
    });
    expect(result.status).toBe('completed');
    expect(result.structured_output).toEqual({ n: 'three' });
    expect(result.schema_warnings).toEqual(['/n must be integer']);
    expect(api.messages()).toHaveLength(2);
  });

  it('an invalid output_schema or tool schema is refused before a session exists', async () => {
    api = await startFakeAnthropic();
    hub = await agentHub({ anthropic: api.url });
    const bad = await hub.call('agent.start', {
      session_name: 'x',
      provider: 'anthropic',
      prompt: 'p',
      output_schema: { type: 'nonsense' },
    });
    expect(!bad.ok && bad.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/output_schema is not a valid JSON Schema/),
    });
    const badTool = await hub.call('agent.start', {
      session_name: 'x',
      provider: 'anthropic',
      prompt: 'p',
      tools: [{ name: 'has space', input_schema: {} }],
    });
    expect(!badTool.ok && badTool.error.message).toMatch(/tools\.0\.name: tool names are 1-64 characters/);
    const notObject = await hub.call('agent.start', {
      session_name: 'x',
      provider: 'anthropic',
      prompt: 'p',
      tools: [{ name: 'ok', input_schema: { type: 'string' } }],
    });
    expect(!notObject.ok && notObject.error.message).toMatch(/tools\.0\.input_schema must have type "object"/);
    expect((await hub.value('session.list', { response_format: 'json' })).total).toBe(0);
    expect(api.messages()).toHaveLength(0);
  });

  it("enable_builtins: the agent works the task board through the pipeline, limited to its definition's roles", async () => {
    api = await startFakeAnthropic({
      replies: [
        {
          content: [
            {
              type: 'tool_use',
              id: 'toolu_t',
              name: 'task__create',
              input: { text: 'Written by the sub-agent', priority: 70 },
            },
          ],
        },
        'Created the task.',
      ],
    });
    hub = await agentHub({
      anthropic: api.url,
      agents: { planner: { json: { name: 'planner', description: 'Plans', provider: 'anthropic', roles: ['agent'] } } },
    });
    const result = await hub.value('agent.start', {
      session_name: 'plan',
      agent_name: 'planner',
      prompt: 'plan',
      enable_builtins: true,
    });
    expect(result).toMatchObject({ status: 'completed', tool_calls: 1 });
    const offered = api.messages()[0].body.tools.map((t: { name: string }) => t.name);
    expect(offered).toContain('task__create');
    expect(offered.some((n: string) => n.startsWith('agent__') || n.startsWith('session__'))).toBe(false);
    expect(offered).not.toContain('shell');
    const tasks = await hub.value('task.list', {});
    expect(JSON.stringify(tasks)).toContain('Written by the sub-agent');
    // The result went back to the model as the tool's JSON answer.
    expect(sent(1)).toContain('toolu_t');
    // An agent whose roles see nothing gets no built-in tools.
    api.enqueue('nothing to do');
    await hub.value('agent.start', {
      session_name: 'plan2',
      provider: 'anthropic',
      prompt: 'plan',
      enable_builtins: true,
    });
    const defaultRoles = api.messages()[2].body.tools?.map((t: { name: string }) => t.name) ?? [];
    expect(defaultRoles.every((n: string) => !n.startsWith('agent__'))).toBe(true);
  });

  it("an agent's roles never exceed its caller's: an admin agent started by an 'agent' caller gets no admin tools", async () => {
    api = await startFakeAnthropic({ fallback: 'ok' });
    hub = await agentHub({
      anthropic: api.url,
      agents: {
        boss: { json: { name: 'boss', description: 'Admin agent', provider: 'anthropic', roles: ['admin', 'agent'] } },
      },
    });
    const offered = (i: number) => api!.messages()[i].body.tools.map((t: { name: string }) => t.name);
    await hub.value('agent.start', {
      session_name: 'by-admin',
      agent_name: 'boss',
      prompt: 'x',
      enable_builtins: true,
    });
    expect(offered(0)).toContain('system__config');
    const asAgent = await hub.call(
      'agent.start',
      { session_name: 'by-agent', agent_name: 'boss', prompt: 'x', enable_builtins: true },
      { id: 'worker', roles: ['agent'] },
    );
    expect(asAgent.ok).toBe(true);
    expect(offered(1)).not.toContain('system__config');
    expect(offered(1)).toContain('task__create');
  });

  it('builtin_config.enable_shell adds a shell tool that runs in the project directory', async () => {
    api = await startFakeAnthropic({
      replies: [
        { content: [{ type: 'tool_use', id: 'toolu_s', name: 'shell', input: { command: 'pwd; echo shell-works' } }] },
        'ran it',
      ],
    });
    hub = await agentHub({
      anthropic: api.url,
      agents: { runner: { json: { name: 'runner', provider: 'anthropic', shell: true } } },
    });
    const result = await hub.value('agent.start', {
      session_name: 'sh',
      agent_name: 'runner',
      prompt: 'run',
      enable_builtins: true,
      builtin_config: { enable_shell: true, shell_timeout_secs: 5 },
    });
    expect(result.status).toBe('completed');
    const toolResult = api.messages()[1].body.messages.at(-1).content[0];
    expect(toolResult).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_s' });
    expect(toolResult.content).toContain('shell-works');
    expect(toolResult.content).toContain(hub.dir);
    const off = await hub.call('agent.start', {
      session_name: 'sh2',
      provider: 'anthropic',
      prompt: 'x',
      builtin_config: { enable_shell: true },
    });
    expect(!off.ok && off.error.message).toMatch(/enable_shell needs enable_builtins: true/);
  });

  it('the shell can be switched off in config, and says so', async () => {
    api = await startFakeAnthropic();
    hub = await agentHub({ anthropic: api.url, config: '[agents]\nshell = false' });
    const out = await hub.call('agent.start', {
      session_name: 'sh',
      provider: 'anthropic',
      prompt: 'x',
      enable_builtins: true,
      builtin_config: { enable_shell: true },
    });
    expect(!out.ok && out.error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/\[agents\] shell = false/),
    });
  });

  it("the agent's own MCP servers (agent.mcp.json) are its tools on the API providers", async () => {
    api = await startFakeAnthropic({
      replies: [
        { content: [{ type: 'tool_use', id: 'toolu_e', name: 'everything__echo', input: { message: 'via mcp' } }] },
        'echoed',
      ],
    });
    hub = await agentHub({
      anthropic: api.url,
      agents: {
        tooled: {
          json: { name: 'tooled', description: 'Has MCP tools', provider: 'anthropic' },
          mcp: {
            mcpServers: {
              everything: { command: '${NODE_FOR_TEST}', args: [EVERYTHING, 'stdio'] },
              missing: { command: '${UNSET_VARIABLE_FOR_TEST}' },
            },
          },
        },
      },
      env: { NODE_FOR_TEST: process.execPath },
    });
    const result = await hub.value('agent.start', { session_name: 'mcp', agent_name: 'tooled', prompt: 'echo' });
    expect(result.status).toBe('completed');
    expect(api.messages()[0].body.tools.map((t: { name: string }) => t.name)).toContain('everything__echo');
    expect(sent(1)).toContain('Echo: via mcp');
    // ${VAR} expands from the hub's environment; a server whose variable is unset is left out, and said why.
    const transcript = readFileSync(join(hub.dir, '.switchboard/sessions/mcp.jsonl'), 'utf8');
    expect(transcript).toMatch(
      /"type":"mcp_unavailable","server":"missing","error":".*UNSET_VARIABLE_FOR_TEST is not set/,
    );
  });

  it('an agent MCP server over Streamable HTTP: another Switchboard, whose task board the agent writes to', async () => {
    const other = await startHttpServer(tempProject());
    try {
      api = await startFakeAnthropic({
        replies: [
          {
            content: [
              {
                type: 'tool_use',
                id: 'toolu_h',
                name: 'board__task__create',
                input: { text: 'over http', priority: 60 },
              },
            ],
          },
          'filed it',
        ],
      });
      hub = await agentHub({
        anthropic: api.url,
        agents: {
          remote: {
            json: { name: 'remote', description: 'Uses a remote board', provider: 'anthropic' },
            mcp: { mcpServers: { board: { type: 'http', url: `${other.url}/mcp` } } },
          },
        },
      });
      const result = await hub.value('agent.start', {
        session_name: 'http',
        agent_name: 'remote',
        prompt: 'file a task',
      });
      expect(result.status).toBe('completed');
      const back = api.messages()[1].body.messages.at(-1).content[0];
      expect(back).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_h' });
      expect(JSON.parse(back.content)).toMatchObject({ text: 'over http', priority: 60, status: 'pending' });
    } finally {
      await other.stop();
    }
  });

  it('an agent MCP server that cannot start is noted in the transcript; the turn goes on without it', async () => {
    api = await startFakeAnthropic({ replies: ['fine without it'] });
    hub = await agentHub({
      anthropic: api.url,
      agents: {
        flaky: {
          json: { name: 'flaky', description: 'Broken server', provider: 'anthropic' },
          mcp: { mcpServers: { gone: { command: '/nonexistent/server' } } },
        },
      },
    });
    const result = await hub.value('agent.start', { session_name: 'flaky', agent_name: 'flaky', prompt: 'x' });
    expect(result).toMatchObject({ status: 'completed', content: 'fine without it' });
    const transcript = readFileSync(join(hub.dir, '.switchboard/sessions/flaky.jsonl'), 'utf8');
    expect(transcript).toMatch(/"type":"mcp_unavailable","server":"gone"/);
  });

  it('a tool loop that never ends stops at [agents] max_model_calls with a clear failure', async () => {
    api = await startFakeAnthropic({ fallback: { content: [{ type: 'tool_use', name: 'task__list', input: {} }] } });
    hub = await agentHub({ anthropic: api.url, config: '[agents]\nmax_model_calls = 3' });
    const out = await hub.call('agent.start', {
      session_name: 'loop',
      provider: 'anthropic',
      prompt: 'x',
      enable_builtins: true,
    });
    expect(out.ok && out.raw?.isError).toBe(true);
    expect(await hub.value('agent.status', { session_name: 'loop' })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/stopped after 3 model calls .*max_model_calls/),
    });
    expect(api.messages()).toHaveLength(3);
  });

  it('a turn longer than [agents] turn_timeout_ms fails with the setting named', async () => {
    api = await startFakeAnthropic({ replies: [{ content: [{ type: 'text', text: 'late' }], delayMs: 10_000 }] });
    hub = await agentHub({ anthropic: api.url, config: '[agents]\nturn_timeout_ms = 1000' });
    const t0 = Date.now();
    const out = await hub.call('agent.start', { session_name: 'slow', provider: 'anthropic', prompt: 'x' });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(out.ok && out.raw?.isError).toBe(true);
    expect(await hub.value('agent.status', { session_name: 'slow' })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/longer than 1000 ms \(\[agents\] turn_timeout_ms\)/),
    });
  });

  it('a model API error fails the turn with isError and the reason; the session can be resumed', async () => {
    api = await startFakeAnthropic({
      replies: [
        { content: [], error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long' } },
        'better now',
      ],
    });
    hub = await agentHub({ anthropic: api.url });
    const out = await hub.call('agent.start', { session_name: 'err', provider: 'anthropic', prompt: 'x' });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.raw?.isError).toBe(true);
    expect(JSON.stringify(out.raw?.content)).toMatch(/turn failed: .*prompt is too long/);
    expect(await hub.value('agent.status', { session_name: 'err' })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/prompt is too long/),
    });
    const again = await hub.value('agent.resume', { session_name: 'err', prompt: 'shorter' });
    expect(again).toMatchObject({ status: 'completed', content: 'better now' });
    // The failed turn's user message and the new one reach the model as one well-formed user turn.
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

  it('missing provider configuration names the variable and the setting, and creates nothing', async () => {
    hub = await agentHub({});
    const out = await hub.call('agent.start', { session_name: 'nokey', provider: 'anthropic', prompt: 'x' });
    expect(!out.ok && out.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/ANTHROPIC_API_KEY.*\[agents\.providers\.anthropic\]/),
    });
    expect((await hub.value('session.list', { response_format: 'json' })).total).toBe(0);
    const features = await hub.value('system.capabilities', {});
    const feature = features.features.find((f: { name: string }) => f.name === 'agents.provider.anthropic');
    expect(feature).toMatchObject({ status: 'NotConfigured', reason: expect.stringMatching(/ANTHROPIC_API_KEY/) });
  });

  it('long answers are cut with a note naming the transcript, which keeps everything', async () => {
    const long = 'x'.repeat(500);
    api = await startFakeAnthropic({ replies: [long] });
    hub = await agentHub({ anthropic: api.url, config: '[agents]\nmax_output_chars = 100' });
    const result = await hub.value('agent.start', { session_name: 'long', provider: 'anthropic', prompt: 'x' });
    expect(result.truncated).toBe(true);
    expect(result.content).toMatch(/^x{100}\n\[… cut: 400 more characters\. The whole answer is in .*long\.jsonl\]$/);
    expect(readFileSync(join(hub.dir, '.switchboard/sessions/long.jsonl'), 'utf8')).toContain(long);
  });
});
