// The pipeline: validation, timeouts through the handler's signal, caller cancellation, output checks,
// error codes, and the observers that feed metrics and events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../src/core/capability.ts';
import type { BusEvent } from '../../src/core/context.ts';
import { SwitchboardError } from '../../src/core/errors.ts';
import { ADMIN, type TestHub, testHub } from '../helpers/hub.ts';

let hub: TestHub;
let aborted = false;

beforeAll(async () => {
  hub = await testHub();
  const r = hub.services.registry;
  r.add(
    defineCapability({
      name: 'p.wait',
      description: 'waits',
      input: z.object({ ms: z.number() }),
      policy: { timeoutMs: 100 },
      handle: ({ ms }, ctx) =>
        new Promise((resolve, reject) => {
          const t = setTimeout(() => resolve({ waited: ms }), ms);
          ctx.signal.addEventListener('abort', () => {
            aborted = true;
            clearTimeout(t);
            reject(ctx.signal.reason);
          });
        }),
    }),
  );
  r.add(
    defineCapability({
      name: 'p.progress',
      description: 'reports progress to stay alive',
      input: z.object({}),
      policy: { timeoutMs: 100, progressResetsTimeout: true },
      handle: async (_i, ctx) => {
        for (let i = 0; i < 4; i++) {
          await new Promise((res) => setTimeout(res, 60));
          await ctx.progress(i + 1, 4);
        }
        return { done: true };
      },
    }),
  );
  r.add(
    defineCapability({
      name: 'p.lies',
      description: 'bad output',
      input: z.object({}),
      output: z.object({ n: z.number() }),
      handle: () => ({ n: 'x' }),
    }),
  );
  r.add(
    defineCapability({
      name: 'p.throws',
      description: 'throws',
      input: z.object({}),
      handle: () => {
        throw new Error('kaput');
      },
    }),
  );
  r.add(
    defineCapability({
      name: 'p.coded',
      description: 'coded',
      input: z.object({}),
      handle: () => {
        throw new SwitchboardError('CONFLICT', 'nope', { why: 1 });
      },
    }),
  );
});
afterAll(() => hub.close());

describe('Pipeline', () => {
  it('aborts a handler through its signal when its timeout passes', async () => {
    const out = await hub.call('p.wait', { ms: 5_000 });
    expect(out).toMatchObject({ ok: false, error: { code: 'TIMEOUT', message: 'p__wait timed out after 100 ms.' } });
    expect(aborted).toBe(true);
  });

  it('restarts the timeout on progress when the capability asks for it', async () => {
    const out = await hub.call('p.progress', {});
    expect(out).toEqual({ ok: true, value: { done: true } });
  });

  it('cancels when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = hub.pipeline.call({
      principal: ADMIN,
      name: 'p.wait',
      input: { ms: 5_000 },
      transport: 'cli',
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    expect(await pending).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
  });

  it('refuses output that breaks the capability output schema', async () => {
    const out = await hub.call('p.lies', {});
    expect(out).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    if (!out.ok) expect(out.error.message).toMatch(/does not match its schema: n:/);
  });

  it('turns unexpected throws into INTERNAL and keeps coded errors', async () => {
    expect(await hub.call('p.throws', {})).toMatchObject({ ok: false, error: { code: 'INTERNAL', message: 'kaput' } });
    expect(await hub.call('p.coded', {})).toEqual({
      ok: false,
      error: { code: 'CONFLICT', message: 'nope', details: { why: 1 } },
    });
  });

  it('names every bad field in INVALID_INPUT', async () => {
    const out = await hub.call('p.wait', { ms: 'soon', extra: 1 });
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.error.code).toBe('INVALID_INPUT');
      expect(out.error.message).toMatch(/ms: .*expected number/);
    }
  });

  it('publishes one event per call and counts it in metrics', async () => {
    const events: BusEvent[] = [];
    const off = hub.services.bus.subscribe((e) => events.push(e));
    await hub.call('p.coded', {});
    off();
    const call = events.find((e) => e.type === 'call');
    expect(call).toMatchObject({ type: 'call', name: 'p.coded', transport: 'cli', error: { code: 'CONFLICT' } });
    const m = hub.services.metrics.snapshot()['p.coded'];
    expect(m.calls).toBeGreaterThanOrEqual(2);
    expect(m.errors).toBe(m.calls);
    expect(m.inFlight).toBe(0);
  });
});
