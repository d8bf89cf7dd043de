// What the hub does with agents in agent-orchestrator's blueprint format, written once and run on two sets of them:
// our own (test/fixtures/agent-orchestrator-format, in agent-orchestrator.test.ts beside this file, `npm test`) and
// agent-orchestrator's own (test/originals/agent-orchestrator.test.ts, `npm run test:shared`). orchestratorHubCases
// defines the tests from one set's agents and the values that differ between the two sets.
import { cpSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { type FakeAnthropic, type FakeReply, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { writeFiles } from '../../helpers/plugins.ts';
import { agentHub } from './agent-hub.ts';

/** A hub on the fake Anthropic API whose project is a copy of a folder holding `.agent-orchestrator/agents`. */
export interface OrchestratorHub {
  hub: TestHub;
  api: FakeAnthropic;
  /** The error of a call that must fail. */
  failure(name: string, input: unknown): Promise<{ code: string; message: string }>;
}

/** Starts such hubs for the calling test file, closing each (hub first) after its test. */
export function orchestratorHubs(project: string): (replies?: FakeReply[]) => Promise<OrchestratorHub> {
  const closing: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });
  return async (replies) => {
    const api = await startFakeAnthropic({ ...(replies ? { replies } : {}) });
    const hub = await agentHub({ anthropic: api.url, config: '[agents]\ndefault_provider = "anthropic"' });
    cpSync(project, hub.dir, { recursive: true });
    closing.push(
      () => hub.close(),
      () => api.close(),
    );
    const failure = async (name: string, input: unknown) => {
      const out = await hub.call(name, input);
      if (out.ok) throw new Error(`${name} succeeded: ${JSON.stringify(out)}`);
      return out.error;
    };
    return { hub, api, failure };
  };
}

/** The agents of one set: which run, which are refused and for what. */
export interface OrchestratorAgents {
  /** The set's `.agent-orchestrator/agents` folder (the originals read, not the hub's copy). */
  agents: string;
  runnable: string[];
  refused: string[];
  /** runnable[1], with parameters, and the tags its agent.json gives it. */
  parametric: { name: string; tags: string[] };
  /** runnable[2], which has an output_schema. */
  structured: string;
  /** The agent refused for each key Switchboard cannot honour. */
  refusedFor: { procedural: string; hooks: string; demands: string };
  /**
   * Without agent-orchestrator's library beside the agents folder: an agent whose capability is not there, and one
   * whose `ref` server's registry entry is not there (that server, its ref and the registry file named).
   */
  noLibrary?: {
    capability: { agent: string; name: string };
    registryRef: { agent: string; server: string; ref: string; registryFile: string };
  };
}

async function listsAgents({ hub: h }: OrchestratorHub, set: OrchestratorAgents): Promise<void> {
  const list = await h.value('agent.list', { response_format: 'json' });
  expect(list.agents.map((a: { name: string }) => a.name)).toEqual(set.runnable);
  const parametric = JSON.parse(readFileSync(join(set.agents, set.parametric.name, 'agent.json'), 'utf8'));
  const named = (name: string) => list.agents.find((a: { name: string }) => a.name === name);
  expect(named(set.parametric.name)).toMatchObject({
    name: set.parametric.name,
    source: 'agent-orchestrator',
    description: parametric.description,
    tags: set.parametric.tags,
    parameters_schema: parametric.parameters_schema,
    has_system_prompt: true,
    // Nothing from that folder grants more than a session without an agent gets.
    shell: false,
    permission_mode: null,
    directories: ['.'],
  });
  expect(named(set.structured)).toMatchObject({ has_output_schema: true });
  const broken = Object.fromEntries(
    list.broken.map((b: { name: string; error: string; source: string }) => [b.name, b.error]),
  );
  expect(Object.keys(broken).sort()).toEqual(set.refused);
  const file = (name: string, f = 'agent.json') => join(h.dir, '.agent-orchestrator/agents', name, f);
  const { procedural, hooks, demands } = set.refusedFor;
  expect(broken[procedural]).toMatch(new RegExp(`^${file(procedural)}: "type": "procedural" is not supported: `));
  expect(broken[hooks]).toMatch(new RegExp(`^${file(hooks)}: "hooks" is not supported`));
  expect(broken[demands]).toMatch(new RegExp(`^${file(demands)}: "demands" is not supported`));
  if (set.noLibrary) {
    const { capability, registryRef: ref } = set.noLibrary;
    expect(broken[capability.agent]).toBe(
      `${file(capability.agent)}: capability '${capability.name}' is not in agent-orchestrator's capabilities folder (${join(h.dir, '.agent-orchestrator/capabilities', capability.name, 'capability.json')} is missing): copy its folder there, or remove it from "capabilities"`,
    );
    // The registry entry named is the ref's, not the server's name.
    expect(broken[ref.agent]).toContain(
      `${file(ref.agent, 'agent.mcp.json')}: server '${ref.server}': "ref" names '${ref.ref}' of agent-orchestrator's MCP server registry, and ${join(h.dir, ref.registryFile)} is not there: copy the registry's folder beside the agents folder`,
    );
  }
  expect(list.warnings).toEqual([]);
}

