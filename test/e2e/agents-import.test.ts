// `switchboard agents import --from agent-orchestrator` as a user runs it (the built CLI, a child process) on agents
// in agent-orchestrator's format, written for these tests (test/fixtures/agent-orchestrator-format): the agents
// Switchboard can run are imported as they are into .switchboard/agents, the others are named with the file and key
// that stop them. The shared cases are in agents-import-cases.ts; test/originals/agent-orchestrator.test.ts runs them
// on agent-orchestrator's own agents.
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serveEntry } from '../../src/config/agent-launch.ts';
import {
  FORMAT_AGENTS,
  FORMAT_PROJECT,
  REFUSED_AGENTS,
  RUNNABLE_AGENTS,
} from '../helpers/agent-orchestrator-format.ts';
import { BIN, FIXTURE_HANDLERS, runCli, tempProject } from '../helpers/cli.ts';
import { startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { writeFiles } from '../helpers/plugins.ts';
import { writeLibrary } from '../sources/agents/orchestrator-cases.ts';
import { type ImportedAgents, importCases } from './agents-import-cases.ts';

const OURS: ImportedAgents = {
  project: FORMAT_PROJECT,
  agents: FORMAT_AGENTS,
  runnable: RUNNABLE_AGENTS,
  refused: REFUSED_AGENTS,
  hooksAgent: 'review-with-followup',
  registryRef: { agent: 'notes-curator', server: 'notes-store' },
  parametric: 'haiku-writer',
};

describe('agents import --from agent-orchestrator', () => {
  importCases(OURS, {
    params: ['subject=Rain on a tin roof', 'season=autumn', 'lines=5'],
    inputs: '<inputs>\nsubject: Rain on a tin roof\nseason: autumn\nlines: 5\n</inputs>',
    bad: ['subject=Rain', 'season=monsoon'],
    refusal: 'parameters.season: must be equal to one of the allowed values',
  });

  it('never brings a grant: an agent-orchestrator agent.json asking for the shell is not imported', async () => {
    const dir = tempProject();
    writeFiles(join(dir, '.agent-orchestrator/agents/sneaky'), {
      'agent.json': JSON.stringify({
        name: 'sneaky',
        description: 'x',
        shell: true,
        permission_mode: 'bypassPermissions',
      }),
    });
    const r = await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({
      imported: [],
      skipped: [{ name: 'sneaky', reason: expect.stringContaining('is not read from an agent-orchestrator folder') }],
    });
    expect(existsSync(join(dir, '.switchboard/agents/sneaky'))).toBe(false);
  });

  it("breaks the loop for an older agent's command server: named in the listing and the skip, imported once approved", async () => {
    const dir = tempProject();
    // agent-orchestrator's agents once gave command servers inline, as its browser tester did with Playwright's.
    writeFiles(join(dir, '.agent-orchestrator/agents/browser-tester'), {
      'agent.json': JSON.stringify({ name: 'browser-tester', description: 'Tests in a browser', type: 'autonomous' }),
      'agent.mcp.json': JSON.stringify({
        mcpServers: { playwright: { type: 'stdio', command: 'npx', args: ['@playwright/mcp@latest'] } },
      }),
    });
    const advice =
      'Review the command, then import the agent with it approved: switchboard agents import --from agent-orchestrator --agent browser-tester --approve-commands';
    const listed = JSON.parse((await runCli(dir, ['agents', 'list', '--json'])).stdout);
    expect(listed.broken[0].error).toContain(
      "server 'playwright': a server that runs a command (npx @playwright/mcp@latest)",
    );
    expect(listed.broken[0].error).toContain(advice);
    const skipped = await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator']);
    expect(skipped.stdout).toContain('Imported nothing new.');
    expect(skipped.stdout).toContain(advice);
    // The advice, run as given.
    const approved = await runCli(dir, [
      'agents',
      'import',
      '--from',
      'agent-orchestrator',
      '--agent',
      'browser-tester',
      '--approve-commands',
    ]);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain('Imported into .switchboard/agents: browser-tester');
    expect(approved.stdout).toContain("approved browser-tester: server 'playwright' runs `npx @playwright/mcp@latest`");
    const after = JSON.parse((await runCli(dir, ['agents', 'list', '--json'])).stdout);
    expect(after.agents).toMatchObject([
      { name: 'browser-tester', source: 'switchboard', mcp_servers: ['playwright'] },
    ]);
    expect(after.broken).toEqual([]);
  });

  it('runs an imported command server: its tools are offered to the model', async () => {
    const dir = tempProject();
    writeFiles(join(dir, '.agent-orchestrator/agents/echoer'), {
      'agent.json': JSON.stringify({ name: 'echoer', description: 'Echoes' }),
      'agent.mcp.json': JSON.stringify({
        mcpServers: { sb: { command: process.execPath, args: [BIN, 'serve', '--handlers', FIXTURE_HANDLERS] } },
      }),
    });
    await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator', '--approve-commands']);
    const api = await startFakeAnthropic({ replies: ['done'] });
    try {
      const env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' };
      const r = await runCli(dir, ['agents', 'run', 'echoer', '--provider', 'anthropic', '-q', 'Echo'], { env });
      expect(r.stdout).toBe('done\n');
      expect(api.messages()[0].body.tools.map((t: { name: string }) => t.name)).toContain('sb__fixture__echo');
    } finally {
      await api.close();
    }
  });

  it('writes an agent merged with the library beside its folder: capability text, servers themselves', async () => {
    const dir = tempProject();
    cpSync(FORMAT_PROJECT, dir, { recursive: true });
    writeLibrary(
      dir,
      {
        registry: 'notes-registry',
        refAgent: { name: 'notes-curator', server: 'notes-store' },
        capAgent: { name: 'ticket-triager', capability: 'issue-tracker', server: 'tracker' },
      },
      'http://127.0.0.1:9/mcp',
    );
    const r = await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator', '--json']);
    expect(JSON.parse(r.stdout).imported).toEqual(expect.arrayContaining(['notes-curator', 'ticket-triager']));
    const read = (name: string, file: string) => readFileSync(join(dir, '.switchboard/agents', name, file), 'utf8');
    expect(JSON.parse(read('notes-curator', 'agent.mcp.json')).mcpServers).toEqual({
      'notes-store': {
        type: 'http',
        url: 'http://127.0.0.1:9/mcp',
        headers: { 'X-Partition': '${runtime.session_id}', 'X-Mode': 'default', 'X-Notebook': 'team' },
      },
      orchestrator: { ...serveEntry(), env: {} },
    });
    expect(JSON.parse(read('ticket-triager', 'agent.json'))).not.toHaveProperty('capabilities');
    expect(read('ticket-triager', 'agent.system-prompt.md')).toBe('Keep what you find in the store.');
    const list = JSON.parse((await runCli(dir, ['agents', 'list', '--json'])).stdout);
    expect(list.broken.filter((b: { source: string }) => b.source === 'switchboard')).toEqual([]);
  });

  it('says what is wrong with --from and with a missing folder', async () => {
    const dir = tempProject();
    const bad = await runCli(dir, ['agents', 'import', '--from', 'meerkat']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--from: expected agent-orchestrator, got 'meerkat'.");
    const none = await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`No agent-orchestrator agents folder at ${join(dir, '.agent-orchestrator/agents')}`);
  });
});
