// test.circuit (ClaudeBench's, issue 18): a breaker exercised on demand through the real pipeline — it opens after
// five failures, refuses while open (seen in system.health and /metrics), and closes on a success a second later.
// Its input and breaker settings are checked against ClaudeBench's, as recorded below. It fails on purpose, so a
// project offers it only with `[system] test_tools = true` (issue 29): a fresh project's agents never see it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../../src/core/context.ts';
import { HEALTH_CACHE_MS } from '../../../src/sources/builtin/system/health.ts';
import { testCircuit } from '../../../src/sources/builtin/test/circuit.ts';
import { connectStdio } from '../../helpers/cli.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';

// ClaudeBench's test.circuit as facts, from github.com/fblgit/claudebench@393bfb0ef0346041732ed22c2cf5a92d80791787
// (apps/server/src/handlers/test/test.circuit.handler.ts).
const CLAUDEBENCH_TEST_CIRCUIT = {
  /** Its input fields, in its order. */
  fields: ['shouldFail', 'failureMessage', 'delay'],
  /** Its breaker opens after `threshold` failures and tries again (half-open) `resetMs` later. */
  breaker: { threshold: 5, resetMs: 1000 },
  /** A call taking longer than this fails. */
  timeoutMs: 1000,
} as const;
const admin: Principal = { id: 'ops', roles: ['admin'], kind: 'token' };
const dev: Principal = { id: 'dev', roles: ['dev'], kind: 'token' };

let hub: TestHub | undefined;
const dirs: string[] = [];
afterEach(async () => {
  vi.useRealTimers();
  await hub?.close();
  hub = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project whose configuration says `toml`. */
function project(toml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-circuit-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(join(dir, '.switchboard', 'config.toml'), toml);
  return dir;
}

/** A hub of a project that asks for the test tools. */
const circuitHub = () => testHub({ cwd: project('[system]\ntest_tools = true\n') });

describe('[system] test_tools', () => {
  it('leaves test.circuit out of a fresh project, and a live change adds and removes it', async () => {
    hub = await testHub();
    expect(hub.services.registry.get('test.circuit')).toBeUndefined();
    expect(await hub.call('test.circuit', {}, admin)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    await hub.value('system.config', { action: 'patch', patch: { system: { test_tools: true } } });
    expect(await hub.call('test.circuit', {}, admin)).toMatchObject({ ok: true, value: { success: true } });
    await hub.value('system.config', { action: 'patch', patch: { system: { test_tools: false } } });
    expect(hub.services.registry.get('test.circuit')).toBeUndefined();
  });

  it('a fresh project served over stdio lists no test__circuit to the official SDK client; test_tools = true does', async () => {
    const list = async (dir: string) => {
      const { client } = await connectStdio(dir, 'test-tools');
      try {
        return (await client.listTools()).tools.map((t) => t.name);
      } finally {
        await client.close();
      }
    };
    const fresh = await list(project(''));
    expect(fresh).toContain('system__health');
    expect(fresh).not.toContain('test__circuit');
    expect(await list(project('[system]\ntest_tools = true\n'))).toContain('test__circuit');
  });
});

describe('test.circuit', () => {
  it("takes ClaudeBench's input and opens and closes as its breaker does", () => {
    expect(Object.keys(testCircuit.input.shape)).toEqual(CLAUDEBENCH_TEST_CIRCUIT.fields);
    expect(testCircuit.policy?.breaker).toEqual(CLAUDEBENCH_TEST_CIRCUIT.breaker);
    expect(testCircuit.policy?.timeoutMs).toBe(CLAUDEBENCH_TEST_CIRCUIT.timeoutMs);
  });

  it('is for admins only: another role is answered as for an unknown tool', async () => {
    hub = await circuitHub();
    expect(await hub.call('test.circuit', {}, dev)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await hub.call('test.circuit', {}, admin)).toEqual({
      ok: true,
      value: { success: true, message: 'Test handler executed successfully' },
    });
  });

  it('opens after five failures, refuses while open, half-opens after a second and closes on a success', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    hub = await circuitHub();
    for (let i = 0; i < 5; i++)
      expect(await hub.call('test.circuit', { shouldFail: true, failureMessage: `boom ${i}` }, admin)).toMatchObject({
        ok: false,
        error: { code: 'INTERNAL', message: `boom ${i}` },
      });
    expect(await hub.call('test.circuit', {}, admin)).toMatchObject({
      ok: false,
      error: { code: 'UNAVAILABLE', details: { breaker: 'open' } },
    });
    const health = await hub.value('system.health');
    expect(health.services.breakers).toEqual({ status: 'degraded', detail: 'circuit test.circuit open' });
    expect(await hub.metrics.prometheus()).toContain('switchboard_breaker_state{capability="test.circuit"} 2');

    vi.setSystemTime(Date.now() + Math.max(1000, HEALTH_CACHE_MS));
    expect(await hub.call('test.circuit', {}, admin)).toMatchObject({ ok: true, value: { success: true } });
    expect((await hub.value('system.health')).services.breakers.status).toBe('healthy');
    expect(await hub.metrics.prometheus()).toContain('switchboard_breaker_state{capability="test.circuit"} 0');
  });

  it('times out a delay longer than its second, and counts that as a failure', async () => {
    hub = await circuitHub();
    expect(await hub.call('test.circuit', { delay: 1500 }, admin)).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT' },
    });
    expect(hub.policy.breakerViews()['test.circuit']).toMatchObject({ state: 'closed', failures: 1 });
    expect(await hub.call('test.circuit', { delay: -1 }, admin)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', message: expect.stringContaining('delay') },
    });
  });
});
