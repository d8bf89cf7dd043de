// `switchboard agents import --from agent-orchestrator` as a user runs it (the built CLI, a child process) on agents
// in agent-orchestrator's format, written for these tests (test/fixtures/agent-orchestrator-format): the agents
// Switchboard can run are imported as they are into .switchboard/agents, the others are named with the file and key
// that stop them. The shared cases are in agents-import-cases.ts; test/originals/agent-orchestrator.test.ts runs them
// on agent-orchestrator's own agents.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FORMAT_AGENTS,
  FORMAT_PROJECT,
  REFUSED_AGENTS,
  RUNNABLE_AGENTS,
} from '../helpers/agent-orchestrator-format.ts';
import { runCli, tempProject } from '../helpers/cli.ts';
import { writeFiles } from '../helpers/plugins.ts';
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
