// Policy in the pipeline: rate limits, breakers, concurrency per principal, timeouts from config, and the
// audit trail — exercised through the real hub, the same path every transport takes.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../src/core/capability.ts';
import type { Principal } from '../../src/core/context.ts';
import { SwitchboardError } from '../../src/core/errors.ts';
import { HEALTH_CACHE_MS } from '../../src/sources/builtin/system/health.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { until } from '../helpers/until.ts';

let hub: TestHub | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await hub?.close();
  hub = undefined;
});

function project(toml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-policy-'));
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(join(dir, '.switchboard/config.toml'), toml);
  return dir;
}

const alice: Principal = { id: 'alice', roles: ['*'], kind: 'token' };
const bob: Principal = { id: 'bob', roles: ['*'], kind: 'token' };

function addFixtures(h: TestHub) {
  let healthy = false;
  h.services.registry.add(
    defineCapability({
      name: 'p.echo',
      description: 'echo',
      input: z.object({ t: z.string() }),
      handle: ({ t }) => ({ t }),
    }),
  );
  h.services.registry.add(
    defineCapability({
      name: 'p.flaky',
      description: 'fails until healed',
      input: z.object({ heal: z.boolean().default(false) }),
      handle: ({ heal }) => {
        if (heal) healthy = true;
        if (!healthy) throw new Error('backend down');
        return { ok: true };
      },
    }),
  );
  h.services.registry.add(
    defineCapability({
      name: 'p.conflict',
      description: 'domain error',
      input: z.object({}),
      handle: () => {
        throw new SwitchboardError('CONFLICT', 'not now');
      },
    }),
  );
  h.services.registry.add(
    defineCapability({
      name: 'p.sleep',
      description: 'sleeps',
      input: z.object({ ms: z.number() }),
      handle: ({ ms }, ctx) =>
        new Promise((resolve, reject) => {
          const t = setTimeout(() => resolve({ slept: ms }), ms);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(t);
            reject(ctx.signal.reason);
          });
        }),
    }),
  );
}

describe('rate limits', () => {
  it('refuses past the default limit with RATE_LIMITED and retryAfterMs, per principal × capability', async () => {
    hub = await testHub({ cwd: project('[policy.rate_limit]\nlimit = 2\nwindow_ms = 60000\n') });
    addFixtures(hub);
    expect((await hub.call('p.echo', { t: 'a' }, alice)).ok).toBe(true);
    expect((await hub.call('p.echo', { t: 'b' }, alice)).ok).toBe(true);
    const third = await hub.call('p.echo', { t: 'c' }, alice);
    expect(third).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED', details: { scope: 'rate' } } });
    if (!third.ok) expect(third.error.details?.retryAfterMs).toBeGreaterThan(20_000);
    expect((await hub.call('p.echo', { t: 'd' }, bob)).ok).toBe(true);
    expect((await hub.call('p.flaky', { heal: true }, alice)).ok).toBe(true);
  });

  it('lets a per-capability override and a per-token override win', async () => {
    hub = await testHub({
      cwd: project(
        '[policy.rate_limit]\nlimit = 100\nwindow_ms = 60000\n' +
          '[policy.capabilities."p.echo".rate_limit]\nlimit = 1\nwindow_ms = 60000\n' +
          '[policy.tokens.bob.rate_limit]\nlimit = 3\nwindow_ms = 60000\n',
      ),
    });
    addFixtures(hub);
    expect((await hub.call('p.echo', { t: 'a' }, alice)).ok).toBe(true);
    expect((await hub.call('p.echo', { t: 'a' }, alice)).ok).toBe(false);
    for (let i = 0; i < 3; i++) expect((await hub.call('p.echo', { t: 'a' }, bob)).ok).toBe(true);
    expect((await hub.call('p.echo', { t: 'a' }, bob)).ok).toBe(false);
  });
});