/** `tags` keeps the agents having every tag asked for: each [tags, names] pair; the markdown list names `shown`. */
async function filtersByTags(
  { hub: h }: OrchestratorHub,
  cases: [string[], string[]][],
  shown: { tag: string; agent: string },
): Promise<void> {
  for (const [tags, expected] of cases) {
    const list = await h.value('agent.list', { response_format: 'json', tags });
    expect(list.agents.map((a: { name: string }) => a.name)).toEqual(expected);
  }
  expect(await h.value('agent.list', { tags: [shown.tag] })).toContain(`**${shown.agent}**`);
}

/** agent.start with parameters: the system prompt as written, the parameters as the <inputs> block, kept in the meta. */
async function startsWithParameters(
  { hub: h, api }: OrchestratorHub,
  agents: string,
  start: { session: string; agent: string; parameters: Record<string, unknown>; inputs: string },
): Promise<void> {
  const result = await h.value('agent.start', {
    session_name: start.session,
    agent_name: start.agent,
    parameters: start.parameters,
  });
  expect(result).toMatchObject({ status: 'completed', content: 'ok' });
  const body = api.messages()[0].body;
  expect(JSON.stringify(body.system)).toContain(
    JSON.stringify(readFileSync(join(agents, start.agent, 'agent.system-prompt.md'), 'utf8')).slice(1, -1),
  );
  // One `name: value` line per parameter, in the order given.
  expect(body.messages[0].content).toEqual([{ type: 'text', text: start.inputs }]);
  const meta = JSON.parse(readFileSync(join(h.dir, `.switchboard/sessions/${start.session}.meta.json`), 'utf8'));
  const [first] = Object.entries(start.parameters);
  expect(meta.options.parameters).toMatchObject(Object.fromEntries([first]));
}

/**
 * Parameters the parameters_schema does not take are refused with INVALID_INPUT naming the parameter, before any model
 * call: each [agent, parameters, message part]; the first is an enum the agent's schema names; `required` is the
 * parameter missing when the agent gets only a prompt.
 */
async function refusesBadParameters(
  { api, failure }: OrchestratorHub,
  cases: [string, Record<string, unknown>, string][],
  required: { agent: string; parameter: string },
): Promise<void> {
  const start = (agent_name: string, parameters: Record<string, unknown>) =>
    failure('agent.start', { session_name: 'bad', agent_name, parameters });
  const [[enumAgent, enumParameters]] = cases;
  const enumBad = await start(enumAgent, enumParameters);
  expect(enumBad.code).toBe('INVALID_INPUT');
  expect(enumBad.message).toContain(`parameters_schema of agent '${enumAgent}'`);
  for (const [agent, parameters, message] of cases) expect((await start(agent, parameters)).message).toContain(message);
  expect(
    (await failure('agent.start', { session_name: 'bad', agent_name: required.agent, prompt: 'Write something' }))
      .message,
  ).toContain(`parameters.${required.parameter}: required`);
  const noSchema = await failure('agent.start', { session_name: 'bad', prompt: 'hi', parameters: { a: 1 } });
  expect(noSchema).toMatchObject({ code: 'INVALID_INPUT' });
  expect(noSchema.message).toContain('only an agent with a parameters_schema takes parameters');
  expect((await failure('agent.start', { session_name: 'bad' })).message).toContain('prompt: required');
  expect(api.messages()).toEqual([]);
}

/**
 * The agent's output_schema: a reply without `required` is sent back naming it, the next one is validated and
 * returned. The hub must have been started with `replies` = [the bad reply, JSON of `output`].
 */
