// Meerkat's own files (../shared/originals/meerkat, see its README.md): its `.rkat/mcp.toml` examples load unchanged
// as Switchboard's config.toml with their keys mapped, `mcp import --from meerkat` reads its project file then its
// user file (the first name wins), and its `output_schema` wrapper example checks a gemini answer against the inner
// schema. The same on our own files in Meerkat's format: test/config/meerkat-servers.test.ts,
// test/cli/init-plan.test.ts and test/sources/agents/gemini.test.ts.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importServers } from '../../src/config/import-servers.ts';
import { loadConfig } from '../../src/config/load.ts';
import { ServerSchema } from '../../src/config/schema.ts';
import { configProject } from '../helpers/config-project.ts';
import { type FakeGemini, startFakeGemini } from '../helpers/fake-gemini.ts';
import type { TestHub } from '../helpers/hub.ts';
import { original } from '../helpers/originals.ts';
import { agentHub } from '../sources/agents/agent-hub.ts';

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
  let api: FakeGemini | undefined;
  let hub: TestHub | undefined;
  afterEach(async () => {
    await hub?.close();
    await api?.close();
    hub = api = undefined;
  });

  it('structured output on gemini: the inner schema is what the answer is checked against', async () => {
    const wrapper = JSON.parse(readFileSync(original('meerkat', 'output-schema-wrapper.json'), 'utf8'));
    api = await startFakeGemini({ replies: ['{"result": 42}', '{"result": "forty-two"}'] });
    hub = await agentHub({ gemini: api.url });
    const result = await hub.value('agent.start', {
      session_name: 'g4',
      provider: 'gemini',
      prompt: 'answer',
      output_schema: wrapper,
    });
    expect(result).toMatchObject({
      status: 'completed',
      structured_output: { result: 'forty-two' },
      schema_warnings: null,
      turns: 2,
    });
    const system = JSON.stringify(api.generations()[0].body.systemInstruction);
    expect(system).toContain('(my-schema)');
    expect(system).not.toContain('meerkat_v1');
    expect(JSON.stringify(api.generations()[1].body.contents)).toContain('/result must be string');
  });
});
