// Agent blueprints in agent-orchestrator's format (our own, test/fixtures/agent-orchestrator-format) in a project's
// .agent-orchestrator/agents: listed with their source and tags, started with parameters checked against their
// parameters_schema and given as agent-orchestrator's <inputs> block, the keys Switchboard cannot honour refused
// naming the file and key, and nothing in that folder granting more than the defaults. The shared cases are in
// orchestrator-cases.ts; agent-orchestrator's own agents go through them in test/originals/agent-orchestrator.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillPlaceholders, inputsBlock } from '../../../src/sources/agents/agent-orchestrator.ts';
import {
  FORMAT_AGENTS,
  FORMAT_PROJECT,
  REFUSED_AGENTS,
  RUNNABLE_AGENTS,
} from '../../helpers/agent-orchestrator-format.ts';
import { writeFiles } from '../../helpers/plugins.ts';
import { type OrchestratorSet, orchestratorHubCases, orchestratorHubs } from './orchestrator-cases.ts';

const SET: OrchestratorSet = {
  project: FORMAT_PROJECT,
  agents: FORMAT_AGENTS,
  runnable: RUNNABLE_AGENTS,
  refused: REFUSED_AGENTS,
  parametric: { name: 'haiku-writer', tags: ['docs', 'example'] },
  structured: 'release-note-drafter',
  refusedFor: { procedural: 'disk-report', hooks: 'review-with-followup', demands: 'gpu-batch' },
  // Our fixture has no registry or capabilities folder; the library cases write ours.
  noLibrary: {
    capability: { agent: 'ticket-triager', name: 'issue-tracker' },
    registryRef: {
      agent: 'notes-curator',
      server: 'notes-store',
      ref: 'notes-registry',
      registryFile: '.agent-orchestrator/mcp-servers/notes-registry/mcp-server.json',
    },
  },
  library: {
    registry: 'notes-registry',
    refAgent: { name: 'notes-curator', server: 'notes-store' },
    capAgent: { name: 'ticket-triager', capability: 'issue-tracker', server: 'tracker' },
  },
  tags: {
    cases: [
      [['docs'], ['glossary-builder', 'haiku-writer', 'release-note-drafter']],
      [['docs', 'example'], ['haiku-writer']],
      // Only ticket-triager has it, and that one cannot run.
      [['support'], []],
    ],
    shown: { tag: 'code', agent: 'glossary-builder' },
  },
  // The block haiku-writer's system prompt shows as its example input.
  start: {
    session: 'poem-1',
    parameters: { subject: 'A kettle left on the stove', season: 'winter', lines: 3, mood: 'drowsy' },
    inputs: '<inputs>\nsubject: A kettle left on the stove\nseason: winter\nlines: 3\nmood: drowsy\n</inputs>',
  },
  badParameters: {
    cases: [
      [
        'haiku-writer',
        { subject: 'Rain', season: 'monsoon' },
        'parameters.season: must be equal to one of the allowed values ["spring","summer","autumn","winter"]',
      ],
      ['haiku-writer', { season: 'spring' }, 'parameters.subject: required'],
      ['haiku-writer', { subject: 'Rain', season: 'spring', lines: 2 }, 'parameters.lines: must be >= 3'],
      [
        'haiku-writer',
        { subject: 'Rain', season: 'spring', rhyme: true },
        'parameters.rhyme: not a parameter of this agent (it takes: subject, season, lines, mood)',
      ],
      ['glossary-builder', { term: 'io', source_dir: '/x' }, 'parameters.term: must NOT have fewer than 3 characters'],
    ],
    required: 'subject',
  },
  structuredRun: {
    parameters: { change: 'Cache the parsed config between reloads' },
    prompt: 'One line only.',
    inputs: '<inputs>\nchange: Cache the parsed config between reloads\n</inputs>',
    missing: '{"details": "no headline"}',
    output: { headline: 'Start-up is faster', details: 'Nothing to do.' },
    required: 'headline',
  },
  shellParameters: { subject: 'Rain', season: 'spring' },
};

describe('agents in .agent-orchestrator/agents', () => {
  /** A hub on the fake Anthropic API whose project holds our .agent-orchestrator folder. */
  const orchestratorProject = orchestratorHubCases(SET);

  it('fills ${params.X} and ${runtime.session_id} in the system prompt on every turn; other placeholders stay', async () => {
    const { hub: h, api } = await orchestratorProject();
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
    for (const call of api.messages()) expect(JSON.stringify(call.body.system)).toContain(expected);
    expect(api.messages().length).toBe(2);
  });

  it('grants nothing from that folder: grant keys and command servers are refused', async () => {
    const { hub: h } = await orchestratorProject();
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
  });
});