async function answersWithOutputSchema(
  { hub: h, api }: OrchestratorHub,
  run: { agent: string; parameters: Record<string, unknown>; prompt: string; inputs: string },
  output: Record<string, unknown>,
  required: string,
): Promise<void> {
  const result = await h.value('agent.start', {
    session_name: 'structured',
    agent_name: run.agent,
    parameters: run.parameters,
    prompt: run.prompt,
  });
  expect(result.structured_output).toEqual(output);
  expect(api.messages()[0].body.messages[0].content[0].text).toBe(`${run.inputs}\n\n${run.prompt}`);
  expect(JSON.stringify(api.messages()[1].body.messages)).toContain(`must have required property '${required}'`);
}

/** Switchboard's own folder wins a name clash, and the hidden folder is named. */
async function ownFolderWinsClash({ hub: h }: OrchestratorHub, agent: string): Promise<void> {
  writeFiles(join(h.dir, '.switchboard/agents', agent), {
    'agent.json': JSON.stringify({ name: agent, description: 'Own one' }),
  });
  const list = await h.value('agent.list', { response_format: 'json' });
  expect(list.agents.find((a: { name: string }) => a.name === agent)).toMatchObject({
    source: 'switchboard',
    description: 'Own one',
  });
  expect(list.warnings).toEqual([
    `.agent-orchestrator/agents/${agent} is not used: .switchboard/agents/${agent} has the same agent name and Switchboard's own folder wins. Rename or delete one of them.`,
  ]);
}

/** An agent of that folder started with the shell is refused, naming how to grant it. */
async function refusesShell(
  { failure }: OrchestratorHub,
  agent: string,
  parameters: Record<string, unknown>,
): Promise<void> {
  const shell = await failure('agent.start', {
    session_name: 's',
    agent_name: agent,
    parameters,
    enable_builtins: true,
    builtin_config: { enable_shell: true },
  });
  expect(shell.code).toBe('FORBIDDEN');
  expect(shell.message).toContain(
    `import it with \`switchboard agents import --from agent-orchestrator --agent ${agent}\` and set "shell": true in .switchboard/agents/${agent}/agent.json`,
  );
}

/**
 * What the library cases write beside the agents folder (our own files in agent-orchestrator's format) and start:
 * `refAgent` has a `ref` to `registry` (server `refServer`) and one to `orchestrator`; `capAgent` lists `capability`,
 * whose capability.mcp.json refs `registry` too, started with `capParameters`.
 */
export interface LibraryRun {
  registry: string;
  refAgent: { name: string; server: string; parameters?: Record<string, unknown> };
  capAgent: { name: string; capability: string; server: string; parameters?: Record<string, unknown> };
}

/** An HTTP server that records the headers of every request and answers none as MCP (the turn goes on without it). */
async function headerRecorder(): Promise<{ url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    res.writeHead(404).end();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

/** Our registry entries and capability, in its format, beside the hub's agents folder. */
export function writeLibrary(dir: string, run: LibraryRun, url: string): void {
  const base = join(dir, '.agent-orchestrator');
  writeFiles(join(base, 'mcp-servers'), {
    [`${run.registry}/mcp-server.json`]: JSON.stringify({
      id: run.registry,
      name: 'Stand-in store',
      url,
      config_schema: { 'X-Partition': { type: 'string', required: true }, 'X-Mode': { type: 'string' } },
      default_config: { 'X-Partition': '${runtime.session_id}', 'X-Mode': 'default' },
    }),
    'orchestrator/mcp-server.json': JSON.stringify({
      id: 'orchestrator',
      name: 'Agent Orchestrator',
      url: '${runner.orchestrator_mcp_url}',
      config_schema: { 'X-Agent-Session-Id': { type: 'string', required: true } },
      default_config: { 'X-Agent-Session-Id': '${runtime.session_id}' },
    }),
  });
  writeFiles(join(base, 'capabilities', run.capAgent.capability), {
    'capability.json': JSON.stringify({ name: run.capAgent.capability, description: 'Stand-in capability' }),
    'capability.text.md': 'Keep what you find in the store.',
    'capability.mcp.json': JSON.stringify({ mcpServers: { [run.capAgent.server]: { ref: run.registry } } }),
  });
}

/**
 * With the library beside the agents folder, its `ref` servers are the servers themselves: the registry's URL with
 * its default_config (session name filled) and the ref's config as headers; the orchestrator's own server is
 * Switchboard's serve (its agent tools offered to the model); a capability's text follows the system prompt.
 */
async function resolvesLibrary({ hub: h, api }: OrchestratorHub, run: LibraryRun): Promise<void> {
  const recorder = await headerRecorder();
  try {
    writeLibrary(h.dir, run, recorder.url);
    const ref = run.refAgent;
    const refConfig = JSON.parse(
      readFileSync(join(h.dir, '.agent-orchestrator/agents', ref.name, 'agent.mcp.json'), 'utf8'),
    ).mcpServers[ref.server].config as Record<string, string> | undefined;
    const started = await h.value('agent.start', {
      session_name: 'lib-ref',
      agent_name: ref.name,
      ...(ref.parameters ? { parameters: ref.parameters } : { prompt: 'Go' }),
    });
    expect(started.status).toBe('completed');
    const request = recorder.seen[0];
    expect(request['x-partition']).toBe('lib-ref');
    expect(request['x-mode']).toBe(refConfig?.['X-Mode'] ?? 'default');
    for (const [key, value] of Object.entries(refConfig ?? {})) expect(request[key.toLowerCase()]).toBe(value);
    const tools = api.messages()[0].body.tools.map((t: { name: string }) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['orchestrator__agent__start', 'orchestrator__agent__result']));
    const transcript = readFileSync(join(h.dir, '.switchboard/sessions/lib-ref.jsonl'), 'utf8');
    expect(transcript).toMatch(new RegExp(`"type":"mcp_unavailable","server":"${ref.server}"`));

    const cap = run.capAgent;
    await h.value('agent.start', {
      session_name: 'lib-cap',
      agent_name: cap.name,
      ...(cap.parameters ? { parameters: cap.parameters } : { prompt: 'Go' }),
    });
    expect(recorder.seen.at(-1)?.['x-partition']).toBe('lib-cap');
    expect(JSON.stringify(api.messages().at(-1)?.body.system)).toContain('Keep what you find in the store.');
  } finally {
    await recorder.close();
  }
}

