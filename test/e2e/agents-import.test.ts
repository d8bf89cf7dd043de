// `switchboard agents import --from agent-orchestrator` as a user runs it (the built CLI, a child process) on agents
// in agent-orchestrator's format (our own, test/fixtures/agent-orchestrator-format): the ones Switchboard can run are
// copied unchanged into .switchboard/agents, the others are named with the file and key that stop them.
// agent-orchestrator's own agents are imported the same way in test/originals/agent-orchestrator.test.ts.
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FORMAT_AGENTS as AGENTS,
  FORMAT_PROJECT as FIXTURE,
  REFUSED_AGENTS,
  RUNNABLE_AGENTS as RUNNABLE,
} from '../helpers/agent-orchestrator-format.ts';
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
    expect(skipped['review-with-followup']).toMatch(/review-with-followup\/agent\.json: "hooks" is not supported/);
    expect(skipped['notes-curator']).toMatch(/notes-curator\/agent\.mcp\.json: server 'notes-store': "ref"/);
    for (const name of RUNNABLE)
      for (const file of ['agent.json', 'agent.system-prompt.md'])
        expect(readFileSync(join(dir, '.switchboard/agents', name, file), 'utf8')).toBe(
          readFileSync(join(AGENTS, name, file), 'utf8'),
        );
    expect(existsSync(join(dir, '.switchboard/agents/ticket-triager'))).toBe(false);

    // Now Switchboard's own: listed from .switchboard/agents, the originals named as not used.
    const list = JSON.parse((await runCli(dir, ['agents', 'list', '--json'])).stdout);
    expect(list.agents.map((a: { name: string; source: string }) => `${a.name}:${a.source}`)).toEqual(
      RUNNABLE.map((n) => `${n}:switchboard`),
    );
    expect(list.warnings).toContain(
      ".agent-orchestrator/agents/haiku-writer is not used: .switchboard/agents/haiku-writer has the same agent name and Switchboard's own folder wins. Rename or delete one of them.",
    );

    // Again: nothing new, the copies are kept.
    const again = await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Imported nothing new.');
    expect(again.stdout).toContain(`skipped haiku-writer: already in ${join(dir, '.switchboard/agents/haiku-writer')}`);
  });

  it('reads another folder (agent-orchestrator keeps them in config/agents) and only the agents named', async () => {
    const dir = tempProject();
    const r = await runCli(dir, [
      'agents',
      'import',
      AGENTS,
      '--from',
      'agent-orchestrator',
      '--agent',
      'haiku-writer',
      'nope',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Read ${AGENTS}`);
    expect(r.stdout).toContain('Imported into .switchboard/agents: haiku-writer');
    expect(r.stdout).toContain(`skipped nope: no folder ${join(AGENTS, 'nope')}`);
    expect(existsSync(join(dir, '.switchboard/agents/release-note-drafter'))).toBe(false);
  });

  it('runs an imported agent with --param: its parameters are the <inputs> prompt', async () => {
    const dir = project();
    await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator', '--agent', 'haiku-writer']);
    const api = await startFakeAnthropic({ replies: ['Tin roof, autumn rain'] });
    try {
      const env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' };
      const args = ['agents', 'run', 'haiku-writer', '--provider', 'anthropic', '-q', '--param'];
      const r = await runCli(dir, [...args, 'subject=Rain on a tin roof', 'season=autumn', 'lines=5'], { env });
      expect(r.stdout).toBe('Tin roof, autumn rain\n');
      expect(api.messages()[0].body.messages[0].content[0].text).toBe(
        '<inputs>\nsubject: Rain on a tin roof\nseason: autumn\nlines: 5\n</inputs>',
      );
      const bad = await runCli(dir, [...args, 'subject=Rain', 'season=monsoon'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('parameters.season: must be equal to one of the allowed values');
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
