// test.circuit (ClaudeBench's, issue 18): a breaker exercised on demand through the real pipeline — it opens after
// five failures, refuses while open (seen in system.health and /metrics), and closes on a success a second later.
// Its input and breaker settings are read from ClaudeBench's own handler (vendored).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Principal } from '../../../src/core/context.ts';
import { HEALTH_CACHE_MS } from '../../../src/sources/builtin/system/health.ts';
import { testCircuit } from '../../../src/sources/builtin/test/circuit.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';

const HANDLER = readFileSync(
  new URL('../../fixtures/claudebench/test.circuit.handler.ts.txt', import.meta.url),
  'utf8',
);
const admin: Principal = { id: 'ops', roles: ['admin'], kind: 'token' };
const dev: Principal = { id: 'dev', roles: ['dev'], kind: 'token' };

let hub: TestHub | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await hub?.close();
  hub = undefined;
});

describe('test.circuit', () => {
  it("takes ClaudeBench's input and opens and closes as its breaker does", () => {
    const input = /const testCircuitInput = z\.object\(\{([\s\S]*?)\}\);/.exec(HANDLER)?.[1] ?? '';
    const fields = [...input.matchAll(/^\s*(\w+):/gm)].map((m) => m[1]);
    expect(fields).toEqual(['shouldFail', 'failureMessage', 'delay']);
    expect(Object.keys(testCircuit.input.shape)).toEqual(fields);
    const breaker = /circuitBreaker: \{\s*threshold: (\d+)[^\n]*\n\s*timeout: (\d+)/.exec(HANDLER);
    expect(testCircuit.policy?.breaker).toEqual({ threshold: Number(breaker?.[1]), resetMs: Number(breaker?.[2]) });
    expect(testCircuit.policy?.timeoutMs).toBe(Number(/\btimeout: (\d+),/.exec(HANDLER)?.[1]));
  });

  it('is for admins only: another role is answered as for an unknown tool', async () => {
    hub = await testHub();
    expect(await hub.call('test.circuit', {}, dev)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await hub.call('test.circuit', {}, admin)).toEqual({
      ok: true,
      value: { success: true, message: 'Test handler executed successfully' },
    });
  });

  it('opens after five failures, refuses while open, half-opens after a second and closes on a success', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    hub = await testHub();
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
    hub = await testHub();
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
