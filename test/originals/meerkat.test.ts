// Meerkat's own files (../shared/originals/meerkat, see its README.md): its `.rkat/mcp.toml` examples load unchanged
// as Switchboard's config.toml with their keys mapped, `mcp import --from meerkat` reads its project file then its
// user file (the first name wins), and its `output_schema` wrapper example checks a gemini answer against the inner
// schema (the provider contract's wrapper-form case, run on Meerkat's file). The same on our own files in Meerkat's
// format: test/config/meerkat-servers.test.ts, test/cli/init-plan.test.ts and test/sources/agents/provider-contract.ts.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importServers } from '../../src/config/import-servers.ts';
import { loadConfig } from '../../src/config/load.ts';
import { ServerSchema } from '../../src/config/schema.ts';
import { configProject } from '../helpers/config-project.ts';
import { original } from '../helpers/originals.ts';
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
