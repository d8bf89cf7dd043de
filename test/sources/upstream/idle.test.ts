import { describe, expect, it } from 'vitest';
import type { RunningUpstream } from '../../../src/sources/upstream/index.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { alive, commandLine, descendants } from '../../helpers/proc.ts';
import { until } from '../../helpers/until.ts';
import { FIXTURE, fixtureStdio, hubsClosedAfterEach } from './helpers.ts';

const { hubWith } = hubsClosedAfterEach();

const view = (hub: TestHub, name: string) =>
  (hub.sources.get('upstream') as RunningUpstream)
    .manager()
    ?.views()
    .find((v) => v.name === name);

/** The fixture servers this test process runs (node itself, not the bubblewrap processes fencing it). */
function serverPids(): number[] {
  return descendants(process.pid).filter((pid) => commandLine(pid) === `${process.execPath} ${FIXTURE} `);
}

describe('idle_timeout_ms', () => {
  it('stops an unused server, keeps its tools listed, and starts it again for the next call', async () => {
    const hub = await hubWith([fixtureStdio('sleepy', { idle_timeout_ms: 1_500 }), fixtureStdio('awake')], {
      stdio: { idle_timeout_ms: 0 },
    });
    expect(view(hub, 'sleepy')?.status).toBe('connected');
    const before = serverPids();
    expect(before.length).toBe(2);
    await until(() => view(hub, 'sleepy')?.status === 'idle', { timeoutMs: 5_000, what: 'sleepy to go idle' });
    await until(() => serverPids().length === 1, { timeoutMs: 5_000, what: 'the idle server’s process to end' });
    // `awake` has idle_timeout_ms 0 from [stdio]: it never rests.
    expect(view(hub, 'awake')?.status).toBe('connected');
    // Listed all the while, from the catalog it had.
    const names = hub.services.registry.list().map((e) => e.tool.name);
    expect(names).toEqual(expect.arrayContaining(['sleepy__echo', 'sleepy__slow']));
    const out = await hub.call('sleepy__echo', { text: 'woken' });
    expect(out.ok && out.raw?.structuredContent).toEqual({ text: 'woken' });
    expect(view(hub, 'sleepy')).toMatchObject({ status: 'connected', restarts: 0 });
    const after = serverPids();
    expect(after.length).toBe(2);
    expect(after.filter((pid) => !before.includes(pid)).length).toBe(1);
    // The health of a hub with an idle server is healthy: it was stopped on purpose.
    await until(() => view(hub, 'sleepy')?.status === 'idle', { timeoutMs: 5_000, what: 'sleepy to rest again' });
    expect(JSON.stringify(await hub.value('system.health', {}))).toMatch(/1 connected, 1 idle/);
  });

  it('a call in flight keeps the server running past its idle timeout', async () => {
    const hub = await hubWith([fixtureStdio('busy', { idle_timeout_ms: 200 })]);
    const pid = serverPids()[0];
    const out = await hub.call('busy__slow', { seconds: 1 });
    expect(out.ok).toBe(true);
    expect(alive(pid)).toBe(true);
    await until(() => !alive(pid), { timeoutMs: 5_000, what: 'the server to rest once the call ended' });
  });
});