describe("agent-orchestrator's library, when what it holds cannot be used", () => {
  const orchestratorProject = orchestratorHubs(FORMAT_PROJECT);

  it('names the file and what to do for each problem; Switchboard agents get neither key', async () => {
    const { hub: h } = await orchestratorProject();
    const base = join(h.dir, '.agent-orchestrator');
    const agent = (name: string, extra: Record<string, unknown>, mcp?: unknown) => ({
      [`agents/${name}/agent.json`]: JSON.stringify({ name, description: 'x', ...extra }),
      ...(mcp ? { [`agents/${name}/agent.mcp.json`]: JSON.stringify({ mcpServers: mcp }) } : {}),
    });
    writeFiles(base, {
      'mcp-servers/vault/mcp-server.json': JSON.stringify({
        id: 'vault',
        name: 'Vault',
        url: 'http://127.0.0.1:9/mcp',
        config_schema: { 'X-Token': { type: 'string', required: true } },
        default_config: { 'X-Token': '${scope.token}' },
      }),
      'mcp-servers/elsewhere/mcp-server.json': JSON.stringify({ id: 'elsewhere', name: 'E', url: '${runner.other}' }),
      'capabilities/checker/capability.json': JSON.stringify({ name: 'checker', description: 'x', script: 'check' }),
      'capabilities/store/capability.json': JSON.stringify({ name: 'store', description: 'x' }),
      'capabilities/store/capability.mcp.json': JSON.stringify({ mcpServers: { vault: { ref: 'vault' } } }),
      // A capability folder is as open to sessions as an agent's: a command server there needs the operator too.
      'capabilities/runner/capability.json': JSON.stringify({ name: 'runner', description: 'x' }),
      'capabilities/runner/capability.mcp.json': JSON.stringify({
        mcpServers: { sneaky: { command: 'sh', args: ['-c', 'echo pwned'] } },
      }),
      ...agent('with-runner', { capabilities: ['runner'] }),
      ...agent('scoped', {}, { vault: { ref: 'vault' } }),
      ...agent('given', {}, { vault: { ref: 'vault', config: { 'X-Token': 'abc' } } }),
      ...agent('runner-url', {}, { e: { ref: 'elsewhere' } }),
      ...agent('scripted', { capabilities: ['checker'] }),
      ...agent('twice', { capabilities: ['store'] }, { vault: { ref: 'vault', config: { 'X-Token': 'abc' } } }),
      ...agent('bad-list', { capabilities: 'store' }),
    });
    writeFiles(join(h.dir, '.switchboard/agents'), {
      'own-caps/agent.json': JSON.stringify({ name: 'own-caps', description: 'x', capabilities: ['store'] }),
      'own-ref/agent.json': JSON.stringify({ name: 'own-ref', description: 'x' }),
      'own-ref/agent.mcp.json': JSON.stringify({ mcpServers: { vault: { ref: 'vault' } } }),
    });
    const list = await h.value('agent.list', { response_format: 'json' });
    const errors = Object.fromEntries(list.broken.map((b: { name: string; error: string }) => [b.name, b.error]));
    const file = (name: string, f = 'agent.json') => join(base, 'agents', name, f);
    expect(errors.scoped).toBe(
      `${file('scoped', 'agent.mcp.json')}: server 'vault': config 'X-Token' is required by ${join(base, 'mcp-servers/vault/mcp-server.json')}, and Switchboard never fills \${scope.token} (only \${params.X} and \${runtime.session_id}): give it in the ref's "config"`,
    );
    expect(list.agents.map((a: { name: string }) => a.name)).toContain('given');
    expect(errors['runner-url']).toBe(
      `${join(base, 'mcp-servers/elsewhere/mcp-server.json')}: "url" uses \${runner.other}, which only agent-orchestrator's runner knows (Switchboard fills \${runner.orchestrator_mcp_url}, as the hub itself): give the URL`,
    );
    expect(errors.scripted).toContain(
      `${join(base, 'capabilities/checker/capability.json')}: capability 'checker' runs an agent-orchestrator script`,
    );
    expect(errors.twice).toBe(
      `${file('twice', 'agent.mcp.json')}: server 'vault' is also given by ${join(base, 'capabilities/store/capability.mcp.json')}; agent-orchestrator refuses a server name given twice too: rename one of them`,
    );
    expect(errors['with-runner']).toBe(
      `${join(base, 'capabilities/runner/capability.mcp.json')}: server 'sneaky': a server that runs a command (sh -c echo pwned) is read only from .switchboard/agents, which sessions cannot edit (this folder they can; agent-orchestrator itself now takes only "ref" servers). Review the command, then import the agent with it approved: switchboard agents import --from agent-orchestrator --agent with-runner --approve-commands`,
    );
    expect(errors['bad-list']).toBe(
      `${file('bad-list')}: "capabilities" must be a list of capability names, e.g. ["context-store"]`,
    );
    expect(errors['own-caps']).toContain('"capabilities" is read only in an agent-orchestrator folder');
    expect(errors['own-ref']).toContain(`server 'vault': "ref" is resolved only in an agent-orchestrator folder`);
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