describe('limits after a configuration reload', () => {
  it('apply the new configuration to the next call of the same principal and capability', async () => {
    const dir = project('[policy.capabilities."p.sleep"]\ntimeout_ms = 50\n');
    hub = await testHub({ cwd: dir });
    addFixtures(hub);
    expect(await hub.call('p.sleep', { ms: 300 }, alice)).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    writeFileSync(join(dir, '.switchboard/config.toml'), '[policy.capabilities."p.sleep"]\ntimeout_ms = 5000\n');
    hub.config.reload();
    expect(await hub.call('p.sleep', { ms: 300 }, alice)).toMatchObject({ ok: true });
    writeFileSync(
      join(dir, '.switchboard/config.toml'),
      '[policy.capabilities."p.sleep"]\ntimeout_ms = 50\n[policy.capabilities."p.echo".rate_limit]\nlimit = 1\nwindow_ms = 60000\n',
    );
    hub.config.reload();
    expect(await hub.call('p.sleep', { ms: 300 }, alice)).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect((await hub.call('p.echo', { t: 'a' }, alice)).ok).toBe(true);
    expect(await hub.call('p.echo', { t: 'b' }, alice)).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED' } });
  });
});

describe('circuit breakers', () => {
  it('open after threshold execution failures, report it in health, then half-open and close on success', async () => {
    // The breakers read Date.now (taken when the hub is made): a frozen clock is moved past reset_ms instead of waited.
    vi.useFakeTimers({ toFake: ['Date'] });
    hub = await testHub({ cwd: project('[policy.breaker]\nthreshold = 3\nreset_ms = 200\n') });
    addFixtures(hub);
    for (let i = 0; i < 3; i++)
      expect(await hub.call('p.flaky', {})).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    const open = await hub.call('p.flaky', { heal: true });
    expect(open).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE', details: { breaker: 'open' } } });
    const health = await hub.value('system.health');
    expect(health.status).toBe('degraded');
    expect(health.services.breakers.detail).toMatch(/p\.flaky open/);
    vi.setSystemTime(Date.now() + 199);
    expect(await hub.call('p.flaky', { heal: true })).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
    vi.setSystemTime(Date.now() + 51);
    expect(await hub.call('p.flaky', { heal: true })).toEqual({ ok: true, value: { ok: true } });
    // system.health is kept for a second (policy.cache): the next answer is a fresh one.
    vi.setSystemTime(Date.now() + HEALTH_CACHE_MS);
    expect((await hub.value('system.health')).status).toBe('healthy');
  });

  it('do not count invalid input or domain errors as failures', async () => {
    hub = await testHub({ cwd: project('[policy.breaker]\nthreshold = 2\nreset_ms = 60000\n') });
    addFixtures(hub);
    for (let i = 0; i < 5; i++) {
      expect((await hub.call('p.echo', { t: 1 })).ok).toBe(false);
      expect((await hub.call('p.conflict', {})).ok).toBe(false);
    }
    expect((await hub.call('p.echo', { t: 'fine' })).ok).toBe(true);
    expect(hub.policy.breakers.view('p.conflict').state).toBe('closed');
  });
});

describe('concurrency and timeouts', () => {
  it('caps the calls one principal may have in flight', async () => {
    hub = await testHub({ cwd: project('[policy]\nmax_concurrent_per_principal = 2\n') });
    addFixtures(hub);
    const slow = [hub.call('p.sleep', { ms: 200 }, alice), hub.call('p.sleep', { ms: 200 }, alice)];
    await until(() => hub?.services.metrics.snapshot()['p.sleep']?.inFlight === 2, {
      what: 'both slow calls admitted',
    });
    expect(await hub.call('p.echo', { t: 'x' }, alice)).toMatchObject({
      ok: false,
      error: { code: 'RATE_LIMITED', details: { scope: 'concurrency' } },
    });
    expect((await hub.call('p.echo', { t: 'x' }, bob)).ok).toBe(true);
    await Promise.all(slow);
    expect((await hub.call('p.echo', { t: 'x' }, alice)).ok).toBe(true);
  });

  it('applies the default timeout from config and a per-capability override', async () => {
    hub = await testHub({
      cwd: project('[policy]\ntimeout_ms = 100\n[policy.capabilities."p.echo"]\ntimeout_ms = 5000\n'),
    });
    addFixtures(hub);
    expect(await hub.call('p.sleep', { ms: 1000 })).toMatchObject({
      ok: false,
      error: { code: 'TIMEOUT', message: 'p__sleep timed out after 100 ms.' },
    });
  });

  it('rejects an invalid policy section naming the key', async () => {
    await expect(testHub({ cwd: project('[policy.rate_limit]\nlimit = 0\nwindow_ms = 10\n') })).rejects.toThrow(
      /policy\.rate_limit\.limit/,
    );
    await expect(testHub({ cwd: project('[policy.breaker]\nthreshhold = 1\n') })).rejects.toThrow(
      /unknown key 'policy\.breaker\.threshhold'/,
    );
  });
});

