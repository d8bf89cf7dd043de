// Meerkat's own files (../shared/originals/meerkat, see its README.md): its `.rkat/mcp.toml` examples load unchanged
// as Switchboard's config.toml with their keys mapped, `mcp import --from meerkat` reads its project file then its
// user file (the first name wins), and its `output_schema` wrapper example checks a gemini answer against the inner
// schema (the provider contract's wrapper-form case, run on Meerkat's file). The same on our own files in Meerkat's
// format: test/config/meerkat-servers.test.ts, test/cli/init-plan.test.ts and test/sources/agents/provider-contract.ts.
// And the meerkat_run / meerkat_resume "full examples" of Meerkat's MCP docs (its design doc in ../shared/seeds), sent
// unchanged but for a session_name to agent__start and unchanged to agent__resume (session_id names the session).
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importServers } from '../../src/config/import-servers.ts';
import { loadConfig } from '../../src/config/load.ts';
import { ServerSchema } from '../../src/config/schema.ts';
import { closeAfterEach } from '../helpers/close-after-each.ts';
import { configProject } from '../helpers/config-project.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import type { TestHub } from '../helpers/hub.ts';
import { original, seedExample } from '../helpers/originals.ts';
import { agentHub } from '../sources/agents/agent-hub.ts';
import { geminiUnderTest } from '../sources/agents/gemini-adapter.ts';
import { wrapperFormCase } from '../sources/agents/provider-contract.ts';

/** One of Meerkat's mcp.toml files (skill, tools-doc, home, project) used unchanged as the project's config.toml. */
function asConfig(which: string) {
  const p = configProject();
  copyFileSync(original('meerkat', which, '.rkat/mcp.toml'), join(p.dir, '.switchboard/config.toml'));
  return loadConfig(p.dir, p.env).config.servers;
}

describe("Meerkat's own mcp.toml files in Switchboard's config", () => {
  it('load unchanged: connect_timeout_secs is startup_timeout_ms, url servers are http or sse', () => {
    const skill = asConfig('skill');
    expect(skill.map((s) => [s.name, s.command ?? s.url, s.transport, s.startup_timeout_ms])).toEqual([
      ['local-tools', 'path/to/server', undefined, 30_000],
      ['issue-api', 'https://mcp.example.com', undefined, 10_000],
    ]);
    expect(skill[0].env).toEqual({ KEY: 'value' });
    expect(asConfig('tools-doc')[0]).toMatchObject({ name: 'slow-server', startup_timeout_ms: 30_000 });
    const docs = asConfig('home');
    expect(docs.find((s) => s.name === 'legacy-sse')?.transport).toBe('sse');
    // Headers keep their ${VAR} for the server to expand when it connects, as in Meerkat.
    expect(docs.find((s) => s.name === 'remote-api')?.headers).toEqual({ Authorization: 'Bearer ${MCP_API_TOKEN}' });
    expect(asConfig('project').map((s) => s.name)).toEqual(['filesystem', 'database', 'web-search', 'custom-api']);
  });
});

describe("mcp import --from meerkat on Meerkat's own files", () => {
  it('reads the project file, then the user file; the first name wins', () => {
    const project = original('meerkat', 'project');
    const home = original('meerkat', 'home');
    const found = importServers('meerkat', project, undefined, { HOME: home });
    expect(found.files).toEqual([join(project, '.rkat/mcp.toml'), join(home, '.rkat/mcp.toml')]);
    expect(found.servers).toEqual([
      { name: 'filesystem', command: 'mcp-server-filesystem', args: ['--root', '/home/user/projects'] },
      { name: 'database', command: 'mcp-server-sqlite', args: ['--db', './data/app.db'] },
      { name: 'web-search', url: 'http://localhost:9000/mcp' },
      {
        name: 'custom-api',
        command: 'python',
        args: ['tools/my_mcp_server.py'],
        env: { API_KEY: '${CUSTOM_API_KEY}' },
      },
      { name: 'remote-api', url: 'https://mcp.example.com/api', headers: { Authorization: 'Bearer ${MCP_API_TOKEN}' } },
      { name: 'legacy-sse', url: 'https://old.example.com/sse', transport: 'sse' },
    ]);
    expect(found.origins['remote-api']).toBe(join(home, '.rkat/mcp.toml'));
    for (const s of found.servers) expect(ServerSchema.safeParse(s).success).toBe(true);
  });
});