/** One set's agents and the calls the cases make on them. */
export interface OrchestratorSet extends OrchestratorAgents {
  /** A folder holding `.agent-orchestrator/agents`. */
  project: string;
  /** `tags` asked for and the agents listed; the markdown list shows `agent` for `tag`. */
  tags: { cases: [string[], string[]][]; shown: { tag: string; agent: string } };
  /** parametric's start: parameters (the first is checked in the session's meta) and the <inputs> block they make. */
  start: { session: string; parameters: Record<string, unknown>; inputs: string };
  /** [agent, parameters, message part] refused; the first an enum; `required` is parametric's parameter required. */
  badParameters: { cases: [string, Record<string, unknown>, string][]; required: string };
  /** structured's run: a first reply missing `required`, then `output`. */
  structuredRun: {
    parameters: Record<string, unknown>;
    prompt: string;
    inputs: string;
    missing: string;
    output: Record<string, unknown>;
    required: string;
  };
  /** Valid parameters for parametric, started with the shell. */
  shellParameters: Record<string, unknown>;
  /** The agents the library cases start once it is written beside the agents folder. */
  library: LibraryRun;
}

/** Defines the hub's tests on one set, in the calling describe; returns the set's hub starter for the file's own. */
export function orchestratorHubCases(set: OrchestratorSet): (replies?: FakeReply[]) => Promise<OrchestratorHub> {
  const project = orchestratorHubs(set.project);
  const parametric = set.parametric.name;
  it('are listed with their source, tags and parameters_schema; the ones Switchboard cannot run name the file and key', async () => {
    await listsAgents(await project(), set);
  });
  it('keeps the agents having every tag asked for', async () => {
    await filtersByTags(await project(), set.tags.cases, set.tags.shown);
  });
  it(`starts ${parametric} with parameters: its system prompt as written, the parameters as the <inputs> block`, async () => {
    await startsWithParameters(await project(), set.agents, { ...set.start, agent: parametric });
  });
  it('refuses parameters its parameters_schema does not take with INVALID_INPUT naming the parameter, before any model call', async () => {
    const { cases, required } = set.badParameters;
    await refusesBadParameters(await project(), cases, { agent: parametric, parameter: required });
  });
  it(`answers with the agent's output_schema: ${set.structured}'s JSON is validated and returned`, async () => {
    const run = set.structuredRun;
    await answersWithOutputSchema(
      await project([run.missing, JSON.stringify(run.output)]),
      { ...run, agent: set.structured },
      run.output,
      run.required,
    );
  });
  it("lets Switchboard's own folder win a name clash, naming the hidden folder", async () => {
    await ownFolderWinsClash(await project(), parametric);
  });
  it(`grants nothing: ${parametric} started with the shell is refused, naming how to grant it`, async () => {
    await refusesShell(await project(), parametric, set.shellParameters);
  });
  it('resolves ref servers and capabilities from the registry and capabilities folders beside the agents', async () => {
    await resolvesLibrary(await project(), set.library);
  });
  return project;
}
