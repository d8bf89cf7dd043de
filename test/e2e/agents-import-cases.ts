// `switchboard agents import --from agent-orchestrator` (the built CLI) written once and run on two sets of agents in
// agent-orchestrator's format: our own (agents-import.test.ts beside this file, `npm test`) and the set in ../shared
// that test/originals/agent-orchestrator.test.ts hands it (`npm run test:shared`). No agent file is kept here: each
// set says where its folder is.
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli, tempProject } from '../helpers/cli.ts';
import { startFakeAnthropic } from '../helpers/fake-anthropic.ts';

/** One set of agents: where they are, which Switchboard can run, which it refuses and for what. */
export interface ImportedAgents {
  /** A folder holding `.agent-orchestrator/agents`. */
  project: string;
  /** That `.agent-orchestrator/agents` folder. */
  agents: string;
  runnable: string[];
  refused: string[];
  /** The agent refused for "hooks", and the one refused for a registry `ref` server with that server. */
  hooksAgent: string;
  /** Without the registry beside the agents folder: an agent refused for its `ref` server. */
  registryRef?: { agent: string; server: string };
  /** Runnable agents merged with the library beside the agents folder: written as merged, not copied unchanged. */
  merged?: string[];
  /** An agent with parameters. */
  parametric: string;
}

/** A temporary project holding a copy of the set's folder. */
function project(set: ImportedAgents): string {
  const dir = tempProject();
  cpSync(set.project, dir, { recursive: true });
  return dir;
}

/** Copies the agents Switchboard can run, unchanged, names the file and key that stop the others; again: nothing new. */
async function importsRunnable(set: ImportedAgents): Promise<void> {
  const dir = project(set);
  const r = await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator', '--json']);
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout);
  expect(out.from).toBe(join(dir, '.agent-orchestrator/agents'));
  expect(out.imported).toEqual(set.runnable);
  const skipped = Object.fromEntries(out.skipped.map((s: { name: string; reason: string }) => [s.name, s.reason]));
  expect(Object.keys(skipped).sort()).toEqual(set.refused);
  expect(skipped[set.hooksAgent]).toContain(`${set.hooksAgent}/agent.json: "hooks" is not supported`);
  if (set.registryRef) {
    const { agent, server } = set.registryRef;
    expect(skipped[agent]).toContain(`${agent}/agent.mcp.json: server '${server}': "ref"`);
  }
  const read = (...path: string[]) => readFileSync(join(...path), 'utf8');
  for (const name of set.runnable.filter((n) => !set.merged?.includes(n)))
    for (const file of ['agent.json', 'agent.system-prompt.md'])
      expect(read(dir, '.switchboard/agents', name, file)).toBe(read(set.agents, name, file));
  // A merged one is written in .switchboard/agents' own terms: no capabilities, no ref left.
  for (const name of set.merged ?? []) {
    expect(JSON.parse(read(dir, '.switchboard/agents', name, 'agent.json')).capabilities).toBeUndefined();
    const servers = Object.values(JSON.parse(read(dir, '.switchboard/agents', name, 'agent.mcp.json')).mcpServers);
    expect(servers.length).toBeGreaterThan(0);
    for (const spec of servers) expect(spec).not.toHaveProperty('ref');
  }
  for (const name of set.refused) expect(existsSync(join(dir, '.switchboard/agents', name))).toBe(false);

  // Now Switchboard's own: listed from .switchboard/agents, the originals named as not used.
  const list = JSON.parse((await runCli(dir, ['agents', 'list', '--json'])).stdout);
  expect(list.agents.map((a: { name: string; source: string }) => `${a.name}:${a.source}`)).toEqual(
    set.runnable.map((n) => `${n}:switchboard`),
  );
  expect(list.broken.filter((b: { source: string }) => b.source === 'switchboard')).toEqual([]);
  const clash = set.parametric;
  expect(list.warnings).toContain(
    `.agent-orchestrator/agents/${clash} is not used: .switchboard/agents/${clash} has the same agent name and Switchboard's own folder wins. Rename or delete one of them.`,
  );

  // Again: nothing new, the copies are kept.
  const again = await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator']);
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('Imported nothing new.');
  expect(again.stdout).toContain(`skipped ${clash}: already in ${join(dir, '.switchboard/agents', clash)}`);
}

/** Reads the agents folder named (without a project) and imports only the agents named. */
async function importsNamedFromFolder(set: ImportedAgents): Promise<void> {
  const dir = tempProject();
  const r = await runCli(dir, [
    'agents',
    'import',
    set.agents,
    '--from',
    'agent-orchestrator',
    '--agent',
    set.parametric,
    'nope',
  ]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`Read ${set.agents}`);
  expect(r.stdout).toContain(`Imported into .switchboard/agents: ${set.parametric}`);
  expect(r.stdout).toContain(`skipped nope: no folder ${join(set.agents, 'nope')}`);
  for (const name of set.runnable.filter((n) => n !== set.parametric))
    expect(existsSync(join(dir, '.switchboard/agents', name))).toBe(false);
}

/**
 * Runs the imported parametric agent with --param: `params` (name=value) are its <inputs> prompt, `inputs`; `bad` are
 * refused with exit 2 and `refusal` on stderr.
 */
async function runsWithParams(
  set: ImportedAgents,
  run: { params: string[]; inputs: string; bad: string[]; refusal: string },
): Promise<void> {
  const dir = project(set);
  await runCli(dir, ['agents', 'import', '--from', 'agent-orchestrator', '--agent', set.parametric]);
  const api = await startFakeAnthropic({ replies: ['The reply.'] });
  try {
    const env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' };
    const args = ['agents', 'run', set.parametric, '--provider', 'anthropic', '-q', '--param'];
    const r = await runCli(dir, [...args, ...run.params], { env });
    expect(r.stdout).toBe('The reply.\n');
    expect(api.messages()[0].body.messages[0].content[0].text).toBe(run.inputs);
    const bad = await runCli(dir, [...args, ...run.bad], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(run.refusal);
  } finally {
    await api.close();
  }
}

/** Defines the import tests on one set, in the calling describe; `run` as runsWithParams takes it. */
export function importCases(
  set: ImportedAgents,
  run: { params: string[]; inputs: string; bad: string[]; refusal: string },
): void {
  it('copies the agents Switchboard can run, unchanged, and names the file and key that stop the others', async () => {
    await importsRunnable(set);
  });
  it('reads another folder (an agents folder without a project) and only the agents named', async () => {
    await importsNamedFromFolder(set);
  });
  it(`runs imported ${set.parametric} with --param: its parameters are the <inputs> prompt`, async () => {
    await runsWithParams(set, run);
  });
}