describe("Meerkat's output_schema wrapper example", () => {
  // The contract's wrapper-form case (test/sources/agents/provider-contract.ts) on Meerkat's own file, through gemini.
  it('structured output on gemini: the inner schema is what the answer is checked against', () =>
    wrapperFormCase(geminiUnderTest, {
      wrapper: JSON.parse(readFileSync(original('meerkat', 'output-schema-wrapper.json'), 'utf8')),
      wrong: '{"result": 42}',
      error: '/result must be string',
      right: '{"result": "forty-two"}',
      structured: { result: 'forty-two' },
    }));
});

describe("Meerkat's meerkat_run and meerkat_resume full examples", () => {
  let api: FakeAnthropic | undefined;
  let hub: TestHub | undefined;
  closeAfterEach(() => [hub, api]);

  it('run: its callback tool pauses the turn; resume with its tool results: the answer matches its schema', async () => {
    const doc = 'agents-and-client-meerkat.md';
    const run = seedExample(doc, 'Full example:');
    const resume = seedExample(doc, 'Full example with tool results:');
    // Every key of Meerkat's own, at its default where Switchboard has no equivalent (stream, verbose, host_mode,
    // comms_name, hooks_override, enable_builtins, builtin_config; resume's model/max_tokens/provider null, tools []).
    expect(Object.keys(run)).toEqual(expect.arrayContaining(['stream', 'verbose', 'host_mode', 'hooks_override']));
    const toolUseId = (resume.tool_results as { tool_use_id: string }[])[0].tool_use_id;
    api = await startFakeAnthropic({
      replies: [
        { content: [{ type: 'tool_use', id: toolUseId, name: 'read_file', input: { path: 'src/main.rs' } }] },
        '{"bugs": ["off by one in the loop"], "severity": "low"}',
      ],
    });
    hub = await agentHub({ anthropic: api.url });
    const paused = await hub.value('agent.start', { session_name: resume.session_id, ...run });
    expect(paused).toMatchObject({
      session_id: resume.session_id,
      status: 'pending_tool_call',
      pending_tool_calls: [{ id: toolUseId, tool_name: 'read_file', args: { path: 'src/main.rs' } }],
    });
    const [first] = api.messages();
    expect(first.body).toMatchObject({ model: run.model, max_tokens: run.max_tokens });
    expect(first.body.system).toContain(run.system_prompt);
    expect(first.body.tools.map((t: { name: string }) => t.name)).toEqual(['read_file']);

    const done = await hub.value('agent.resume', resume);
    expect(done).toMatchObject({
      session_id: resume.session_id,
      status: 'completed',
      structured_output: { bugs: ['off by one in the loop'], severity: 'low' },
      schema_warnings: null,
    });
    // The resume sent the tool result, and ran with the session's model (its `model: null` asks for no change).
    const second = api.messages()[1].body;
    expect(second.model).toBe(run.model);
    expect(JSON.stringify(second.messages.at(-1))).toContain('File contents here...');
  });

  it('the same examples with a value Switchboard cannot honour are refused naming the key, before any session', async () => {
    const run = seedExample('agents-and-client-meerkat.md', 'Full example:');
    api = await startFakeAnthropic();
    hub = await agentHub({ anthropic: api.url });
    const out = await hub.call('agent.start', { session_name: 'host', ...run, host_mode: true, comms_name: 'rev' });
    expect(!out.ok && out.error.code).toBe('INVALID_INPUT');
    expect(!out.ok && out.error.message).toMatch(/host_mode: Switchboard takes this Meerkat key only at its default/);
    expect(!out.ok && out.error.message).toMatch(/comms_name: .*no inter-agent comms/);
    expect(api.messages()).toEqual([]);
    expect(await hub.value('session.list', { response_format: 'json' })).toMatchObject({ sessions: [] });
  });
});
