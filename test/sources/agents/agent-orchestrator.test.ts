// Agent blueprints in agent-orchestrator's format (our own, test/fixtures/agent-orchestrator-format) in a project's
// .agent-orchestrator/agents: listed with their source and tags, started with parameters checked against their
// parameters_schema and given as agent-orchestrator's <inputs> block, the keys Switchboard cannot honour refused
// naming the file and key, and nothing in that folder granting more than the defaults. agent-orchestrator's own
// agents go through the same in test/originals/agent-orchestrator.test.ts.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fillPlaceholders, inputsBlock } from '../../../src/sources/agents/agent-orchestrator.ts';
import {
  FORMAT_AGENTS,
  FORMAT_PROJECT,
  REFUSED_AGENTS,
  RUNNABLE_AGENTS,
} from '../../helpers/agent-orchestrator-format.ts';
import { type FakeAnthropic, type FakeReply, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { writeFiles } from '../../helpers/plugins.ts';
import { agentHub } from './agent-hub.ts';

const FIXTURE = FORMAT_PROJECT;
const AGENTS = FORMAT_AGENTS;

// The test's hub and fake API, closed hub first after each test.
let api: FakeAnthropic | undefined;
let hub: TestHub | undefined;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** A hub on the fake Anthropic API whose project holds our .agent-orchestrator folder. */
async function orchestratorProject(replies?: FakeReply[]): Promise<TestHub> {
  const fake = await startFakeAnthropic({ ...(replies ? { replies } : {}) });
  const h = await agentHub({ anthropic: fake.url, config: '[agents]\ndefault_provider = "anthropic"' });
  cpSync(FIXTURE, h.dir, { recursive: true });
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

describe('agents in .agent-orchestrator/agents', () => {
  it('are listed with their source, tags and parameters_schema; the ones Switchboard cannot run name the file and key', async () => {
    const h = await orchestratorProject();
    const list = await h.value('agent.list', { response_format: 'json' });
    expect(list.agents.map((a: { name: string }) => a.name)).toEqual(RUNNABLE_AGENTS);
    const haiku = JSON.parse(readFileSync(join(AGENTS, 'haiku-writer/agent.json'), 'utf8'));
    expect(list.agents[1]).toMatchObject({
      name: 'haiku-writer',
      source: 'agent-orchestrator',
      description: haiku.description,
      tags: ['docs', 'example'],
      parameters_schema: haiku.parameters_schema,
      has_system_prompt: true,
      // Nothing from that folder grants more than a session without an agent gets.
      shell: false,
      permission_mode: null,
      directories: ['.'],
    });
    expect(list.agents[2]).toMatchObject({ name: 'release-note-drafter', has_output_schema: true });
    const broken = Object.fromEntries(
      list.broken.map((b: { name: string; error: string; source: string }) => [b.name, b.error]),
    );
    expect(Object.keys(broken).sort()).toEqual(REFUSED_AGENTS);
    const file = (name: string, f = 'agent.json') => join(h.dir, '.agent-orchestrator/agents', name, f);
    expect(broken['disk-report']).toMatch(
      new RegExp(`^${file('disk-report')}: "type": "procedural" is not supported: `),
    );
    expect(broken['review-with-followup']).toMatch(
      new RegExp(`^${file('review-with-followup')}: "hooks" is not supported`),
    );
    expect(broken['ticket-triager']).toMatch(new RegExp(`^${file('ticket-triager')}: "capabilities" is not supported`));
    expect(broken['gpu-batch']).toMatch(new RegExp(`^${file('gpu-batch')}: "demands" is not supported`));
    expect(broken['notes-curator']).toContain(
      `${file('notes-curator', 'agent.mcp.json')}: server 'notes-store': "ref" names an entry of agent-orchestrator's MCP server registry`,
    );
    // The registry entry named is the ref's, not the server's name.
    expect(broken['notes-curator']).toContain('.agent-orchestrator/mcp-servers/notes-registry/mcp-server.json');
    expect(list.warnings).toEqual([]);
  });

  it('keeps the agents having every tag asked for', async () => {
    const h = await orchestratorProject();
    const names = async (tags: string[]) =>
      (await h.value('agent.list', { response_format: 'json', tags })).agents.map((a: { name: string }) => a.name);
    expect(await names(['docs'])).toEqual(['glossary-builder', 'haiku-writer', 'release-note-drafter']);
    expect(await names(['docs', 'example'])).toEqual(['haiku-writer']);
    // Only ticket-triager has it, and that one cannot run.
    expect(await names(['support'])).toEqual([]);
    expect(await h.value('agent.list', { tags: ['code'] })).toContain('**glossary-builder**');
  });

  it('starts an agent with parameters: its system prompt as written, the parameters as the <inputs> block', async () => {
    const h = await orchestratorProject();
    const result = await h.value('agent.start', {
      session_name: 'poem-1',
      agent_name: 'haiku-writer',
      parameters: { subject: 'A kettle left on the stove', season: 'winter', lines: 3, mood: 'drowsy' },
    });
    expect(result).toMatchObject({ status: 'completed', content: 'ok' });
    const body = api?.messages()[0].body;
    expect(JSON.stringify(body.system)).toContain(
      JSON.stringify(readFileSync(join(AGENTS, 'haiku-writer/agent.system-prompt.md'), 'utf8')).slice(1, -1),
    );
    // The block haiku-writer's system prompt shows as its example input.
    expect(body.messages[0].content).toEqual([
      {
        type: 'text',
        text: '<inputs>\nsubject: A kettle left on the stove\nseason: winter\nlines: 3\nmood: drowsy\n</inputs>',
      },
    ]);
    const meta = JSON.parse(readFileSync(join(h.dir, '.switchboard/sessions/poem-1.meta.json'), 'utf8'));
    expect(meta.options.parameters).toMatchObject({ subject: 'A kettle left on the stove' });
  });

  it('refuses parameters its parameters_schema does not take with INVALID_INPUT naming the parameter, before any model call', async () => {
    await orchestratorProject();
    const start = (parameters: Record<string, unknown>, agent_name = 'haiku-writer') =>
      failure('agent.start', { session_name: 'bad', agent_name, parameters });
    const enumBad = await start({ subject: 'Rain', season: 'monsoon' });
    expect(enumBad.code).toBe('INVALID_INPUT');
    expect(enumBad.message).toContain(
      'parameters.season: must be equal to one of the allowed values ["spring","summer","autumn","winter"]',
    );
    expect(enumBad.message).toContain("parameters_schema of agent 'haiku-writer'");
    expect((await start({ season: 'spring' })).message).toContain('parameters.subject: required');
    expect((await start({ subject: 'Rain', season: 'spring', lines: 2 })).message).toContain(
      'parameters.lines: must be >= 3',
    );
    expect((await start({ subject: 'Rain', season: 'spring', rhyme: true })).message).toContain(
      'parameters.rhyme: not a parameter of this agent (it takes: subject, season, lines, mood)',
    );
    expect((await start({ term: 'io', source_dir: '/x' }, 'glossary-builder')).message).toContain(
      'parameters.term: must NOT have fewer than 3 characters',
    );
    expect(
      (await failure('agent.start', { session_name: 'bad', agent_name: 'haiku-writer', prompt: 'Write something' }))
        .message,
    ).toContain('parameters.subject: required');
    const noSchema = await failure('agent.start', { session_name: 'bad', prompt: 'hi', parameters: { a: 1 } });
    expect(noSchema).toMatchObject({ code: 'INVALID_INPUT' });
    expect(noSchema.message).toContain('only an agent with a parameters_schema takes parameters');
    expect((await failure('agent.start', { session_name: 'bad' })).message).toContain('prompt: required');
    expect(api?.messages()).toEqual([]);
  });

  it("answers with the agent's output_schema: release-note-drafter's JSON is validated and returned", async () => {
    const h = await orchestratorProject([
      '{"details": "no headline"}',
      '{"headline": "Start-up is faster", "details": "Nothing to do."}',
    ]);
    const result = await h.value('agent.start', {
      session_name: 'rn',
      agent_name: 'release-note-drafter',
      parameters: { change: 'Cache the parsed config between reloads' },
      prompt: 'One line only.',
    });
    expect(result.structured_output).toEqual({ headline: 'Start-up is faster', details: 'Nothing to do.' });
    expect(api?.messages()[0].body.messages[0].content[0].text).toBe(
      '<inputs>\nchange: Cache the parsed config between reloads\n</inputs>\n\nOne line only.',
    );
    expect(JSON.stringify(api?.messages()[1].body.messages)).toContain("must have required property 'headline'");
  });

  it('fills ${params.X} and ${runtime.session_id} in the system prompt on every turn; other placeholders stay', async () => {
    const h = await orchestratorProject();
    writeFiles(join(h.dir, '.agent-orchestrator/agents/writer'), {
      'agent.json': JSON.stringify({
        name: 'writer',
        description: 'Writes',
        type: 'autonomous',
        parameters_schema: { type: 'object', properties: { topic: { type: 'string' }, depth: { type: 'integer' } } },
      }),
      'agent.system-prompt.md':
        'Write about ${params.topic} at depth ${params.depth} in session ${runtime.session_id}. Keep ${env.HOME}, ${scope.x}, ${params.missing}.',
    });
    await h.value('agent.start', {
      session_name: 'w-1',
      agent_name: 'writer',
      parameters: { topic: 'queues', depth: 2 },
    });
    await h.value('agent.resume', { session_name: 'w-1', prompt: 'Again' });
    const expected = 'Write about queues at depth 2 in session w-1. Keep ${env.HOME}, ${scope.x}, ${params.missing}.';
    for (const call of api?.messages() ?? []) expect(JSON.stringify(call.body.system)).toContain(expected);
    expect(api?.messages().length).toBe(2);
  });

  it("lets Switchboard's own folder win a name clash, naming the hidden folder", async () => {
    const h = await orchestratorProject();
    writeFiles(join(h.dir, '.switchboard/agents/haiku-writer'), {
      'agent.json': JSON.stringify({ name: 'haiku-writer', description: 'Own one' }),
    });
    const list = await h.value('agent.list', { response_format: 'json' });
    expect(list.agents.find((a: { name: string }) => a.name === 'haiku-writer')).toMatchObject({
      source: 'switchboard',
      description: 'Own one',
    });
    expect(list.warnings).toEqual([
      ".agent-orchestrator/agents/haiku-writer is not used: .switchboard/agents/haiku-writer has the same agent name and Switchboard's own folder wins. Rename or delete one of them.",
    ]);
  });

  it('grants nothing from that folder: grant keys, command servers and more than the defaults are refused', async () => {
    const h = await orchestratorProject();
    const dir = join(h.dir, '.agent-orchestrator/agents');
    writeFiles(dir, {
      'sneaky/agent.json': JSON.stringify({ name: 'sneaky', description: 'x', shell: true }),
      'runner/agent.json': JSON.stringify({ name: 'runner', description: 'x' }),
      'runner/agent.mcp.json': JSON.stringify({ mcpServers: { evil: { command: 'sh', args: ['-c', 'id'] } } }),
      'off/agent.json': JSON.stringify({ name: 'off', description: 'x' }),
      'off/.disabled': '',
    });
    const { broken } = await h.value('agent.list', { response_format: 'json' });
    const errors = Object.fromEntries(broken.map((b: { name: string; error: string }) => [b.name, b.error]));
    expect(errors.sneaky).toBe(
      `${join(dir, 'sneaky/agent.json')}: "shell" is not read from an agent-orchestrator folder: what an agent may do is granted only in .switchboard/agents (which sessions cannot edit). Import the agent with \`switchboard agents import\` and set "shell" in .switchboard/agents/<name>/agent.json`,
    );
    expect(errors.runner).toContain(
      `${join(dir, 'runner/agent.mcp.json')}: server 'evil': a server that runs a command`,
    );
    expect(errors.off).toContain(`${join(dir, 'off/.disabled')}: the agent is switched off`);
    const shell = await failure('agent.start', {
      session_name: 's',
      agent_name: 'haiku-writer',
      parameters: { subject: 'Rain', season: 'spring' },
      enable_builtins: true,
      builtin_config: { enable_shell: true },
    });
    expect(shell.code).toBe('FORBIDDEN');
    expect(shell.message).toContain(
      'import it with `switchboard agents import haiku-writer` and set "shell": true in .switchboard/agents/haiku-writer/agent.json',
    );
  });
});

describe("agent-orchestrator's prompt forms", () => {
  it('writes the <inputs> block as its runner does', () => {
    expect(
      inputsBlock({ a: 'one', b: 'two\nlines', c: [1, 'x'], d: { k: true }, e: null, f: true, g: 1.5, h: 'é' }),
    ).toBe(
      '<inputs>\na: one\nb:\n  two\n  lines\nc: [1, "x"]\nd: {"k": true}\ne: null\nf: True\ng: 1.5\nh: é\n</inputs>',
    );
    expect(inputsBlock({})).toBe('<inputs>\n</inputs>');
  });

  it('fills only params and runtime.session_id', () => {
    expect(
      fillPlaceholders('${params.a}/${params.b}/${runtime.session_id}/${runtime.run_id}/${x}', {
        params: { a: [1, 2], b: false },
        sessionId: 's',
      }),
    ).toBe('[1, 2]/False/s/${runtime.run_id}/${x}');
  });
});
