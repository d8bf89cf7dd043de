// The batching rule shared by the event log and the audit trail: a batch is written BATCH_MS after its first item
// or at once when BATCH_MAX are waiting — and a batch written early leaves no timer behind to cut the next one short.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CallState, Outcome } from '../../src/core/pipeline.ts';
import { AuditWriter } from '../../src/observe/audit.ts';
import { BATCH_MAX, BATCH_MS, BatchQueue } from '../../src/observe/batch.ts';
import { createLogger } from '../../src/observe/logger.ts';
import type { NewAuditRecord, Store } from '../../src/store/contract.ts';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('BatchQueue', () => {
  it('writes a full batch at once and the next one BATCH_MS after its own first item', async () => {
    const written: { size: number; at: number }[] = [];
    const queue = new BatchQueue<number>((batch) => void written.push({ size: batch.length, at: Date.now() }));
    const t0 = Date.now();
    for (let i = 0; i < BATCH_MAX; i++) queue.push(i);
    expect(written).toEqual([{ size: BATCH_MAX, at: t0 }]);

    await vi.advanceTimersByTimeAsync(BATCH_MS / 2);
    for (let i = 0; i < 10; i++) queue.push(i);
    // The full batch's timer would have fired here and written the 10 early.
    await vi.advanceTimersByTimeAsync(BATCH_MS / 2 + 1);
    expect(written).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(BATCH_MS / 2);
    expect(written).toEqual([
      { size: BATCH_MAX, at: t0 },
      { size: 10, at: t0 + BATCH_MS / 2 + BATCH_MS },
    ]);
  });

  it('an explicit flush writes what is queued and leaves no timer to write the next batch early', async () => {
    const written: number[] = [];
    const queue = new BatchQueue<number>((batch) => void written.push(batch.length));
    queue.push(1);
    queue.push(2);
    await queue.flush();
    expect(written).toEqual([2]);
    await vi.advanceTimersByTimeAsync(BATCH_MS - 10);
    queue.push(3);
    await vi.advanceTimersByTimeAsync(20);
    expect(written).toEqual([2]);
    await vi.advanceTimersByTimeAsync(BATCH_MS);
    expect(written).toEqual([2, 1]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('AuditWriter batches', () => {
  /** A store without an off-thread sink: every batch arrives through appendMany, whose sizes are kept. */
  function writer() {
    const batches: NewAuditRecord[][] = [];
    const store = {
      audit: {
        appendMany: async (records: readonly NewAuditRecord[]) => void batches.push([...records]),
        prune: async () => 0,
      },
    } as unknown as Store;
    const audit = new AuditWriter(store, createLogger('silent'), () => ({
      enabled: true,
      retention_days: 0,
      max_input_bytes: 4096,
    }));
    let n = 0;
    const call = () =>
      audit.observe(
        {
          req: { principal: { id: 'p', roles: ['*'], kind: 'stdio' }, transport: 'stdio', input: { n }, name: 'echo' },
          entry: { capability: { name: 'echo' } },
          ctx: { requestId: String(n++) },
          startedAt: performance.now(),
          durationMs: 1,
        } as unknown as CallState,
        { ok: true, value: null } as Outcome,
      );
    return { audit, batches, call };
  }

  it('keeps batches full under load: one written at BATCH_MAX leaves no timer to cut the next short', async () => {
    const { audit, batches, call } = writer();
    // 2.5 batches' worth every 10 ms (a quarter of a million calls per second), for 200 ms.
    for (let tick = 0; tick < 20; tick++) {
      for (let i = 0; i < BATCH_MAX * 2.5; i++) call();
      await vi.advanceTimersByTimeAsync(10);
    }
    await audit.close();
    const sizes = batches.map((b) => b.length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(20 * BATCH_MAX * 2.5);
    // Each tick: two full batches, and half a batch that the next tick completes; only the last is partial.
    expect(sizes.slice(0, -1).every((s) => s === BATCH_MAX)).toBe(true);
    expect(batches.flat().map((r) => r.requestId)).toEqual(
      Array.from({ length: 20 * BATCH_MAX * 2.5 }, (_, i) => String(i)),
    );
  });

  it('writes a partial batch BATCH_MS after its first record', async () => {
    const { audit, batches, call } = writer();
    call();
    call();
    await vi.advanceTimersByTimeAsync(BATCH_MS - 1);
    expect(batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(batches.map((b) => b.length)).toEqual([2]);
    await audit.close();
  });
});
