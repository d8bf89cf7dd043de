// agent-orchestrator's own agent blueprints (../shared/originals/agent-orchestrator, see its NOTICE) in a project's
// .agent-orchestrator/agents, as Switchboard reads them in place (hub: listed, tag-filtered, started with their
// parameters, their output_schema, a name clash, no grants) and as `switchboard agents import` copies them (the built
// CLI): the three it can run work, the six others are refused naming the file and key. The same behaviours on our
// own agents in that format: test/sources/agents/agent-orchestrator.test.ts and test/e2e/agents-import.test.ts.
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempProject } from '../helpers/cli.ts';
import { type FakeAnthropic, type FakeReply, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import type { TestHub } from '../helpers/hub.ts';
import { original } from '../helpers/originals.ts';
import { writeFiles } from '../helpers/plugins.ts';
import { agentHub } from '../sources/agents/agent-hub.ts';

/** Their project folder: `.agent-orchestrator/agents/<name>/…`, nine agents. */
const PROJECT = original('agent-orchestrator', 'project');
const AGENTS = join(PROJECT, '.agent-orchestrator/agents');

// Which of their agents Switchboard can run; each of the others has one key it cannot honour (procedural type,
// capabilities, hooks, demands, or a registry `ref` MCP server).
const RUNNABLE = ['local-codebase-researcher', 'parametric-agent', 'prompt-assistant'];
const REFUSED = [
  'agent-orchestrator',
  'current-working-directory',
  'high-demand-agent',
  'knowledge-coordinator',
  'structured-output-agent',
  'web-researcher',
];

// The test's hub and fake API, closed hub first after each test.
let api: FakeAnthropic | undefined;
let hub: TestHub | undefined;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** A hub on the fake Anthropic API whose project holds agent-orchestrator's .agent-orchestrator folder. */
async function orchestratorProject(replies?: FakeReply[]): Promise<TestHub> {
  const fake = await startFakeAnthropic({ ...(replies ? { replies } : {}) });
  const h = await agentHub({ anthropic: fake.url, config: '[agents]\ndefault_provider = "anthropic"' });
  cpSync(PROJECT, h.dir, { recursive: true });
  closing.push(
    () => h.close(),
    () => fake.close(),
  );
  api = fake;
  hub = h;
  return h;
}

async function failure(name: string, input: unknown): Promise<{ code: string; message: string }> {
  const out = await hub?.call(name, input);
  if (!out || out.ok) throw new Error(`${name} succeeded: ${JSON.stringify(out)}`);
  return out.error;
}

describe("agent-orchestrator's own agents in .agent-orchestrator/agents", () => {
  it('are listed with their source, tags and parameters_schema; the ones Switchboard cannot run name the file and key', async () => {
    const h = await orchestratorProject();
    const list = await h.value('agent.list', { response_format: 'json' });
    expect(list.agents.map((a: { name: string }) => a.name)).toEqual(RUNNABLE);
    const parametric = JSON.parse(readFileSync(join(AGENTS, 'parametric-agent/agent.json'), 'utf8'));
    expect(list.agents[1]).toMatchObject({
      source: 'agent-orchestrator',
      description: parametric.description,
      tags: ['internal', 'example'],
      parameters_schema: parametric.parameters_schema,
      has_system_prompt: true,
      // Nothing from that folder grants more than a session without an agent gets.
      shell: false,
      permission_mode: null,
      directories: ['.'],
    });
    expect(list.agents[2]).toMatchObject({ name: 'prompt-assistant', has_output_schema: true });
    const broken = Object.fromEntries(
      list.broken.map((b: { name: string; error: string; source: string }) => [b.name, b.error]),
    );
    expect(Object.keys(broken).sort()).toEqual(REFUSED);
    const file = (name: string, f = 'agent.json') => join(h.dir, '.agent-orchestrator/agents', name, f);
    expect(broken['current-working-directory']).toMatch(
      new RegExp(`^${file('current-working-directory')}: "type": "procedural" is not supported: `),
    );
    expect(broken['structured-output-agent']).toMatch(
      new RegExp(`^${file('structured-output-agent')}: "hooks" is not supported`),
    );
    expect(broken['web-researcher']).toMatch(new RegExp(`^${file('web-researcher')}: "capabilities" is not supported`));
    expect(broken['high-demand-agent']).toMatch(
      new RegExp(`^${file('high-demand-agent')}: "demands" is not supported`),
    );
    expect(broken['knowledge-coordinator']).toContain(
      `${file('knowledge-coordinator', 'agent.mcp.json')}: server 'context-store': "ref" names an entry of agent-orchestrator's MCP server registry`,
    );
    expect(broken['agent-orchestrator']).toContain('.agent-orchestrator/mcp-servers/orchestrator/mcp-server.json');
    expect(list.warnings).toEqual([]);
  });

  it('keeps the agents having every tag asked for', async () => {
    const h = await orchestratorProject();
    const names = async (tags: string[]) =>
      (await h.value('agent.list', { response_format: 'json', tags })).agents.map((a: { name: string }) => a.name);
    expect(await names(['internal'])).toEqual(RUNNABLE);
    expect(await names(['internal', 'example'])).toEqual(['parametric-agent']);
    expect(await names(['external'])).toEqual([]);
    expect(await h.value('agent.list', { tags: ['research'] })).toContain('**local-codebase-researcher**');
  });

  it('starts parametric-agent with parameters: its system prompt as written, the parameters as the <inputs> block', async () => {
    const h = await orchestratorProject();
    const result = await h.value('agent.start', {
      session_name: 'content-1',
      agent_name: 'parametric-agent',
      parameters: {
        topic: 'Backpressure in message queues',
        format: 'outline',
        max_words: 350,
        audience: 'technical',
      },
    });
    expect(result).toMatchObject({ status: 'completed', content: 'ok' });
    const body = api?.messages()[0].body;
    expect(JSON.stringify(body.system)).toContain(
      JSON.stringify(readFileSync(join(AGENTS, 'parametric-agent/agent.system-prompt.md'), 'utf8')).slice(1, -1),
    );
    // The <inputs> block its system prompt asks for: one `name: value` line per parameter, in the order given.
    expect(body.messages[0].content).toEqual([
      {
        type: 'text',
        text: '<inputs>\ntopic: Backpressure in message queues\nformat: outline\nmax_words: 350\naudience: technical\n</inputs>',
      },
    ]);
    const meta = JSON.parse(readFileSync(join(h.dir, '.switchboard/sessions/content-1.meta.json'), 'utf8'));
    expect(meta.options.parameters).toMatchObject({ topic: 'Backpressure in message queues' });
  });

  it('refuses parameters their parameters_schema does not take with INVALID_INPUT naming the parameter, before any model call', async () => {
    await orchestratorProject();
    const start = (parameters: Record<string, unknown>, agent_name = 'parametric-agent') =>
      failure('agent.start', { session_name: 'bad', agent_name, parameters });
    const enumBad = await start({ topic: 'AI', format: 'poem' });
    expect(enumBad.code).toBe('INVALID_INPUT');
    expect(enumBad.message).toContain(
      'parameters.format: must be equal to one of the allowed values ["summary","bullet_points","essay","outline"]',
    );
    expect(enumBad.message).toContain("parameters_schema of agent 'parametric-agent'");
    expect((await start({ format: 'essay' })).message).toContain('parameters.topic: required');
    expect((await start({ topic: 'AI', format: 'essay', max_words: 10 })).message).toContain(
      'parameters.max_words: must be >= 50',
    );
    expect((await start({ topic: 'AI', format: 'essay', tone: 'dry' })).message).toContain(
      'parameters.tone: not a parameter of this agent (it takes: topic, format, max_words, audience)',
    );
    expect((await start({ question: 'short', project_dir: '/x' }, 'local-codebase-researcher')).message).toContain(
      'parameters.question: must NOT have fewer than 10 characters',
    );
    expect(
      (await failure('agent.start', { session_name: 'bad', agent_name: 'parametric-agent', prompt: 'Write something' }))
        .message,
    ).toContain('parameters.topic: required');
    expect(api?.messages()).toEqual([]);
  });

  it("answers with the agent's output_schema: prompt-assistant's JSON is validated and returned", async () => {
    const h = await orchestratorProject([
      '{"remarks": "no prompt"}',
      '{"system_prompt": "You review code.", "remarks": "new"}',
    ]);
    const result = await h.value('agent.start', {
      session_name: 'pa',
      agent_name: 'prompt-assistant',
      parameters: { user_request: 'A prompt for a code reviewer' },
      prompt: 'Keep it short.',
    });
    expect(result.structured_output).toEqual({ system_prompt: 'You review code.', remarks: 'new' });
    expect(api?.messages()[0].body.messages[0].content[0].text).toBe(
      '<inputs>\nuser_request: A prompt for a code reviewer\n</inputs>\n\nKeep it short.',
    );
    expect(JSON.stringify(api?.messages()[1].body.messages)).toContain("must have required property 'system_prompt'");
  });

  it("lets Switchboard's own folder win a name clash, naming the hidden folder", async () => {
    const h = await orchestratorProject();
    writeFiles(join(h.dir, '.switchboard/agents/parametric-agent'), {
      'agent.json': JSON.stringify({ name: 'parametric-agent', description: 'Own one' }),
    });
    const list = await h.value('agent.list', { response_format: 'json' });
    expect(list.agents.find((a: { name: string }) => a.name === 'parametric-agent')).toMatchObject({
      source: 'switchboard',
      description: 'Own one',
    });
    expect(list.warnings).toEqual([
      ".agent-orchestrator/agents/parametric-agent is not used: .switchboard/agents/parametric-agent has the same agent name and Switchboard's own folder wins. Rename or delete one of them.",
    ]);
  });

  it('grants nothing: parametric-agent started with the shell is refused, naming how to grant it', async () => {
    await orchestratorProject();
    const shell = await failure('agent.start', {
      session_name: 's',
      agent_name: 'parametric-agent',
      parameters: { topic: 'AI', format: 'essay' },
      enable_builtins: true,
      builtin_config: { enable_shell: true },
    });
    expect(shell.code).toBe('FORBIDDEN');
    expect(shell.message).toContain(
      'import it with `switchboard agents import parametric-agent` and set "shell": true in .switchboard/agents/parametric-agent/agent.json',
    );
  });
});

describe("agents import --from agent-orchestrator on agent-orchestrator's own agents", () => {
  function project(): string {
    const dir = tempProject();
    cpSync(PROJECT, dir, { recursive: true });
    return dir;
  }

  it('copies the agents Switchboard can run, unchanged, and names the file and key that stop the others', async () => {
    const dir = project();
    const r = await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.from).toBe(join(dir, '.agent-orchestrator/agents'));
    expect(out.imported).toEqual(RUNNABLE);
    const skipped = Object.fromEntries(out.skipped.map((s: { name: string; reason: string }) => [s.name, s.reason]));
    expect(Object.keys(skipped).sort()).toEqual(REFUSED);
    expect(skipped['structured-output-agent']).toMatch(
      /structured-output-agent\/agent\.json: "hooks" is not supported/,
    );
    expect(skipped['knowledge-coordinator']).toMatch(
      /knowledge-coordinator\/agent\.mcp\.json: server 'context-store': "ref"/,
    );
    for (const name of RUNNABLE)
      for (const file of ['agent.json', 'agent.system-prompt.md'])
        expect(readFileSync(join(dir, '.switchboard/agents', name, file), 'utf8')).toBe(
          readFileSync(join(AGENTS, name, file), 'utf8'),
        );
    expect(existsSync(join(dir, '.switchboard/agents/web-researcher'))).toBe(false);

    // Now Switchboard's own: listed from .switchboard/agents, the originals named as not used.
    const list = JSON.parse((await runCli(dir, ['agents', 'list', '--json'])).stdout);
    expect(list.agents.map((a: { name: string; source: string }) => `${a.name}:${a.source}`)).toEqual(
      RUNNABLE.map((n) => `${n}:switchboard`),
    );
    expect(list.warnings).toContain(
      ".agent-orchestrator/agents/parametric-agent is not used: .switchboard/agents/parametric-agent has the same agent name and Switchboard's own folder wins. Rename or delete one of them.",
    );

    // Again: nothing new, the copies are kept.
    const again = await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Imported nothing new.');
    expect(again.stdout).toContain(
      `skipped parametric-agent: already in ${join(dir, '.switchboard/agents/parametric-agent')}`,
    );
  });

  it('reads another folder (their agents as their repository keeps them, without a project) and only the agents named', async () => {
    const dir = tempProject();
    const r = await runCli(dir, [
      'agents',
      'import',
      AGENTS,
      '--from',
      'agent-orchestrator',
      '--agent',
      'parametric-agent',
      'nope',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Read ${AGENTS}`);
    expect(r.stdout).toContain('Imported into .switchboard/agents: parametric-agent');
    expect(r.stdout).toContain(`skipped nope: no folder ${join(AGENTS, 'nope')}`);
    expect(existsSync(join(dir, '.switchboard/agents/prompt-assistant'))).toBe(false);
  });

  it('runs imported parametric-agent with --param: its parameters are the <inputs> prompt', async () => {
    const dir = project();
    await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator', '--agent', 'parametric-agent']);
    const fake = await startFakeAnthropic({ replies: ['Retries need jitter.'] });
    try {
      const env = { ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: 'test-key' };
      const args = ['agents', 'run', 'parametric-agent', '--provider', 'anthropic', '-q', '--param'];
      const r = await runCli(dir, [...args, 'topic=Retry storms', 'format=summary', 'max_words=120'], {
        env,
      });
      expect(r.stdout).toBe('Retries need jitter.\n');
      expect(fake.messages()[0].body.messages[0].content[0].text).toBe(
        '<inputs>\ntopic: Retry storms\nformat: summary\nmax_words: 120\n</inputs>',
      );
      const bad = await runCli(dir, [...args, 'topic=AI', 'format=poem'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('parameters.format: must be equal to one of the allowed values');
    } finally {
      await fake.close();
    }
  });
});
