// Script runs between hubs on one store: a hub whose copy of a run is older than the journal rebuilds it (SQLite
// file or Redis alike), and on Redis whether a stdio run was left by a hub that ended (listed as such, cleaned after
// unfinished_retention_days) is decided by the instance list (a lease works across machines), not by whether a
// process id exists on this machine.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { hubInstanceId } from '../../../src/core/hub-instance.ts';
import { pruneUnfinished } from '../../../src/sources/scripts/left-runs.ts';
import { RedisStore } from '../../../src/store/redis/index.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';
import { dropPrefix, REDIS_URL, testPrefix } from '../../helpers/redis.ts';
import { until } from '../../helpers/until.ts';
import { nl, projectScripts } from './helpers.ts';

const SRC = join(import.meta.dirname, '../../../src/index.ts');

let dir: string;
let prefix: string;
const hubs: TestHub[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'switchboard-instances-'));
  prefix = testPrefix();
  projectScripts(dir, {
    'nl/ask.md': nl('ask'),
    'compiled/ask.mjs': `import { auto, llm } from ${JSON.stringify(SRC)};\nexport default function* () { yield auto('true'); yield llm('q?'); }`,
    'nl/three.md': nl('three'),
    'compiled/three.mjs': `import { auto, llm } from ${JSON.stringify(SRC)};\nexport default function* () { yield auto('echo 1 >> ran.log'); yield llm('one?'); yield auto('echo 2 >> ran.log'); yield llm('two?'); yield auto('echo 3 >> ran.log'); }`,
  });
});
afterEach(async () => {
  for (const h of hubs.splice(0)) await h.close();
  await dropPrefix(REDIS_URL, prefix);
  rmSync(dir, { recursive: true, force: true });
});

const open = async (kind: 'redis' | 'sqlite' = 'redis') => {
  const hub = await testHub({
    cwd: dir,
    ...(kind === 'redis' ? { store: await RedisStore.open({ url: REDIS_URL, prefix }) } : {}),
  });
  hubs.push(hub);
  return hub;
};

/** A run left by the stdio hub `instance` after its first call (what a crash leaves). */
async function leftBy(hub: TestHub, instance: string, id: string) {
  await hub.services.store.scriptRuns.create({ id, clientKey: `stdio:${instance}`, principal: 'stdio', name: 'ask' });
  await hub.services.store.scriptRuns.append(id, [
    { type: 'mcp_tool_input', tool: 'script__start', input: { name: 'ask' } },
  ]);
}

const status = async (hub: TestHub, input: Record<string, unknown> = {}) => {
  const out = await hub.pipeline.call({
    principal: { id: 'stdio', roles: ['*'] },
    name: 'script.status',
    input,
    transport: 'stdio',
  });
  if (!out.ok) throw new Error(out.error.message);
  return { ...(out.value as { state: string; run_id?: string }), text: String(out.raw?.content[0]?.text) };
};

/** Prune as if a day had passed since every run was last touched. */
const pruneLater = (hub: TestHub) =>
  pruneUnfinished(hub.services.store, new Date(Date.now() + 86_400_000).toISOString(), () => false);

it('lists a stdio run whose hub has no lease as left by an ended process, even when a process with its pid lives here', async () => {
  const hub = await open();
  // The pid is this test process (alive), as a hub of another machine can have: only the lease tells.
  await leftBy(hub, `${process.pid}-elsewhere`, 'run-orphan');
  const idle = await status(hub);
  expect(idle.state).toBe('idle');
  expect(idle.text).toContain('`run-orphan`: `ask`');
  expect(idle.text).toContain('left by a Switchboard process that has ended');
  // Continued only when asked for by its run_id; then it is this client's.
  expect(await status(hub, { run_id: 'run-orphan' })).toMatchObject({ state: 'interrupted', run_id: 'run-orphan' });
  expect((await hub.services.store.scriptRuns.get('run-orphan'))?.clientKey).toBe(`stdio:${hub.services.instanceId}`);
});

it('lists a stdio run as held while its hub holds a lease, keeps it from cleaning, and lets both go once the lease ended', async () => {
  const hub = await open();
  const other = `${process.pid}-alive`;
  await hub.services.store.instances.register(hubInstanceId(other), ['switchboard'], 60_000);
  await leftBy(hub, other, 'run-held');
  const held = await status(hub);
  expect(held.state).toBe('idle');
  expect(held.text).toContain('held by another Switchboard process that is still running');
  expect(await pruneLater(hub)).toBe(0);
  // Its lease ends (a clean stop shortens it to 1 ms; a crash lets it run out).
  await hub.services.store.instances.register(hubInstanceId(other), ['switchboard'], 1);
  await until(
    async () => ((await hub.services.store.instances.get(hubInstanceId(other)))?.expiresAt ?? 0) < Date.now(),
    {
      what: 'the 1 ms lease to end',
    },
  );
  expect((await status(hub)).text).toContain('left by a Switchboard process that has ended');
  expect(await pruneLater(hub)).toBe(1);
  expect(await hub.services.store.scriptRuns.get('run-held')).toBeUndefined();
});

for (const kind of ['sqlite', 'redis'] as const) {
  it(`${kind}: a hub holding an older copy of a run rebuilds it from the journal instead of answering from it`, async () => {
    // The same client key on both hubs (as a shared 2025 session id is): the CLI principal.
    const a = await open(kind);
    const b = await open(kind);
    const step = async (hub: TestHub, name: string, input: Record<string, unknown> = {}) => {
      const out = await hub.call(name, input);
      if (!out.ok) throw new Error(out.error.message);
      return out.value as { state: string; answer?: string };
    };
    const ran = () => readFileSync(join(dir, 'ran.log'), 'utf8');
    expect((await step(a, 'script.start', { name: 'three' })).state).toBe('llm');
    expect((await step(b, 'script.continue_compiled_script', { outputs: {} })).state).toBe('llm');
    expect(ran()).toBe('1\n2\n');
    // A still holds the run as it was after the start; continuing there must go on from step two, not redo it.
    expect((await step(a, 'script.continue_compiled_script', { outputs: {} })).state).toBe('finished');
    expect(ran()).toBe('1\n2\n3\n');
    expect((await step(b, 'script.status')).state).toBe('idle');
  });
}
