// The API-provider contract: what anthropic, openai and gemini must do alike, run once per provider from its own
// test file. It drives a real hub through the pipeline against that provider's fake model API, seen through a small
// adapter that scripts replies in one neutral form and reads each model call back in one neutral form, so the cases
// pin Switchboard's behaviour, not a wire format (each provider's file checks its own wire format).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startHttpServer, tempProject } from '../../helpers/cli.ts';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { until } from '../../helpers/until.ts';
import { type AgentHubOptions, agentHub } from './agent-hub.ts';

const EVERYTHING = resolve(
  import.meta.dirname,
  '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

/** One model answer, scripted: a plain string is its text. */
export type ScriptedReply =
  | string
  | {
      text?: string;
      /** Tool calls; without an id the fake (or the provider) names the call. */
      calls?: { name: string; args: Record<string, unknown>; id?: string }[];
      usage?: { input: number; output: number };
      /** Wait this long before answering (cancel and timeout cases). */
      delayMs?: number;
      /** Answer with this HTTP error instead. */
      error?: { status: number; message: string };
    };

/** One message of the conversation a model call carried: the texts joined, then its tool calls and results. */
export interface Turn {
  role: 'user' | 'assistant';
  text: string;
  calls: { id: string; name: string; args: unknown }[];
  results: { id: string; content: string }[];
}

/** One call to the model, read back from the fake's record. */
export interface ModelCall {
  model: string;
  maxTokens: number;
  /** The system prompt as sent ('' when none). */
  system: string;
  /** The key the client sent, without a `Bearer ` prefix. */
  apiKey: string;
  /** Names of the tools offered to the model. */
  tools: string[];
  conversation: Turn[];
}

export interface FakeModelApi {
  url: string;
  /** Every model call so far, in order. */
  calls(): ModelCall[];
  /** Requests whose client hung up before the (delayed) answer. */
  hungUp(): number;
  close(): Promise<void>;
}

/** A provider under the contract: its name, how to start its fake, and how a hub is pointed at it. */
export interface ProviderUnderTest {
  name: 'anthropic' | 'openai' | 'gemini';
  /** The environment variable that carries the key, named when the provider is not configured. */
  keyVariable: string;
  start(opts?: { replies?: ScriptedReply[]; fallback?: ScriptedReply }): Promise<FakeModelApi>;
  /** The agentHub option that points the hub at the fake through the environment. */
  hubOptions(url: string): AgentHubOptions;
}

/** Every turn's text, tool calls and results of a conversation, as JSON: where the model saw something. */
const seen = (call: ModelCall) => JSON.stringify(call.conversation);

/** A user message of text only, in the neutral form. */
const userSays = (text: string): Turn => ({ role: 'user', text, calls: [], results: [] });
const assistantSays = (text: string): Turn => ({ role: 'assistant', text, calls: [], results: [] });

/** An output_schema in Meerkat's wrapper form, and a first answer the inner schema refuses, then one it takes. */
export interface WrapperExample {
  /** `{schema, name, strict, compat, format: 'meerkat_v1'}`. */
  wrapper: { schema: Record<string, unknown>; name: string; [key: string]: unknown };
  /** The first answer, which fails the inner schema, and the error its retry names. */
  wrong: string;
  error: string;
  /** The second answer, and the structured_output it gives. */
  right: string;
  structured: unknown;
}

/**
 * The wrapper-form case, one piece of code for the contract (an example of our own) and for
 * test/originals/meerkat.test.ts (Meerkat's own file): the inner schema is what the answer is checked against, the
 * wrapper's name reaches the system prompt and its format marker does not. It starts and closes its own fake and hub.
 *
 * @example
 * it('wrapper form', () => wrapperFormCase(geminiUnderTest, { wrapper, wrong, error, right, structured }));
 */
export async function wrapperFormCase(provider: ProviderUnderTest, example: WrapperExample): Promise<void> {
  const api = await provider.start({ replies: [example.wrong, example.right] });
  let hub: TestHub | undefined;
  try {
    hub = await agentHub(provider.hubOptions(api.url));
    const result = await hub.value('agent.start', {
      session_name: 'g4',
      provider: provider.name,
      prompt: 'answer',
      output_schema: example.wrapper,
    });
    expect(result).toMatchObject({
      status: 'completed',
      structured_output: example.structured,
      schema_warnings: null,
      turns: 2,
    });
    const [first, second] = api.calls();
    expect(first.system).toContain(`(${example.wrapper.name})`);
    expect(first.system).not.toContain('meerkat_v1');
    expect(seen(second)).toContain(example.error);
  } finally {
    await hub?.close();
    await api.close();
  }
}

/**
 * Define the contract suite for one API provider.
 *
 * @example
 * providerContract({ name: 'openai', keyVariable: 'OPENAI_API_KEY', start: startOpenAIUnderTest, hubOptions: (url) => ({ openai: url }) });
 */
export function providerContract(provider: ProviderUnderTest): void {
  const { name } = provider;
  let api: FakeModelApi | undefined;
  let hub: TestHub | undefined;
  /** A hub pointed at the fake through the environment, with the other options given. */
  const hubOn = (fake: FakeModelApi, opts: AgentHubOptions = {}) =>
    agentHub({ ...provider.hubOptions(fake.url), ...opts });
  const call = (n: number) => (api as FakeModelApi).calls()[n];

  describe(`API provider contract: ${name}`, () => {
    closeAfterEach(() => [hub, api]);

    it('start → result: the agent definition sets model, max_tokens and system prompt; usage, meta and agent.result follow', async () => {
      api = await provider.start({ replies: [{ text: 'Design done.', usage: { input: 42, output: 7 } }] });
      hub = await hubOn(api, {
        agents: {
          architect: {
            json: {
              name: 'architect',
              description: 'Designs systems',
              provider: name,
              model: 'test-model',
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
      expect(call(0)).toMatchObject({
        model: 'test-model',
        maxTokens: 321,
        conversation: [userSays('Design a queue')],
      });
      expect(call(0).system).toContain('You are the architect.');
      // The key comes from the environment, never from tool input.
      expect(call(0).apiKey).toBe('test-key');
      // The meta names what the session is bound to; agent.result answers the same result later.
      const meta = JSON.parse(readFileSync(join(hub.dir, '.switchboard/sessions/arch-1.meta.json'), 'utf8'));
      expect(meta).toMatchObject({
        session_name: 'arch-1',
        agent: 'architect',
        provider: name,
        model: 'test-model',
        status: 'completed',
        schema_version: 1,
      });
      expect(await hub.value('agent.result', { session_name: 'arch-1' })).toMatchObject({
        content: 'Design done.',
        status: 'completed',
      });
      // A call's max_tokens outranks the definition's.
      await hub.value('agent.start', { session_name: 'arch-2', agent_name: 'architect', prompt: 'p', max_tokens: 99 });
      expect(call(1).maxTokens).toBe(99);
    });

    it(`base_url, api_key and model from [agents.providers.${name}] reach the endpoint, and default_provider picks it`, async () => {
      api = await provider.start({ replies: ['configured'] });
      hub = await agentHub({
        config: `[agents]\ndefault_provider = "${name}"\n[agents.providers.${name}]\nbase_url = "${api.url}"\napi_key = "from-config"\nmodel = "m-config"`,
      });
      const result = await hub.value('agent.start', { session_name: 'cfg', prompt: 'x' });
      expect(result.content).toBe('configured');
      expect(call(0)).toMatchObject({ apiKey: 'from-config', model: 'm-config' });
    });

    it('resume keeps the conversation: the second call carries the first exchange', async () => {
      api = await provider.start({ replies: ['The answer is 4.', 'You asked about 2+2.'] });
      hub = await hubOn(api);
      await hub.value('agent.start', { session_name: 'math', provider: name, prompt: 'What is 2+2?' });
      const second = await hub.value('agent.resume', { session_name: 'math', prompt: 'What did I ask?' });
      expect(second).toMatchObject({ status: 'completed', content: 'You asked about 2+2.' });
      expect(call(1).conversation).toEqual([
        userSays('What is 2+2?'),
        assistantSays('The answer is 4.'),
        userSays('What did I ask?'),
      ]);
      const meta = JSON.parse(readFileSync(join(hub.dir, '.switchboard/sessions/math.meta.json'), 'utf8'));
      expect(meta.turns).toBe(2);
      expect(meta.last_resumed_at).toEqual(expect.any(String));
    });

    it('callback tools: the turn pauses with every pending call, and tool_results continue it', async () => {
      api = await provider.start({
        replies: [
          {
            text: 'Reading both.',
            calls: [
              { id: 'call_a', name: 'read_file', args: { path: 'a.txt' } },
              { id: 'call_b', name: 'read_file', args: { path: 'b.txt' } },
            ],
          },
          'a says A, b says B',
        ],
      });
      hub = await hubOn(api);
      const tools = [
        {
          name: 'read_file',
          description: 'Read a file',
          input_schema: { type: 'object', properties: { path: { type: 'string' } } },
        },
      ];
      const paused = await hub.value('agent.start', {
        session_name: 'cb',
        provider: name,
        prompt: 'read a and b',
        tools,
      });
      expect(paused).toMatchObject({ status: 'pending_tool_call', content: 'Reading both.' });
      expect(paused.pending_tool_calls).toEqual([
        { id: 'call_a', tool_name: 'read_file', args: { path: 'a.txt' } },
        { id: 'call_b', tool_name: 'read_file', args: { path: 'b.txt' } },
      ]);
      expect(call(0).tools).toEqual(['read_file']);
      // Half an answer is refused with the ids still expected; nothing is sent to the model.
      const partial = await hub.call('agent.resume', {
        session_name: 'cb',
        tool_results: [{ tool_use_id: 'call_a', content: 'A' }],
      });
      expect(!partial.ok && partial.error.message).toMatch(/missing: call_b/);
      const resumeWithoutResults = await hub.call('agent.resume', { session_name: 'cb', prompt: 'go on' });
      expect(!resumeWithoutResults.ok && resumeWithoutResults.error.message).toMatch(
        /waiting for tool results: answer call_a, call_b/,
      );
      expect(api.calls()).toHaveLength(1);
      const done = await hub.value('agent.resume', {
        session_name: 'cb',
        prompt: '',
        tool_results: [
          { tool_use_id: 'call_b', content: 'B' },
          { tool_use_id: 'call_a', content: 'A', is_error: false },
        ],
      });
      expect(done).toMatchObject({ status: 'completed', content: 'a says A, b says B' });
      // The results go back in the order of the calls, whatever order they were given in.
      expect(call(1).conversation).toEqual([
        userSays('read a and b'),
        {
          role: 'assistant',
          text: 'Reading both.',
          calls: [
            { id: 'call_a', name: 'read_file', args: { path: 'a.txt' } },
            { id: 'call_b', name: 'read_file', args: { path: 'b.txt' } },
          ],
          results: [],
        },
        {
          role: 'user',
          text: '',
          calls: [],
          results: [
            { id: 'call_a', content: 'A' },
            { id: 'call_b', content: 'B' },
          ],
        },
      ]);
    });

    it('structured output: a wrong answer is retried with the errors, then validated', async () => {
      api = await provider.start({
        replies: ['not json at all', '{"bugs": "none"}', '```json\n{"bugs": ["off by one"], "severity": "high"}\n```'],
      });
      hub = await hubOn(api);
      const schema = {
        type: 'object',
        properties: { bugs: { type: 'array', items: { type: 'string' } }, severity: { type: 'string' } },
        required: ['bugs', 'severity'],
      };
      const result = await hub.value('agent.start', {
        session_name: 'so',
        provider: name,
        prompt: 'review',
        output_schema: schema,
      });
      expect(result).toMatchObject({
        status: 'completed',
        structured_output: { bugs: ['off by one'], severity: 'high' },
        schema_warnings: null,
        turns: 3,
      });
      expect(call(0).system).toContain('"required":["bugs","severity"]');
      expect(seen(call(1))).toContain('not valid JSON');
      expect(seen(call(2))).toMatch(/\/bugs must be array/);
      expect(seen(call(2))).toMatch(/must have required property 'severity'/);
    });

    it('structured output: what still fails after the retries is an extraction_error, as in Meerkat', async () => {
      api = await provider.start({ fallback: '{"n": "three"}' });
      hub = await hubOn(api);
      const result = await hub.value('agent.start', {
        session_name: 'so2',
        provider: name,
        prompt: 'count',
        output_schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        structured_output_retries: 1,
      });
      // The turn completed (its answer is kept); no structured_output, and why, as Meerkat's extraction_error.
      expect(result).toMatchObject({
        status: 'completed',
        content: '{"n": "three"}',
        structured_output: null,
        schema_warnings: null,
        extraction_error: { last_output: '{"n": "three"}', attempts: 2, reason: '/n must be integer' },
      });
      expect(api.calls()).toHaveLength(2);
    });

    // Meerkat's own wrapper example goes through the same case in test/originals/meerkat.test.ts.
    it("structured output in Meerkat's wrapper form: the inner schema is what the answer is checked against", () =>
      wrapperFormCase(provider, {
        wrapper: {
          schema: { type: 'object', properties: { verdict: { type: 'boolean' } }, required: ['verdict'] },
          name: 'review-verdict',
          strict: true,
          compat: 'strict',
          format: 'meerkat_v1',
        },
        wrong: '{"verdict": "yes"}',
        error: '/verdict must be boolean',
        right: '{"verdict": true}',
        structured: { verdict: true },
      }));

    it('an invalid output_schema or tool schema is refused before a session exists', async () => {
      api = await provider.start();
      hub = await hubOn(api);
      const bad = await hub.call('agent.start', {
        session_name: 'x',
        provider: name,
        prompt: 'p',
        output_schema: { type: 'nonsense' },
      });
      expect(!bad.ok && bad.error).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/output_schema is not a valid JSON Schema/),
      });
      const badTool = await hub.call('agent.start', {
        session_name: 'x',
        provider: name,
        prompt: 'p',
        tools: [{ name: 'has space', input_schema: {} }],
      });
      expect(!badTool.ok && badTool.error.message).toMatch(/tools\.0\.name: tool names are 1-64 characters/);
      const notObject = await hub.call('agent.start', {
        session_name: 'x',
        provider: name,
        prompt: 'p',
        tools: [{ name: 'ok', input_schema: { type: 'string' } }],
      });
      expect(!notObject.ok && notObject.error.message).toMatch(/tools\.0\.input_schema must have type "object"/);
      expect((await hub.value('session.list', { response_format: 'json' })).total).toBe(0);
      expect(api.calls()).toHaveLength(0);
    });

    it("enable_builtins: the agent works the task board through the pipeline, limited to its definition's roles", async () => {
      api = await provider.start({
        replies: [
          { calls: [{ name: 'task__create', args: { text: 'Written by the sub-agent', priority: 70 } }] },
          'Created the task.',
          'nothing to do',
        ],
      });
      hub = await hubOn(api, {
        agents: { planner: { json: { name: 'planner', description: 'Plans', provider: name, roles: ['agent'] } } },
      });
      const result = await hub.value('agent.start', {
        session_name: 'plan',
        agent_name: 'planner',
        prompt: 'plan',
        enable_builtins: true,
      });
      expect(result).toMatchObject({ status: 'completed', content: 'Created the task.', tool_calls: 1, turns: 2 });
      const offered = call(0).tools;
      expect(offered).toContain('task__create');
      expect(offered.some((n) => n.startsWith('agent__') || n.startsWith('session__'))).toBe(false);
      expect(offered).not.toContain('shell');
      expect(JSON.stringify(await hub.value('task.list', {}))).toContain('Written by the sub-agent');
      // The result went back to the model as the tool's JSON answer, to the call it answers.
      const [asked, answered] = call(1).conversation.slice(-2);
      expect(answered.results).toEqual([
        { id: asked.calls[0].id, content: expect.stringContaining('Written by the sub-agent') },
      ]);
      // An agent run without a definition has the role 'agent': the board and the rest, still no agent__ or session__.
      await hub.value('agent.start', { session_name: 'plan2', provider: name, prompt: 'plan', enable_builtins: true });
      expect(call(2).tools).toContain('task__create');
      expect(call(2).tools.some((n) => n.startsWith('agent__') || n.startsWith('session__'))).toBe(false);
    });

    it("an agent's roles never exceed its caller's: an admin agent started by an 'agent' caller gets no admin tools", async () => {
      api = await provider.start({ fallback: 'ok' });
      hub = await hubOn(api, {
        agents: {
          boss: { json: { name: 'boss', description: 'Admin agent', provider: name, roles: ['admin', 'agent'] } },
        },
      });
      await hub.value('agent.start', {
        session_name: 'by-admin',
        agent_name: 'boss',
        prompt: 'x',
        enable_builtins: true,
      });
      expect(call(0).tools).toContain('system__config');
      const asAgent = await hub.call(
        'agent.start',
        { session_name: 'by-agent', agent_name: 'boss', prompt: 'x', enable_builtins: true },
        { id: 'worker', roles: ['agent'] },
      );
      expect(asAgent.ok).toBe(true);
      expect(call(1).tools).not.toContain('system__config');
      expect(call(1).tools).toContain('task__create');
    });

    it('builtin_config.enable_shell adds a shell tool that runs in the project directory', async () => {
      api = await provider.start({
        replies: [{ calls: [{ id: 'call_s', name: 'shell', args: { command: 'pwd; echo shell-works' } }] }, 'ran it'],
      });
      hub = await hubOn(api, { agents: { runner: { json: { name: 'runner', provider: name, shell: true } } } });
      const result = await hub.value('agent.start', {
        session_name: 'sh',
        agent_name: 'runner',
        prompt: 'run',
        enable_builtins: true,
        builtin_config: { enable_shell: true, shell_timeout_secs: 5 },
      });
      expect(result.status).toBe('completed');
      const [toolResult] = (call(1).conversation.at(-1) as Turn).results;
      expect(toolResult.id).toBe('call_s');
      expect(toolResult.content).toContain('shell-works');
      expect(toolResult.content).toContain(hub.dir);
      const off = await hub.call('agent.start', {
        session_name: 'sh2',
        provider: name,
        prompt: 'x',
        builtin_config: { enable_shell: true },
      });
      expect(!off.ok && off.error.message).toMatch(/enable_shell needs enable_builtins: true/);
    });

    it('the shell can be switched off in config, and says so', async () => {
      api = await provider.start();
      hub = await hubOn(api, { config: '[agents]\nshell = false' });
      const out = await hub.call('agent.start', {
        session_name: 'sh',
        provider: name,
        prompt: 'x',
        enable_builtins: true,
        builtin_config: { enable_shell: true },
      });
      expect(!out.ok && out.error).toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringMatching(/\[agents\] shell = false/),
      });
    });

    it("the agent's own MCP servers (agent.mcp.json) are its tools", async () => {
      api = await provider.start({
        replies: [{ calls: [{ name: 'everything__echo', args: { message: 'via mcp' } }] }, 'echoed'],
      });
      hub = await hubOn(api, {
        agents: {
          tooled: {
            json: { name: 'tooled', description: 'Has MCP tools', provider: name },
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
      expect(call(0).tools).toContain('everything__echo');
      expect(seen(call(1))).toContain('Echo: via mcp');
      // ${VAR} expands from the hub's environment; a server whose variable is unset is left out, and said why.
      const transcript = readFileSync(join(hub.dir, '.switchboard/sessions/mcp.jsonl'), 'utf8');
      expect(transcript).toMatch(
        /"type":"mcp_unavailable","server":"missing","error":".*UNSET_VARIABLE_FOR_TEST is not set/,
      );
    });

    it('an agent MCP server over Streamable HTTP: another Switchboard, whose task board the agent writes to', async () => {
      const other = await startHttpServer(tempProject());
      try {
        api = await provider.start({
          replies: [
            { calls: [{ id: 'call_h', name: 'board__task__create', args: { text: 'over http', priority: 60 } }] },
            'filed it',
          ],
        });
        hub = await hubOn(api, {
          agents: {
            remote: {
              json: { name: 'remote', description: 'Uses a remote board', provider: name },
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
        const [back] = (call(1).conversation.at(-1) as Turn).results;
        expect(back.id).toBe('call_h');
        expect(JSON.parse(back.content)).toMatchObject({ text: 'over http', priority: 60, status: 'pending' });
      } finally {
        await other.stop();
      }
    });

    it('an agent MCP server that cannot start is noted in the transcript; the turn goes on without it', async () => {
      api = await provider.start({ replies: ['fine without it'] });
      hub = await hubOn(api, {
        agents: {
          flaky: {
            json: { name: 'flaky', description: 'Broken server', provider: name },
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
      api = await provider.start({ fallback: { calls: [{ name: 'task__list', args: {} }] } });
      hub = await hubOn(api, { config: '[agents]\nmax_model_calls = 3' });
      const out = await hub.call('agent.start', {
        session_name: 'loop',
        provider: name,
        prompt: 'x',
        enable_builtins: true,
      });
      expect(out.ok && out.raw?.isError).toBe(true);
      expect(await hub.value('agent.status', { session_name: 'loop' })).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/stopped after 3 model calls .*max_model_calls/),
      });
      expect(api.calls()).toHaveLength(3);
    });

    it('a turn longer than [agents] turn_timeout_ms fails with the setting named', async () => {
      api = await provider.start({ replies: [{ text: 'late', delayMs: 10_000 }] });
      hub = await hubOn(api, { config: '[agents]\nturn_timeout_ms = 1000' });
      const t0 = Date.now();
      const out = await hub.call('agent.start', { session_name: 'slow', provider: name, prompt: 'x' });
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(out.ok && out.raw?.isError).toBe(true);
      expect(await hub.value('agent.status', { session_name: 'slow' })).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/longer than 1000 ms \(\[agents\] turn_timeout_ms\)/),
      });
    });

    it('cancel stops a running turn (the request is dropped); the session resumes afterwards', async () => {
      api = await provider.start({ replies: [{ text: 'never', delayMs: 30_000 }, 'back again'] });
      hub = await hubOn(api);
      await hub.value('agent.start', { session_name: 'gc', provider: name, prompt: 'p', async: true });
      await until(() => api!.calls().length === 1);
      expect(await hub.value('agent.cancel', { session_name: 'gc' })).toMatchObject({
        cancelled: true,
        status: 'cancelled',
      });
      await until(() => api!.hungUp() === 1, { what: 'the request to be dropped' });
      expect((await hub.value('agent.resume', { session_name: 'gc', prompt: 'go' })).content).toBe('back again');
    });

    it('a model API error fails the turn with isError and the reason; the session can be resumed', async () => {
      api = await provider.start({
        replies: [{ error: { status: 400, message: 'prompt is too long' } }, 'better now'],
      });
      hub = await hubOn(api);
      const out = await hub.call('agent.start', { session_name: 'err', provider: name, prompt: 'x' });
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
      expect(call(1).conversation).toHaveLength(1);
      expect(call(1).conversation[0]).toMatchObject({ role: 'user', text: expect.stringMatching(/^x.*shorter$/s) });
    });

    it('missing provider configuration names the variable and the setting, and creates nothing', async () => {
      hub = await agentHub({});
      const out = await hub.call('agent.start', { session_name: 'nokey', provider: name, prompt: 'x' });
      expect(!out.ok && out.error).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(new RegExp(`${provider.keyVariable}.*\\[agents\\.providers\\.${name}\\]`)),
      });
      expect((await hub.value('session.list', { response_format: 'json' })).total).toBe(0);
      const features = await hub.value('system.capabilities', {});
      const feature = features.features.find((f: { name: string }) => f.name === `agents.provider.${name}`);
      expect(feature).toMatchObject({ status: 'NotConfigured', reason: expect.stringContaining(provider.keyVariable) });
    });

    it('long answers are cut with a note naming the transcript, which keeps everything', async () => {
      const long = 'x'.repeat(500);
      api = await provider.start({ replies: [long] });
      hub = await hubOn(api, { config: '[agents]\nmax_output_chars = 100' });
      const result = await hub.value('agent.start', { session_name: 'long', provider: name, prompt: 'x' });
      expect(result.truncated).toBe(true);
      expect(result.content).toMatch(/^x{100}\n\[… cut: 400 more characters\. The whole answer is in .*long\.jsonl\]$/);
      expect(readFileSync(join(hub.dir, '.switchboard/sessions/long.jsonl'), 'utf8')).toContain(long);
    });
  });
}
