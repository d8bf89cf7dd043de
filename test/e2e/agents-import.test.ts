// `switchboard agents import --from agent-orchestrator` as a user runs it (the built CLI, a child process) on
// agent-orchestrator's own agents (test/fixtures/agent-orchestrator): the ones Switchboard can run are copied
// unchanged into .switchboard/agents, the others are named with the file and key that stop them.
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ORCHESTRATOR_AGENTS as AGENTS,
  ORCHESTRATOR_PROJECT as FIXTURE,
  REFUSED_AGENTS,
  RUNNABLE_AGENTS as RUNNABLE,
} from '../helpers/agent-orchestrator.ts';
import { runCli, tempProject } from '../helpers/cli.ts';
import { startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { writeFiles } from '../helpers/plugins.ts';

function project(): string {
  const dir = tempProject();
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

describe('agents import --from agent-orchestrator', () => {
  it('copies the agents Switchboard can run, unchanged, and names the file and key that stop the others', async () => {
    const dir = project();
    const r = await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.from).toBe(join(dir, '.agent-orchestrator/agents'));
    expect(out.imported).toEqual(RUNNABLE);
    const skipped = Object.fromEntries(out.skipped.map((s: { name: string; reason: string }) => [s.name, s.reason]));
    expect(Object.keys(skipped).sort()).toEqual(REFUSED_AGENTS);
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

  it("reads another folder (its repository's config/agents) and only the agents named", async () => {
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

  it('runs an imported agent with --param: its parameters are the <inputs> prompt', async () => {
    const dir = project();
    await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator', '--agent', 'parametric-agent']);
    const api = await startFakeAnthropic({ replies: ['- AI reads scans'] });
    try {
      const env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' };
      const args = ['agents', 'run', 'parametric-agent', '--provider', 'anthropic', '-q', '--param'];
      const r = await runCli(dir, [...args, 'topic=AI in Healthcare', 'format=bullet_points', 'max_words=200'], {
        env,
      });
      expect(r.stdout).toBe('- AI reads scans\n');
      expect(api.messages()[0].body.messages[0].content[0].text).toBe(
        '<inputs>\ntopic: AI in Healthcare\nformat: bullet_points\nmax_words: 200\n</inputs>',
      );
      const bad = await runCli(dir, [...args, 'topic=AI', 'format=poem'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('parameters.format: must be equal to one of the allowed values');
    } finally {
      await api.close();
    }
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