describe('audit', () => {
  it('writes one record per call with secrets redacted and errors kept', async () => {
    hub = await testHub();
    addFixtures(hub);
    hub.services.registry.add(
      defineCapability({
        name: 'p.login',
        description: 'login',
        input: z.object({ user: z.string(), password: z.string() }),
        handle: () => ({ ok: true }),
      }),
    );
    await hub.call('p.login', { user: 'ada', password: 'hunter2' }, alice);
    await hub.call('p.conflict', {}, bob);
    const records = await until(
      async () => {
        const all = (await hub?.services.store.audit.query({})) ?? [];
        return all.some((r) => r.capability === 'p.conflict') && all.some((r) => r.capability === 'p.login') && all;
      },
      { what: 'both calls in the audit trail' },
    );
    const login = records.find((r) => r.capability === 'p.login')!;
    expect(login).toMatchObject({ principal: 'alice', transport: 'cli', outcome: 'ok', errorCode: null });
    expect(login.input).toContain('ada');
    expect(login.input).not.toContain('hunter2');
    expect(records.find((r) => r.capability === 'p.conflict')).toMatchObject({
      principal: 'bob',
      outcome: 'error',
      errorCode: 'CONFLICT',
      errorMessage: 'not now',
    });
  });

  it('records when a call started and how long it took, as the metrics do', async () => {
    hub = await testHub();
    addFixtures(hub);
    const before = Date.now();
    await hub.call('p.sleep', { ms: 40 }, alice);
    const after = Date.now();
    const record = await until(
      async () => ((await hub?.services.store.audit.query({})) ?? []).find((r) => r.capability === 'p.sleep'),
      { what: 'the call in the audit trail' },
    );
    expect(record.durationMs).toBeGreaterThanOrEqual(35);
    expect(record.durationMs).toBeLessThanOrEqual(after - before + 1);
    // The start, not the end: within the call's window, at least its duration before it ended.
    const at = Date.parse(record.at);
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at + record.durationMs).toBeLessThanOrEqual(after + 1);
    const metrics = hub.services.metrics.snapshot()['p.sleep'];
    expect(metrics.latencyMs.max).toBeGreaterThanOrEqual(35);
    expect(metrics.latencyMs.max).toBe(Math.round(record.durationMs * 1000) / 1000);
  });

  it('can be switched off', async () => {
    hub = await testHub({ cwd: project('[audit]\nenabled = false\n') });
    addFixtures(hub);
    await hub.call('p.echo', { t: 'x' });
    await hub.flush(); // what the call queued is written now: an absence, not a record still on its way
    expect(await hub.services.store.audit.query({})).toEqual([]);
  });
});

describe('audit retention', () => {
  it('prunes records older than retention_days when the hub starts', async () => {
    const dir = project('[audit]\nretention_days = 1\n');
    const first = await testHub({ cwd: dir });
    const old = new Date(Date.now() - 3 * 86_400_000).toISOString();
    await first.services.store.audit.append({
      at: old,
      principal: 'p',
      transport: 'cli',
      capability: 'demo.old',
      input: '{}',
      outcome: 'ok',
      errorCode: null,
      errorMessage: null,
      durationMs: 1,
      requestId: 'old',
    });
    await first.services.store.audit.append({
      at: new Date().toISOString(),
      principal: 'p',
      transport: 'cli',
      capability: 'demo.new',
      input: '{}',
      outcome: 'ok',
      errorCode: null,
      errorMessage: null,
      durationMs: 1,
      requestId: 'new',
    });
    await first.close();
    hub = await testHub({ cwd: dir });
    const left = (await hub.services.store.audit.query({})).map((r) => r.capability);
    expect(left).toContain('demo.new');
    expect(left).not.toContain('demo.old');
  });
});
