// The Store contract suite: every Store implementation (SQLite, Redis, …) must pass it unchanged.
// It uses only the Store interface — no SQL, no keys; leases run on a clock it moves — so it pins behaviour, not storage.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../src/core/context.ts';
import type {
  IdempotencyClaim,
  NewAuditRecord,
  Store,
  Task,
  TaskFilter,
  TaskStatus,
} from '../../src/store/contract.ts';
import type { StoreClock } from '../../src/store/records/clock.ts';

// A few real ms between two writes whose times the store stamps itself (tasks, script runs: not the moved clock)
// must differ; a longer wait on a slow machine only makes them differ more.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The list order every store must produce: priority desc, then creation time, then id. */
function byListOrder(a: Task, b: Task): number {
  return b.priority - a.priority || a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

/** A clock the suite moves: leases end and timestamps differ when it says, not after a real wait (it starts at the real time). */
function movableClock(): { now: StoreClock; advance(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance: (ms) => {
      offset += ms;
    },
  };
}

/**
 * Define the contract suite for one Store implementation. `make` returns a fresh, empty, open store per test, whose
 * instance leases and record times follow `clock.now`; the suite closes it afterwards.
 *
 * @example
 * storeContract('sqlite', async (clock) => SqliteStore.open(join(dir, `${randomUUID()}.db`), clock));
 */
export function storeContract(name: string, make: (clock: { now: StoreClock }) => Promise<Store>): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    let clock: ReturnType<typeof movableClock>;

    beforeEach(async () => {
      clock = movableClock();
      store = await make(clock);
    });
    afterEach(async () => {
      await store.close();
    });

    /** Every page of a listing, following nextCursor until it is null. */
    async function allPages(filter: Omit<TaskFilter, 'cursor'>): Promise<{ pages: Task[][]; tasks: Task[] }> {
      const pages: Task[][] = [];
      let cursor: string | undefined;
      for (let guard = 0; guard < 1000; guard++) {
        const page = await store.tasks.list({ ...filter, cursor });
        pages.push(page.tasks);
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      return { pages, tasks: pages.flat() };
    }

    async function createMany(priorities: number[], extra: { type?: string } = {}): Promise<Task[]> {
      const out: Task[] = [];
      for (const [i, priority] of priorities.entries())
        out.push(await store.tasks.create({ text: `task ${i}`, priority, ...extra }));
      return out;
    }

    describe('tasks', () => {
      it('creates a pending task with every field set', async () => {
        const task = await store.tasks.create({ text: 'Write the README', priority: 70 });
        expect(task).toEqual({
          id: expect.stringMatching(/^t-[0-9a-z]+$/),
          text: 'Write the README',
          priority: 70,
          status: 'pending',
          type: null,
          metadata: null,
          estimatedComplexity: null,
          assessment: null,
          assignedTo: null,
          createdBy: null,
          completedBy: null,
          result: null,
          error: null,
          createdAt: expect.any(String),
          updatedAt: task.createdAt,
          completedAt: null,
          version: 1,
        });
        expect(new Date(task.createdAt).toISOString()).toBe(task.createdAt);
        expect(await store.tasks.get(task.id)).toEqual(task);
      });

      it('round-trips type and nested JSON metadata', async () => {
        const metadata = { files: ['a.ts', 'b.ts'], nested: { n: 1, ok: true, none: null }, text: 'ünïcødé ✓' };
        const task = await store.tasks.create({ text: 'x', priority: 1, type: 'bug', metadata });
        expect(task.type).toBe('bug');
        expect((await store.tasks.get(task.id))?.metadata).toEqual(metadata);
      });

      it('gives every task a distinct id, even when created at once', async () => {
        const tasks = await Promise.all(
          Array.from({ length: 50 }, (_, i) => store.tasks.create({ text: `t${i}`, priority: 50 })),
        );
        expect(new Set(tasks.map((t) => t.id)).size).toBe(50);
      });

      it('answers undefined for an unknown id', async () => {
        expect(await store.tasks.get('t-does-not-exist')).toBeUndefined();
      });

      it('rejects malformed new tasks with INVALID_INPUT and stores nothing', async () => {
        await expect(store.tasks.create({ text: '', priority: 1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        await expect(store.tasks.create({ text: 'x', priority: 1.5 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        await expect(store.tasks.create({ text: 42 as unknown as string, priority: 1 })).rejects.toMatchObject({
          code: 'INVALID_INPUT',
        });
        await expect(
          store.tasks.create({ text: 'x', priority: 1, metadata: [1] as unknown as Record<string, unknown> }),
        ).rejects.toMatchObject({
          code: 'INVALID_INPUT',
        });
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        await expect(store.tasks.create({ text: 'x', priority: 1, metadata: cyclic })).rejects.toMatchObject({
          code: 'INVALID_INPUT',
        });
        expect((await store.tasks.list()).tasks).toEqual([]);
      });
    });

    describe('idempotency keys', () => {
      const claim = (over: Partial<IdempotencyClaim> = {}): IdempotencyClaim => ({
        principal: 'alice',
        capability: 'task.create',
        key: 'k-1',
        fingerprint: 'a'.repeat(64),
        ttlMs: 60_000,
        ...over,
      });

      it('creates once per key: a retry answers the first task and creates nothing', async () => {
        const first = await store.tasks.createOnce({ text: 'Deploy', priority: 5 }, claim());
        expect(first).toEqual({ value: expect.objectContaining({ text: 'Deploy', version: 1 }), replayed: false });
        const again = await store.tasks.createOnce({ text: 'Deploy', priority: 5 }, claim());
        expect(again).toEqual({ value: first.value, replayed: true });
        // The first result, as it answered, even after the task moved on.
        await store.tasks.update(first.value.id, { status: 'assigned', assignedTo: 'i-1' });
        expect((await store.tasks.createOnce({ text: 'Deploy', priority: 5 }, claim())).value).toEqual(first.value);
        expect((await store.tasks.list()).tasks.map((t) => t.id)).toEqual([first.value.id]);
      });

      it('keeps keys apart per principal and per capability', async () => {
        const a = await store.tasks.createOnce({ text: 'x', priority: 1 }, claim());
        const b = await store.tasks.createOnce({ text: 'x', priority: 1 }, claim({ principal: 'bob' }));
        const c = await store.tasks.createOnce({ text: 'x', priority: 1 }, claim({ capability: 'other.create' }));
        expect(new Set([a.value.id, b.value.id, c.value.id]).size).toBe(3);
        expect([a.replayed, b.replayed, c.replayed]).toEqual([false, false, false]);
        expect((await store.tasks.list()).tasks).toHaveLength(3);
      });

      it('refuses a key reused for a different request with CONFLICT, and creates nothing', async () => {
        await store.tasks.createOnce({ text: 'one', priority: 1 }, claim());
        const err = await store.tasks
          .createOnce({ text: 'two', priority: 1 }, claim({ fingerprint: 'b'.repeat(64) }))
          .catch((e) => e);
        expect(err).toMatchObject({
          code: 'CONFLICT',
          message: expect.stringMatching(
            /^Idempotency key 'k-1' was already used for a different task\.create request .*send a new key for a new request/,
          ),
          details: { idempotencyKey: 'k-1' },
        });
        expect((await store.tasks.list()).tasks.map((t) => t.text)).toEqual(['one']);
      });

      it('forgets a key after its retention: the same key creates again', async () => {
        const first = await store.tasks.createOnce({ text: 'x', priority: 1 }, claim({ ttlMs: 1 }));
        // Bounded: both stores expire by their own clock (Redis: PX), a few ms after the 1 ms retention.
        let next = await store.tasks.createOnce({ text: 'x', priority: 1 }, claim({ ttlMs: 1 }));
        for (let i = 0; i < 100 && next.replayed; i++) {
          await sleep(5);
          next = await store.tasks.createOnce({ text: 'x', priority: 1 }, claim({ ttlMs: 1 }));
        }
        expect(next.replayed).toBe(false);
        expect(next.value.id).not.toBe(first.value.id);
      });

      it('refuses a malformed claim with INVALID_INPUT naming the field, and writes nothing', async () => {
        for (const [bad, field] of [
          [claim({ key: '' }), /^idempotency claim key: expected 1-255 visible ASCII/],
          [claim({ key: 'has space' }), /^idempotency claim key: /],
          [claim({ fingerprint: 'nope' }), /^idempotency claim fingerprint: expected the lowercase hex SHA-256/],
          [claim({ ttlMs: 0 }), /^idempotency claim ttlMs: /],
          [{ ...claim(), extra: 1 }, /^idempotency claim: /],
        ] as const) {
          await expect(
            store.tasks.createOnce({ text: 'x', priority: 1 }, bad as IdempotencyClaim),
          ).rejects.toMatchObject({
            code: 'INVALID_INPUT',
            message: expect.stringMatching(field),
          });
        }
        expect((await store.tasks.list()).tasks).toEqual([]);
      });
    });

    describe('task listing', () => {
      it('orders by priority (high first), then creation, then id', async () => {
        const created = await createMany([10, 90, 50, 90, 10, 50, 100, 0]);
        const { tasks } = await store.tasks.list();
        expect(tasks.map((t) => t.id)).toEqual([...created].sort(byListOrder).map((t) => t.id));
        expect(tasks.map((t) => t.priority)).toEqual([100, 90, 90, 50, 50, 10, 10, 0]);
        // Equal priorities keep creation order.
        expect(tasks[1].id).toBe(created[1].id);
        expect(tasks[2].id).toBe(created[3].id);
      });

      it('returns an empty page without a cursor on an empty board', async () => {
        expect(await store.tasks.list()).toEqual({ tasks: [], nextCursor: null });
      });

      it('pages through every task exactly once, in order, including runs of equal priority', async () => {
        const priorities = Array.from({ length: 37 }, (_, i) => [50, 50, 50, 20, 80][i % 5]);
        const created = await createMany(priorities);
        for (const limit of [1, 3, 5, 7, 36, 37, 38]) {
          const { pages, tasks } = await allPages({ limit });
          expect(tasks.map((t) => t.id)).toEqual([...created].sort(byListOrder).map((t) => t.id));
          expect(pages.every((p) => p.length <= limit)).toBe(true);
          // No empty trailing page: the last page is the one that said "no more".
          expect(pages.at(-1)?.length).toBeGreaterThan(0);
        }
      });

      it('gives no cursor when the page is exactly the last one', async () => {
        await createMany([1, 2, 3, 4]);
        const first = await store.tasks.list({ limit: 2 });
        expect(first.nextCursor).toEqual(expect.any(String));
        const second = await store.tasks.list({ limit: 2, cursor: first.nextCursor! });
        expect(second.tasks).toHaveLength(2);
        expect(second.nextCursor).toBeNull();
      });

      it('neither repeats nor skips earlier tasks when tasks are created between pages', async () => {
        const created = await createMany([50, 50, 50, 50, 50, 50]);
        const first = await store.tasks.list({ limit: 3 });
        // One sorts before the cursor (already passed), one after it (still to come).
        const before = await store.tasks.create({ text: 'urgent', priority: 99 });
        const after = await store.tasks.create({ text: 'later', priority: 1 });
        const rest = await allPagesFrom(first.nextCursor!, 3);
        const seen = [...first.tasks, ...rest].map((t) => t.id);
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen).toEqual([...created.map((t) => t.id), after.id]);
        expect(seen).not.toContain(before.id);
      });

      async function allPagesFrom(cursor: string, limit: number): Promise<Task[]> {
        const out: Task[] = [];
        let next: string | null = cursor;
        while (next) {
          const page = await store.tasks.list({ limit, cursor: next });
          out.push(...page.tasks);
          next = page.nextCursor;
        }
        return out;
      }

      it('defaults to 50 per page and accepts up to 500', async () => {
        await createMany(Array.from({ length: 55 }, () => 50));
        const page = await store.tasks.list();
        expect(page.tasks).toHaveLength(50);
        expect(page.nextCursor).not.toBeNull();
        expect((await store.tasks.list({ limit: 500 })).tasks).toHaveLength(55);
      });

      it('rejects a limit outside 1..500 with INVALID_INPUT', async () => {
        for (const limit of [0, -1, 501, 2.5]) {
          await expect(store.tasks.list({ limit })).rejects.toMatchObject({
            code: 'INVALID_INPUT',
            message: expect.stringContaining('limit'),
          });
        }
      });

      it('rejects a cursor it did not issue with INVALID_INPUT naming the cursor', async () => {
        await createMany([1, 2]);
        for (const cursor of ['garbage!', 'not-a-cursor', '']) {
          await expect(store.tasks.list({ cursor })).rejects.toMatchObject({
            code: 'INVALID_INPUT',
            message: expect.stringContaining('cursor'),
          });
        }
      });

      it('filters by one or several statuses', async () => {
        const [a, b, c] = await createMany([1, 2, 3]);
        await store.tasks.update(b.id, { status: 'assigned', assignedTo: 'w1' });
        await store.tasks.update(c.id, { status: 'completed' });
        const ids = async (status: TaskStatus[]) => (await store.tasks.list({ status })).tasks.map((t) => t.id);
        expect(await ids(['pending'])).toEqual([a.id]);
        expect(await ids(['completed', 'pending'])).toEqual([c.id, a.id]);
        expect(await ids(['failed'])).toEqual([]);
        // An empty list is no status filter at all.
        expect(await ids([])).toEqual([c.id, b.id, a.id]);
      });

      it('filters by assignee and type, combined with status and pagination', async () => {
        const bugs = await createMany([5, 5, 5, 5, 5], { type: 'bug' });
        const docs = await createMany([5, 5], { type: 'docs' });
        for (const t of [bugs[0], bugs[2], bugs[4], docs[0]])
          await store.tasks.update(t.id, { status: 'assigned', assignedTo: 'w1' });
        await store.tasks.update(bugs[1].id, { status: 'assigned', assignedTo: 'w2' });

        const ids = (tasks: Task[]) => tasks.map((t) => t.id);
        expect(ids((await allPages({ type: 'docs', limit: 1 })).tasks)).toEqual(ids(docs));
        expect(ids((await allPages({ assignedTo: 'w1', limit: 2 })).tasks)).toEqual(
          ids([bugs[0], bugs[2], bugs[4], docs[0]]),
        );
        expect(ids((await allPages({ assignedTo: 'w1', type: 'bug', status: ['assigned'], limit: 2 })).tasks)).toEqual(
          ids([bugs[0], bugs[2], bugs[4]]),
        );
        expect(ids((await allPages({ type: 'bug', status: ['pending'], limit: 1 })).tasks)).toEqual(ids([bugs[3]]));
        expect((await store.tasks.list({ assignedTo: 'nobody' })).tasks).toEqual([]);
      });

      it('rejects an unknown status filter with INVALID_INPUT', async () => {
        await expect(store.tasks.list({ status: ['done' as TaskStatus] })).rejects.toMatchObject({
          code: 'INVALID_INPUT',
        });
      });
    });

    describe('task updates', () => {
      it('applies a patch, keeps other fields and bumps version and updatedAt', async () => {
        const task = await store.tasks.create({ text: 'old', priority: 10, type: 'bug', metadata: { a: 1 } });
        clock.advance(5);
        const res = await store.tasks.update(task.id, { text: 'new', priority: 20 });
        expect(res.ok).toBe(true);
        if (!res.ok) return;
        expect(res.task).toMatchObject({
          id: task.id,
          text: 'new',
          priority: 20,
          type: 'bug',
          metadata: { a: 1 },
          status: 'pending',
          version: 2,
        });
        expect(res.task.createdAt).toBe(task.createdAt);
        expect(res.task.updatedAt > task.updatedAt).toBe(true);
        expect(await store.tasks.get(task.id)).toEqual(res.task);
      });

      it('clears nullable fields set to null and ignores undefined ones', async () => {
        const task = await store.tasks.create({ text: 'x', priority: 1, type: 'bug', metadata: { a: 1 } });
        const res = await store.tasks.update(task.id, { type: null, metadata: null, text: undefined });
        expect(res).toMatchObject({ ok: true, task: { type: null, metadata: null, text: 'x' } });
      });

      it('stores results and errors as given', async () => {
        const task = await store.tasks.create({ text: 'x', priority: 1 });
        const result = { summary: 'done', files: ['a.ts'], count: 3 };
        const done = await store.tasks.update(task.id, {
          status: 'completed',
          result,
          completedAt: '2030-01-01T00:00:00.000Z',
        });
        expect(done).toMatchObject({
          ok: true,
          task: { status: 'completed', result, completedAt: '2030-01-01T00:00:00.000Z' },
        });
        const other = await store.tasks.create({ text: 'y', priority: 1 });
        await store.tasks.update(other.id, { status: 'failed', error: 'no access', result: 'scalar result' });
        expect(await store.tasks.get(other.id)).toMatchObject({
          status: 'failed',
          error: 'no access',
          result: 'scalar result',
        });
      });

      it('updates only from an allowed status (compare-and-set)', async () => {
        const task = await store.tasks.create({ text: 'x', priority: 1 });
        const ok = await store.tasks.update(task.id, { status: 'assigned', assignedTo: 'w1' }, { from: ['pending'] });
        expect(ok).toMatchObject({ ok: true, task: { status: 'assigned', assignedTo: 'w1', version: 2 } });
      });

      it('answers conflict with the current, unchanged task when the status is not allowed', async () => {
        const task = await store.tasks.create({ text: 'x', priority: 1 });
        await store.tasks.update(task.id, { status: 'completed' });
        const current = await store.tasks.get(task.id);
        const res = await store.tasks.update(task.id, { status: 'assigned', assignedTo: 'w1' }, { from: ['pending'] });
        expect(res).toEqual({ ok: false, reason: 'conflict', task: current });
        expect(await store.tasks.get(task.id)).toEqual(current);
      });

      it('lets exactly one of two racing compare-and-set updates win', async () => {
        const task = await store.tasks.create({ text: 'x', priority: 1 });
        const results = await Promise.all(
          ['w1', 'w2', 'w3'].map((w) =>
            store.tasks.update(task.id, { status: 'assigned', assignedTo: w }, { from: ['pending'] }),
          ),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        expect(results.filter((r) => !r.ok && r.reason === 'conflict')).toHaveLength(2);
        expect((await store.tasks.get(task.id))?.version).toBe(2);
      });

      it('answers not_found for an unknown id', async () => {
        expect(await store.tasks.update('t-nope', { text: 'x' })).toEqual({ ok: false, reason: 'not_found' });
        expect(await store.tasks.update('t-nope', { text: 'x' }, { from: ['pending'] })).toEqual({
          ok: false,
          reason: 'not_found',
        });
      });

      it('rejects a malformed patch with INVALID_INPUT and leaves the task untouched', async () => {
        const task = await store.tasks.create({ text: 'x', priority: 1, metadata: { keep: true } });
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        const bad: unknown[] = [
          { status: 'done' },
          { priority: 'high' },
          { priority: 1.5 },
          { text: '' },
          { text: 'fine', metadata: 'not an object' },
          { text: 'fine', result: cyclic },
          { text: 'fine', result: 10n },
          { id: 'other' },
          { version: 99 },
          { toString: 'x' },
        ];
        for (const patch of bad) {
          await expect(store.tasks.update(task.id, patch as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        }
        expect(await store.tasks.get(task.id)).toEqual(task);
      });
    });

    describe('task outcomes', () => {
      const assessment = {
        outcome: 'partial' as const,
        confidence: 0.75,
        filesModified: ['src/a.ts', 'src/b.ts'],
        testsAdded: 3,
        notes: 'edge cases left',
      };

      it('keeps estimated complexity and the self-assessment', async () => {
        const task = await store.tasks.create({ text: 'x', priority: 1, type: 'fix', estimatedComplexity: 'complex' });
        expect(task.estimatedComplexity).toBe('complex');
        const done = await store.tasks.update(task.id, {
          status: 'completed',
          assessment,
          completedAt: new Date().toISOString(),
        });
        expect(done.ok && done.task.assessment).toEqual(assessment);
        expect((await store.tasks.get(task.id))?.assessment).toEqual(assessment);
      });

      it('refuses a malformed complexity or assessment, naming the field, and changes nothing', async () => {
        await expect(
          store.tasks.create({ text: 'x', priority: 1, estimatedComplexity: 'huge' as never }),
        ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/estimatedComplexity/) });
        const task = await store.tasks.create({ text: 'x', priority: 1 });
        for (const [bad, field] of [
          [{ ...assessment, outcome: 'yes' }, 'assessment.outcome'],
          [{ ...assessment, confidence: 1.5 }, 'assessment.confidence'],
          [{ ...assessment, filesModified: 'a.ts' }, 'assessment.filesModified'],
          [{ ...assessment, testsAdded: -1 }, 'assessment.testsAdded'],
        ] as const) {
          await expect(store.tasks.update(task.id, { assessment: bad as never })).rejects.toMatchObject({
            code: 'INVALID_INPUT',
            message: expect.stringContaining(field),
          });
        }
        expect(await store.tasks.get(task.id)).toEqual(task);
      });

      it('lists finished tasks since a time, newest first, by type', async () => {
        const since = new Date(Date.now() - 1000).toISOString();
        const a = await store.tasks.create({ text: 'a', priority: 1, type: 'fix' });
        const b = await store.tasks.create({ text: 'b', priority: 1, type: 'research' });
        const open = await store.tasks.create({ text: 'open', priority: 1, type: 'fix' });
        await store.tasks.update(a.id, { status: 'completed', completedAt: new Date(Date.now() - 10).toISOString() });
        await store.tasks.update(b.id, { status: 'failed', error: 'no', completedAt: new Date().toISOString() });
        const all = await store.tasks.finished({ since });
        expect(all.map((t) => t.id)).toEqual([b.id, a.id]);
        expect(all.map((t) => t.id)).not.toContain(open.id);
        expect((await store.tasks.finished({ since, type: 'fix' })).map((t) => t.id)).toEqual([a.id]);
        expect(await store.tasks.finished({ since: new Date(Date.now() + 60_000).toISOString() })).toEqual([]);
        await expect(store.tasks.finished({ since: 'yesterday' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      });
    });

    describe('hook runs', () => {
      const run = (at: string, ok = true) => ({
        plugin: 'jutsu-typescript',
        hook: 'lint',
        directory: 'packages/a',
        ok,
        cached: false,
        exitCode: ok ? 0 : 1,
        durationMs: 12.5,
        at,
      });

      it('records runs with increasing seq and reads them by time, oldest first', async () => {
        const first = await store.hooks.record(run('2030-01-01T00:00:01.000Z', false));
        const second = await store.hooks.record({ ...run('2030-01-01T00:00:02.000Z'), cached: true, exitCode: null });
        expect(second.seq).toBeGreaterThan(first.seq);
        expect(first).toEqual({ seq: first.seq, ...run('2030-01-01T00:00:01.000Z', false) });
        expect(await store.hooks.runs({ since: '2030-01-01T00:00:00.000Z' })).toEqual([first, second]);
        expect(
          await store.hooks.runs({ since: '2030-01-01T00:00:00.000Z', until: '2030-01-01T00:00:02.000Z' }),
        ).toEqual([first]);
        expect(await store.hooks.runs({ since: '2030-01-01T00:00:00.000Z', limit: 1 })).toEqual([first]);
        expect(await store.hooks.prune('2030-01-01T00:00:02.000Z')).toBe(1);
        expect(await store.hooks.runs({ since: '2030-01-01T00:00:00.000Z' })).toEqual([second]);
      });

      it('refuses malformed runs naming the field', async () => {
        await expect(
          store.hooks.record({ ...run('2030-01-01T00:00:01.000Z'), ok: 'yes' as never }),
        ).rejects.toMatchObject({
          code: 'INVALID_INPUT',
          message: expect.stringMatching(/^ok/),
        });
        await expect(store.hooks.record({ ...run('not a time') })).rejects.toMatchObject({
          code: 'INVALID_INPUT',
          message: expect.stringMatching(/^at/),
        });
        await expect(store.hooks.record({ ...run('2030-01-01T00:00:01.000Z'), durationMs: -1 })).rejects.toMatchObject({
          code: 'INVALID_INPUT',
        });
        expect(await store.hooks.runs({ since: '2000-01-01T00:00:00.000Z' })).toEqual([]);
      });

      it('stores, replaces and forgets fingerprints', async () => {
        expect(await store.hooks.fingerprint('p\u0000h\u0000.')).toBeUndefined();
        await store.hooks.setFingerprint('p\u0000h\u0000.', 'sha256:1');
        await store.hooks.setFingerprint('p\u0000h\u0000.', 'sha256:2');
        expect(await store.hooks.fingerprint('p\u0000h\u0000.')).toBe('sha256:2');
        await store.hooks.setFingerprint('p\u0000h\u0000.', null);
        expect(await store.hooks.fingerprint('p\u0000h\u0000.')).toBeUndefined();
      });
    });

    describe('releasing an instance', () => {
      it('puts its assigned and in-progress tasks back to pending and leaves the rest alone', async () => {
        const [a, b, c, d, e] = await createMany([1, 2, 3, 4, 5]);
        await store.tasks.update(a.id, { status: 'assigned', assignedTo: 'w1' });
        await store.tasks.update(b.id, { status: 'in_progress', assignedTo: 'w1' });
        await store.tasks.update(c.id, { status: 'completed', assignedTo: 'w1' });
        await store.tasks.update(d.id, { status: 'assigned', assignedTo: 'w2' });

        const released = await store.tasks.releaseInstance('w1');
        expect([...released].sort()).toEqual([a.id, b.id].sort());
        for (const id of [a.id, b.id]) {
          expect(await store.tasks.get(id)).toMatchObject({ status: 'pending', assignedTo: null, version: 3 });
        }
        // Finished work keeps its assignee for history; other instances' work is untouched.
        expect(await store.tasks.get(c.id)).toMatchObject({ status: 'completed', assignedTo: 'w1', version: 2 });
        expect(await store.tasks.get(d.id)).toMatchObject({ status: 'assigned', assignedTo: 'w2', version: 2 });
        expect(await store.tasks.get(e.id)).toMatchObject({ status: 'pending', version: 1 });
        expect(await store.tasks.releaseInstance('w1')).toEqual([]);
        expect(await store.tasks.releaseInstance('unknown')).toEqual([]);
      });
    });

    describe('instances', () => {
      it('registers an instance with a lease of ttlMs', async () => {
        const before = clock.now();
        const inst = await store.instances.register('w1', ['coder'], 60_000);
        expect(inst).toEqual({
          id: 'w1',
          roles: ['coder'],
          registeredAt: expect.any(String),
          lastSeenAt: inst.registeredAt,
          expiresAt: expect.any(Number),
        });
        expect(inst.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
        expect(inst.expiresAt).toBeLessThanOrEqual(clock.now() + 60_000);
        expect(await store.instances.get('w1')).toEqual(inst);
      });

      it('registering again refreshes the lease, replaces roles and keeps registeredAt', async () => {
        const first = await store.instances.register('w1', ['coder'], 1_000);
        clock.advance(5);
        const again = await store.instances.register('w1', ['reviewer', 'admin'], 60_000);
        expect(again.roles).toEqual(['reviewer', 'admin']);
        expect(again.registeredAt).toBe(first.registeredAt);
        expect(again.lastSeenAt > first.lastSeenAt).toBe(true);
        expect(again.expiresAt).toBeGreaterThan(first.expiresAt);
        expect(await store.instances.list()).toHaveLength(1);
      });

      it('heartbeat extends a live lease', async () => {
        const inst = await store.instances.register('w1', [], 1_000);
        clock.advance(5);
        const beat = await store.instances.heartbeat('w1', 60_000);
        expect(beat).toMatchObject({ id: 'w1', registeredAt: inst.registeredAt });
        expect(beat!.expiresAt).toBeGreaterThan(inst.expiresAt);
        expect(beat!.lastSeenAt > inst.lastSeenAt).toBe(true);
        expect(await store.instances.get('w1')).toEqual(beat);
      });

      it('heartbeat answers undefined for an unknown instance and does not create it', async () => {
        expect(await store.instances.heartbeat('ghost', 60_000)).toBeUndefined();
        expect(await store.instances.get('ghost')).toBeUndefined();
      });

      it('heartbeat after the lease ended answers undefined, even before expire() ran', async () => {
        await store.instances.register('w1', [], 1);
        clock.advance(20);
        expect(await store.instances.heartbeat('w1', 60_000)).toBeUndefined();
        // The stale record is still visible to get() until expire() removes it; callers compare expiresAt.
        const stale = await store.instances.get('w1');
        expect(stale && stale.expiresAt < clock.now()).toBe(true);
      });

      it('a new registration after the lease ended starts a new registeredAt', async () => {
        const first = await store.instances.register('w1', [], 1);
        clock.advance(20);
        const again = await store.instances.register('w1', [], 60_000);
        expect(again.registeredAt > first.registeredAt).toBe(true);
      });

      it('expire(now) removes exactly the instances whose lease ended before now', async () => {
        const a = await store.instances.register('a', [], 1_000);
        const b = await store.instances.register('b', [], 60_000);
        await store.instances.register('c', [], 120_000);
        // Boundary: a lease ending exactly at `now` has not ended *before* now.
        expect(await store.instances.expire(a.expiresAt)).toEqual([]);
        expect([...(await store.instances.expire(b.expiresAt + 1))].sort()).toEqual(['a', 'b']);
        expect(await store.instances.get('a')).toBeUndefined();
        expect((await store.instances.list()).map((i) => i.id)).toEqual(['c']);
        expect(await store.instances.expire(b.expiresAt + 1)).toEqual([]);
      });

      it('lists every instance', async () => {
        await store.instances.register('b', ['x'], 60_000);
        await store.instances.register('a', [], 60_000);
        expect((await store.instances.list()).map((i) => i.id).sort()).toEqual(['a', 'b']);
      });
    });

    describe('event log', () => {
      const event = (n: number): HubEvent => ({
        type: 'test.event',
        n,
        at: new Date(1_700_000_000_000 + n).toISOString(),
      });

      it('returns the most recent events oldest first with increasing seq', async () => {
        for (let n = 1; n <= 10; n++) await store.events.append(event(n));
        const recent = await store.events.recent(4);
        expect(recent.map((e) => (e.event as HubEvent).n)).toEqual([7, 8, 9, 10]);
        const seqs = recent.map((e) => e.seq);
        expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
        expect(new Set(seqs).size).toBe(4);
        expect(recent[0].event).toEqual(event(7));
        expect((await store.events.recent(100)).map((e) => (e.event as HubEvent).n)).toEqual([
          1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
        ]);
        expect(await store.events.recent(0)).toEqual([]);
      });

      it('round-trips call events with nested input and output', async () => {
        const call = {
          type: 'call' as const,
          name: 'task.create',
          input: { text: 'x', nested: [1, { a: null }] },
          output: { id: 't-1' },
          principal: 'p',
          transport: 'cli' as const,
          requestId: 'r1',
          durationMs: 1.5,
          at: new Date().toISOString(),
        };
        await store.events.append(call);
        expect((await store.events.recent(1))[0].event).toEqual(call);
      });

      it('appendMany adds events in order, and a bad one adds none', async () => {
        await store.events.appendMany([event(1), event(2), event(3)]);
        expect((await store.events.recent(10)).map((e) => (e.event as HubEvent).n)).toEqual([1, 2, 3]);
        await expect(store.events.appendMany([event(4), { nope: true } as unknown as HubEvent])).rejects.toThrow(
          /type/,
        );
        expect((await store.events.recent(10)).map((e) => (e.event as HubEvent).n)).toEqual([1, 2, 3]);
        await store.events.appendMany([]);
        expect(await store.events.recent(10)).toHaveLength(3);
      });

      it('trim keeps only the newest events and never reuses a seq', async () => {
        for (let n = 1; n <= 10; n++) await store.events.append(event(n));
        const lastSeq = (await store.events.recent(1))[0].seq;
        await store.events.trim(3);
        const kept = await store.events.recent(100);
        expect(kept.map((e) => (e.event as HubEvent).n)).toEqual([8, 9, 10]);
        await store.events.trim(5);
        expect(await store.events.recent(100)).toEqual(kept);
        await store.events.trim(0);
        expect(await store.events.recent(100)).toEqual([]);
        await store.events.append(event(11));
        expect((await store.events.recent(1))[0].seq).toBeGreaterThan(lastSeq);
      });
    });

    describe('documents', () => {
      it('puts, gets, replaces, lists by namespace and deletes', async () => {
        expect(await store.documents.get('upstream.catalog', 'fs')).toBeUndefined();
        const first = await store.documents.put('upstream.catalog', 'fs', { tools: [{ name: 'read' }], n: 1 });
        expect(first.value).toEqual({ tools: [{ name: 'read' }], n: 1 });
        expect(Date.parse(first.updatedAt)).not.toBeNaN();
        await store.documents.put('upstream.catalog', 'fs', { tools: [], n: 2 });
        await store.documents.put('upstream.catalog', 'api', 'text');
        await store.documents.put('other', 'fs', 3);
        expect((await store.documents.get('upstream.catalog', 'fs'))?.value).toEqual({ tools: [], n: 2 });
        const listed = await store.documents.list('upstream.catalog');
        expect(listed.map((d) => [d.key, d.value])).toEqual([
          ['api', 'text'],
          ['fs', { tools: [], n: 2 }],
        ]);
        expect(await store.documents.delete('upstream.catalog', 'fs')).toBe(true);
        expect(await store.documents.delete('upstream.catalog', 'fs')).toBe(false);
        expect((await store.documents.list('upstream.catalog')).map((d) => d.key)).toEqual(['api']);
        expect((await store.documents.get('other', 'fs'))?.value).toBe(3);
      });

      it('refuses a value JSON cannot hold and keeps what was there', async () => {
        await store.documents.put('ns', 'k', { ok: true });
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        await expect(store.documents.put('ns', 'k', cyclic)).rejects.toThrow(/not serialisable as JSON/);
        await expect(store.documents.put('ns', 'k', undefined)).rejects.toThrow(/expected a JSON value/);
        await expect(store.documents.put('ns', '', 1)).rejects.toThrow(/key: expected a string of 1-200/);
        await expect(store.documents.put('x'.repeat(201), 'k', 1)).rejects.toThrow(/namespace/);
        expect((await store.documents.get('ns', 'k'))?.value).toEqual({ ok: true });
      });
    });

    describe('oauth logins', () => {
      const login = (server: string, principal: string, extra: object = {}) => ({
        server,
        principal,
        sealed: `v1.${server}-${principal}`,
        state: 'active' as const,
        scope: 'read',
        expiresAt: '2030-01-01T00:00:00.000Z',
        ...extra,
      });

      it('puts, gets, replaces, lists in order and deletes one or all of a server', async () => {
        expect(await store.oauthLogins.get('notes', 'local')).toBeUndefined();
        const first = await store.oauthLogins.put(login('notes', 'local'));
        expect(first).toMatchObject({ state: 'active', reason: null, requiredScope: null, scope: 'read' });
        expect(Date.parse(first.updatedAt)).not.toBeNaN();
        await store.oauthLogins.put(login('notes', 'bob'));
        await store.oauthLogins.put(login('alpha', 'local'));
        await store.oauthLogins.put(
          login('notes', 'local', { state: 'login_required', reason: 'refresh failed', requiredScope: 'read write' }),
        );
        expect(await store.oauthLogins.get('notes', 'local')).toMatchObject({
          state: 'login_required',
          reason: 'refresh failed',
          requiredScope: 'read write',
        });
        expect((await store.oauthLogins.list()).map((l) => `${l.server}/${l.principal}`)).toEqual([
          'alpha/local',
          'notes/bob',
          'notes/local',
        ]);
        expect((await store.oauthLogins.list('notes')).map((l) => l.principal)).toEqual(['bob', 'local']);
        expect(await store.oauthLogins.delete('notes', 'bob')).toBe(1);
        expect(await store.oauthLogins.delete('notes', 'bob')).toBe(0);
        await store.oauthLogins.put(login('notes', 'carol'));
        expect(await store.oauthLogins.delete('notes')).toBe(2);
        expect((await store.oauthLogins.list()).map((l) => l.server)).toEqual(['alpha']);
      });

      it('refuses a record that is not sealed or names no server, naming the field', async () => {
        await expect(
          store.oauthLogins.put(login('notes', 'local', { sealed: '{"access_token":"x"}' })),
        ).rejects.toThrow(/sealed must be sealed text/);
        await expect(store.oauthLogins.put(login('no spaces', 'local'))).rejects.toThrow(/server must be 1-64/);
        await expect(store.oauthLogins.put(login('notes', 'local', { state: 'maybe' }))).rejects.toThrow(
          /state must be one of active, login_required/,
        );
        expect(await store.oauthLogins.list()).toEqual([]);
      });
    });

    describe('tokens', () => {
      /** A distinct, well-formed lowercase hex SHA-256 per seed. */
      const hash = (seed: number | string) =>
        String(seed)
          .padStart(64, '0')
          .replace(/[^0-9a-f]/g, 'a');
      const newToken = (name: string, seed: number | string = name.length, extra: object = {}) => ({
        name,
        hash: hash(seed),
        roles: ['agent'],
        expiresAt: null,
        ...extra,
      });

      it('changes its version when a token is created or revoked', async () => {
        const v0 = await store.tokens.version();
        await store.tokens.create(newToken('v1', 'v1'));
        const v1 = await store.tokens.version();
        expect(v1).not.toBe(v0);
        await store.tokens.revoke('v1');
        expect(await store.tokens.version()).not.toBe(v1);
      });

      it('creates a token with every field set and finds it by name and by hash', async () => {
        const before = new Date().toISOString();
        const token = await store.tokens.create({
          name: 'ci',
          hash: hash(1),
          roles: ['agent', 'admin'],
          expiresAt: '2030-01-01T00:00:00.000Z',
        });
        expect(token).toEqual({
          name: 'ci',
          hash: hash(1),
          roles: ['agent', 'admin'],
          createdAt: expect.any(String),
          expiresAt: '2030-01-01T00:00:00.000Z',
          lastUsedAt: null,
          profile: null,
        });
        expect(new Date(token.createdAt).toISOString()).toBe(token.createdAt);
        expect(token.createdAt >= before).toBe(true);
        expect(await store.tokens.get('ci')).toEqual(token);
        expect(await store.tokens.findByHash(hash(1))).toEqual(token);
      });

      it('keeps the profile a token is bound to, and refuses a malformed profile name naming the rule', async () => {
        const token = await store.tokens.create(newToken('bound', 'b0', { profile: 'reviewer' }));
        expect(token.profile).toBe('reviewer');
        expect(await store.tokens.get('bound')).toEqual(token);
        expect(await store.tokens.findByHash(hash('b0'))).toEqual(token);
        expect((await store.tokens.list()).find((t) => t.name === 'bound')?.profile).toBe('reviewer');
        await expect(store.tokens.create(newToken('badp', 'b1', { profile: 'no spaces' }))).rejects.toMatchObject({
          code: 'INVALID_INPUT',
          message: expect.stringMatching(/Profile name 'no spaces' is invalid: a profile name is 1 to 64 characters/),
        });
        expect(await store.tokens.get('badp')).toBeUndefined();
      });

      it('keeps a token without expiry and without roles', async () => {
        const token = await store.tokens.create({ name: 'plain', hash: hash(2), roles: [], expiresAt: null });
        expect(await store.tokens.get('plain')).toEqual(token);
        expect(token).toMatchObject({ roles: [], expiresAt: null });
      });

      it('stores expiresAt in canonical UTC form', async () => {
        const token = await store.tokens.create(newToken('tz', 3, { expiresAt: '2030-01-01T02:00:00+02:00' }));
        expect(token.expiresAt).toBe('2030-01-01T00:00:00.000Z');
        expect((await store.tokens.get('tz'))?.expiresAt).toBe('2030-01-01T00:00:00.000Z');
      });

      it('answers undefined for an unknown name or hash', async () => {
        await store.tokens.create(newToken('ci', 1));
        expect(await store.tokens.get('cd')).toBeUndefined();
        expect(await store.tokens.findByHash(hash(999))).toBeUndefined();
      });

      it('lists every token sorted by name and counts them', async () => {
        expect(await store.tokens.list()).toEqual([]);
        expect(await store.tokens.count()).toBe(0);
        for (const [i, name] of ['zeta', 'Alpha', 'beta', 'alpha', '0-build'].entries())
          await store.tokens.create(newToken(name, i + 10));
        expect((await store.tokens.list()).map((t) => t.name)).toEqual(['0-build', 'Alpha', 'alpha', 'beta', 'zeta']);
        expect(await store.tokens.count()).toBe(5);
      });

      it('refuses a taken name with CONFLICT that says how to free it, and keeps the first token', async () => {
        const first = await store.tokens.create(newToken('ci', 1));
        const again = store.tokens.create({ ...newToken('ci', 2), roles: ['admin'] });
        await expect(again).rejects.toMatchObject({
          code: 'CONFLICT',
          message: "Token 'ci' already exists; revoke it first with: switchboard token revoke ci",
        });
        expect(await store.tokens.get('ci')).toEqual(first);
        expect(await store.tokens.findByHash(hash(2))).toBeUndefined();
        expect(await store.tokens.count()).toBe(1);
      });

      it('refuses a hash that another token already has with CONFLICT', async () => {
        await store.tokens.create(newToken('a', 1));
        await expect(store.tokens.create(newToken('b', 1))).rejects.toMatchObject({ code: 'CONFLICT' });
        expect(await store.tokens.get('b')).toBeUndefined();
      });

      it('accepts names of 1 to 64 characters from A-Z a-z 0-9 _ . -', async () => {
        const names = ['a', 'x'.repeat(64), 'release_bot.v2-eu', 'UPPER', '123', '.', '-'];
        for (const [i, name] of names.entries()) await store.tokens.create(newToken(name, i + 100));
        expect(await store.tokens.count()).toBe(names.length);
      });

      it('rejects a malformed name with INVALID_INPUT naming the rule, in every method', async () => {
        const bad = ['', 'x'.repeat(65), 'has space', 'slash/name', 'ünï', 'semi;colon', 42, null];
        const rule = expect.stringMatching(/1 to 64 characters from A-Z, a-z, 0-9, '_', '\.' and '-'/);
        for (const name of bad) {
          const n = name as string;
          await expect(store.tokens.create(newToken(n, 1))).rejects.toMatchObject({
            code: 'INVALID_INPUT',
            message: rule,
          });
          await expect(store.tokens.get(n)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: rule });
          await expect(store.tokens.revoke(n)).rejects.toMatchObject({ code: 'INVALID_INPUT', message: rule });
          await expect(store.tokens.touch(n, new Date().toISOString())).rejects.toMatchObject({
            code: 'INVALID_INPUT',
            message: rule,
          });
        }
        expect(await store.tokens.count()).toBe(0);
      });

      it('rejects a malformed hash, roles or expiry with INVALID_INPUT and stores nothing', async () => {
        const secret = `sb_${'s'.repeat(43)}`;
        const bad: unknown[] = [
          { ...newToken('t'), hash: secret },
          { ...newToken('t'), hash: hash(1).toUpperCase().replace(/0/g, 'A') },
          { ...newToken('t'), hash: hash(1).slice(1) },
          { ...newToken('t'), hash: 42 },
          { ...newToken('t'), roles: 'agent' },
          { ...newToken('t'), roles: ['agent', 7] },
          { ...newToken('t'), roles: [''] },
          { ...newToken('t'), expiresAt: 'next week' },
          { ...newToken('t'), expiresAt: '2030-02-30T00:00:00Z' },
          { ...newToken('t'), expiresAt: 1_900_000_000_000 },
        ];
        for (const token of bad) {
          const attempt = store.tokens.create(token as never);
          await expect(attempt).rejects.toMatchObject({ code: 'INVALID_INPUT' });
          // A token passed where its hash belongs must not be echoed into an error (and from there into logs).
          await attempt.catch((err: Error) => expect(err.message).not.toContain(secret));
        }
        await expect(store.tokens.findByHash(secret)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        expect(await store.tokens.count()).toBe(0);
      });

      it('revoke deletes the token and answers whether it existed', async () => {
        await store.tokens.create(newToken('ci', 1));
        await store.tokens.create(newToken('cd', 2));
        expect(await store.tokens.revoke('ci')).toBe(true);
        expect(await store.tokens.get('ci')).toBeUndefined();
        expect(await store.tokens.findByHash(hash(1))).toBeUndefined();
        expect(await store.tokens.revoke('ci')).toBe(false);
        expect(await store.tokens.revoke('never')).toBe(false);
        expect((await store.tokens.list()).map((t) => t.name)).toEqual(['cd']);
        // The name is free again.
        await store.tokens.create(newToken('ci', 3));
        expect(await store.tokens.count()).toBe(2);
      });

      it('touch records the last use, never moves it backwards, and ignores unknown names', async () => {
        const token = await store.tokens.create(newToken('ci', 1));
        await store.tokens.touch('ci', '2030-01-01T00:00:05.000Z');
        expect(await store.tokens.get('ci')).toEqual({ ...token, lastUsedAt: '2030-01-01T00:00:05.000Z' });
        await store.tokens.touch('ci', '2030-01-01T00:00:01.000Z');
        expect((await store.tokens.get('ci'))?.lastUsedAt).toBe('2030-01-01T00:00:05.000Z');
        await store.tokens.touch('ci', '2030-01-01T01:00:06+01:00');
        expect((await store.tokens.findByHash(hash(1)))?.lastUsedAt).toBe('2030-01-01T00:00:06.000Z');
        await store.tokens.touch('ghost', '2030-01-01T00:00:00.000Z');
        expect(await store.tokens.get('ghost')).toBeUndefined();
        await expect(store.tokens.touch('ci', 'now')).rejects.toMatchObject({
          code: 'INVALID_INPUT',
          message: expect.stringContaining('atIso'),
        });
      });
    });

    describe('audit log', () => {
      const T0 = Date.parse('2030-01-01T00:00:00.000Z');
      /** A record `s` seconds after T0; override any field. */
      const rec = (s: number, extra: Partial<NewAuditRecord> = {}): NewAuditRecord => ({
        at: new Date(T0 + s * 1000).toISOString(),
        principal: 'alice',
        transport: 'http',
        capability: 'task.create',
        input: '{"text":"x","token":"[redacted]"}',
        outcome: 'ok',
        errorCode: null,
        errorMessage: null,
        durationMs: 1.25,
        requestId: `r-${s}`,
        ...extra,
      });

      it('appends a record and returns every field unchanged, with a seq', async () => {
        const ok = rec(1);
        const failed = rec(2, {
          outcome: 'error',
          errorCode: 'INVALID_INPUT',
          errorMessage: 'text: expected a string',
          capability: 'unknown.thing',
          transport: 'stdio',
          input: '{"a":"ünïcødé ✓"}…[truncated, 9000 bytes]',
          durationMs: 0,
        });
        await store.audit.append(ok);
        await store.audit.append(failed);
        const got = await store.audit.query();
        expect(got).toEqual([
          { ...failed, seq: expect.any(Number) },
          { ...ok, seq: expect.any(Number) },
        ]);
        expect(got[0].seq).toBeGreaterThan(got[1].seq);
      });

      it('keeps the mark of a call the result cache answered, and only on that record', async () => {
        await store.audit.appendMany([rec(1), rec(2, { cached: true }), rec(3)]);
        const got = await store.audit.query();
        expect(got.map((r) => [r.requestId, r.cached])).toEqual([
          ['r-3', undefined],
          ['r-2', true],
          ['r-1', undefined],
        ]);
        expect(got[1]).toEqual({ ...rec(2, { cached: true }), seq: expect.any(Number) });
        expect('cached' in got[0]).toBe(false);
      });

      it('keeps the trace id of a traced call, and only on that record, cached or not', async () => {
        const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
        await store.audit.appendMany([
          rec(1),
          rec(2, { traceId: trace }),
          rec(3, { traceId: trace, cached: true }),
          rec(4, { outcome: 'error', errorCode: 'TIMEOUT', traceId: trace }),
        ]);
        const got = await store.audit.query();
        expect(got.map((r) => [r.requestId, r.traceId, r.cached])).toEqual([
          ['r-4', trace, undefined],
          ['r-3', trace, true],
          ['r-2', trace, undefined],
          ['r-1', undefined, undefined],
        ]);
        expect(got[1]).toEqual({ ...rec(3, { traceId: trace, cached: true }), seq: expect.any(Number) });
        expect(got[0]).toMatchObject({ outcome: 'error', errorCode: 'TIMEOUT' });
        expect('traceId' in got[3]).toBe(false);
      });

      it('accepts an error without a message', async () => {
        await store.audit.append(rec(1, { outcome: 'error', errorCode: 'TIMEOUT', errorMessage: null }));
        expect(await store.audit.query()).toMatchObject([
          { outcome: 'error', errorCode: 'TIMEOUT', errorMessage: null },
        ]);
      });

      it('stores `at` in canonical UTC form', async () => {
        await store.audit.append(rec(0, { at: '2030-01-01T01:00:00+01:00' }));
        expect((await store.audit.query())[0].at).toBe('2030-01-01T00:00:00.000Z');
      });

      it('answers newest first by time, then by append order for equal times', async () => {
        // Appended out of time order: calls finish in a different order than they start.
        for (const s of [5, 1, 3]) await store.audit.append(rec(s));
        await store.audit.append(rec(3, { requestId: 'r-3b' }));
        expect((await store.audit.query()).map((r) => r.requestId)).toEqual(['r-5', 'r-3b', 'r-3', 'r-1']);
        expect(await store.audit.query({ capability: 'nothing.here' })).toEqual([]);
      });

      it('filters by time range (since inclusive, until exclusive), capability, principal and outcome', async () => {
        await store.audit.append(rec(1, { principal: 'alice', capability: 'task.create' }));
        await store.audit.append(rec(2, { principal: 'bob', capability: 'task.create' }));
        await store.audit.append(
          rec(3, { principal: 'bob', capability: 'task.list', outcome: 'error', errorCode: 'FORBIDDEN' }),
        );
        await store.audit.append(rec(4, { principal: 'alice', capability: 'task.list' }));
        await store.audit.append(
          rec(5, { principal: 'alice', capability: 'task.create', outcome: 'error', errorCode: 'INTERNAL' }),
        );
        const ids = async (q: Parameters<Store['audit']['query']>[0]) =>
          (await store.audit.query(q)).map((r) => r.requestId);
        const at = (s: number) => new Date(T0 + s * 1000).toISOString();

        expect(await ids({ since: at(2), until: at(4) })).toEqual(['r-3', 'r-2']);
        expect(await ids({ since: at(4) })).toEqual(['r-5', 'r-4']);
        expect(await ids({ until: at(2) })).toEqual(['r-1']);
        expect(await ids({ since: '2030-01-01T01:00:02+01:00', until: at(3) })).toEqual(['r-2']);
        expect(await ids({ since: '2030-01-01' })).toHaveLength(5);
        expect(await ids({ capability: 'task.list' })).toEqual(['r-4', 'r-3']);
        expect(await ids({ principal: 'alice' })).toEqual(['r-5', 'r-4', 'r-1']);
        expect(await ids({ outcome: 'error' })).toEqual(['r-5', 'r-3']);
        expect(await ids({ outcome: 'ok', principal: 'bob' })).toEqual(['r-2']);
        expect(await ids({ capability: 'task.create', principal: 'alice', since: at(2) })).toEqual(['r-5']);
        expect(await ids({ capability: 'task.create', limit: 2 })).toEqual(['r-5', 'r-2']);
        expect(await ids({ since: at(3), until: at(3) })).toEqual([]);
      });

      it('returns at most 100 records by default and up to limit when given', async () => {
        for (let s = 0; s < 105; s++) await store.audit.append(rec(s));
        const page = await store.audit.query();
        expect(page).toHaveLength(100);
        expect(page[0].requestId).toBe('r-104');
        expect(page[99].requestId).toBe('r-5');
        expect(await store.audit.query({ limit: 3 })).toHaveLength(3);
        expect(await store.audit.query({ limit: 10_000 })).toHaveLength(105);
      });

      it('rejects a limit outside 1..10000 with INVALID_INPUT naming limit', async () => {
        for (const limit of [0, -1, 10_001, 2.5, '5', Number.NaN]) {
          await expect(store.audit.query({ limit: limit as number })).rejects.toMatchObject({
            code: 'INVALID_INPUT',
            message: expect.stringContaining('limit'),
          });
        }
      });

      it('rejects a malformed query with INVALID_INPUT naming the field', async () => {
        const bad: [unknown, string][] = [
          [{ since: 'yesterday' }, 'since'],
          [{ until: '2030-13-01T00:00:00Z' }, 'until'],
          [{ since: 1_900_000_000_000 }, 'since'],
          [{ outcome: 'failed' }, 'outcome'],
          [{ capability: 7 }, 'capability'],
          [{ principal: ['alice'] }, 'principal'],
          [{ tool: 'task.create' }, 'tool'],
        ];
        for (const [q, field] of bad) {
          await expect(store.audit.query(q as never)).rejects.toMatchObject({
            code: 'INVALID_INPUT',
            message: expect.stringContaining(field),
          });
        }
      });

      it('rejects a malformed record with INVALID_INPUT and stores nothing', async () => {
        const bad: unknown[] = [
          rec(1, { at: 'now' }),
          rec(1, { at: '2030-01-01T00:00:00' }),
          rec(1, { outcome: 'maybe' as 'ok' }),
          rec(1, { outcome: 'ok', errorCode: 'INTERNAL' }),
          rec(1, { outcome: 'ok', errorMessage: 'boom' }),
          rec(1, { outcome: 'error', errorCode: null }),
          rec(1, { outcome: 'error', errorCode: '' }),
          rec(1, { durationMs: -1 }),
          rec(1, { durationMs: Number.NaN }),
          rec(1, { durationMs: Number.POSITIVE_INFINITY }),
          rec(1, { input: { text: 'x' } as unknown as string }),
          rec(1, { principal: undefined as unknown as string }),
          rec(1, { requestId: 42 as unknown as string }),
          rec(1, { cached: false as unknown as true }),
          rec(1, { outcome: 'error', errorCode: 'INTERNAL', cached: true }),
          rec(1, { traceId: '4BF92F3577B34DA6A3CE929D0E0E4736' }),
          rec(1, { traceId: 'abc' }),
          null,
        ];
        for (const r of bad)
          await expect(store.audit.append(r as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
        expect(await store.audit.query()).toEqual([]);
      });

      it('prune deletes exactly the records before the cutoff and says how many', async () => {
        for (let s = 1; s <= 6; s++) await store.audit.append(rec(s));
        const cutoff = new Date(T0 + 4000).toISOString();
        expect(await store.audit.prune(cutoff)).toBe(3);
        expect((await store.audit.query()).map((r) => r.requestId)).toEqual(['r-6', 'r-5', 'r-4']);
        expect(await store.audit.prune(cutoff)).toBe(0);
        expect(await store.audit.prune('2000-01-01T00:00:00.000Z')).toBe(0);
        await expect(store.audit.prune('last week')).rejects.toMatchObject({
          code: 'INVALID_INPUT',
          message: expect.stringContaining('before'),
        });
        expect(await store.audit.query()).toHaveLength(3);
      });

      it('never reuses a seq, even after everything was pruned', async () => {
        for (let s = 1; s <= 3; s++) await store.audit.append(rec(s));
        const last = (await store.audit.query({ limit: 1 }))[0].seq;
        expect(await store.audit.prune('2100-01-01T00:00:00.000Z')).toBe(3);
        await store.audit.append(rec(1));
        expect((await store.audit.query())[0].seq).toBeGreaterThan(last);
      });
    });

    describe('script runs', () => {
      const run = (id: string, extra: Partial<{ clientKey: string; principal: string }> = {}) =>
        store.scriptRuns.create({ id, clientKey: 'stdio', principal: 'p1', name: 'test:nested', ...extra });

      it('creates a running run with no entries and refuses a taken id', async () => {
        const created = await run('r-1');
        expect(created).toEqual({
          id: 'r-1',
          clientKey: 'stdio',
          principal: 'p1',
          name: 'test:nested',
          status: 'running',
          createdAt: expect.stringMatching(/Z$/),
          updatedAt: created.createdAt,
          entries: 0,
        });
        expect(await store.scriptRuns.get('r-1')).toEqual(created);
        await expect(run('r-1')).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('r-1') });
        expect(await store.scriptRuns.get('r-2')).toBeUndefined();
      });

      it('keeps journal entries in append order across appends and counts them', async () => {
        await run('r-1');
        await store.scriptRuns.append('r-1', [{ type: 'a', n: 1 }]);
        await store.scriptRuns.append('r-1', [
          { type: 'b', nested: { x: [1, 2] } },
          { type: 'c', text: 'é\n' },
        ]);
        await store.scriptRuns.append('r-1', []);
        expect(await store.scriptRuns.journal('r-1')).toEqual([
          { type: 'a', n: 1 },
          { type: 'b', nested: { x: [1, 2] } },
          { type: 'c', text: 'é\n' },
        ]);
        expect((await store.scriptRuns.get('r-1'))?.entries).toBe(3);
        expect(await store.scriptRuns.journal('r-unknown')).toEqual([]);
      });

      it('refuses to append to an unknown run and appends nothing from a batch with a bad entry', async () => {
        await expect(store.scriptRuns.append('nope', [{ a: 1 }])).rejects.toMatchObject({ code: 'NOT_FOUND' });
        await run('r-1');
        await expect(
          store.scriptRuns.append('r-1', [{ ok: 1 }, 'text' as unknown as Record<string, unknown>]),
        ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('entries[1]') });
        expect(await store.scriptRuns.journal('r-1')).toEqual([]);
      });

      it('rejects malformed ids, filters and patches with INVALID_INPUT naming the field', async () => {
        await expect(run('has space')).rejects.toMatchObject({
          code: 'INVALID_INPUT',
          message: expect.stringContaining('run id'),
        });
        await expect(store.scriptRuns.list({ owner: 'x' } as never)).rejects.toMatchObject({
          code: 'INVALID_INPUT',
          message: expect.stringContaining("'owner'"),
        });
        await expect(store.scriptRuns.list({ status: 'done' as never })).rejects.toMatchObject({
          code: 'INVALID_INPUT',
          message: expect.stringContaining('status'),
        });
        await run('r-1');
        await expect(store.scriptRuns.update('r-1', { status: 'paused' as never })).rejects.toMatchObject({
          code: 'INVALID_INPUT',
        });
        expect((await store.scriptRuns.get('r-1'))?.status).toBe('running');
      });

      it('updates status and client, lists newest first with filters, and removes a run with its journal', async () => {
        await run('r-1');
        clock.advance(5);
        await run('r-2', { principal: 'p2' });
        clock.advance(5);
        await run('r-3', { clientKey: 'session:abc' });
        expect((await store.scriptRuns.list()).map((r) => r.id)).toEqual(['r-3', 'r-2', 'r-1']);
        clock.advance(5);
        const moved = await store.scriptRuns.update('r-1', { clientKey: 'run:r-1', status: 'finished' });
        expect(moved).toMatchObject({ clientKey: 'run:r-1', status: 'finished' });
        expect(moved && moved.updatedAt > moved.createdAt).toBe(true);
        expect((await store.scriptRuns.list()).map((r) => r.id)).toEqual(['r-1', 'r-3', 'r-2']);
        expect((await store.scriptRuns.list({ principal: 'p1', status: 'running' })).map((r) => r.id)).toEqual(['r-3']);
        expect((await store.scriptRuns.list({ clientKey: 'stdio' })).map((r) => r.id)).toEqual(['r-2']);
        expect((await store.scriptRuns.list({ limit: 1 })).map((r) => r.id)).toEqual(['r-1']);
        expect(await store.scriptRuns.update('nope', { status: 'finished' })).toBeUndefined();
        await store.scriptRuns.append('r-2', [{ a: 1 }]);
        expect(await store.scriptRuns.remove('r-2')).toBe(true);
        expect(await store.scriptRuns.remove('r-2')).toBe(false);
        expect(await store.scriptRuns.get('r-2')).toBeUndefined();
        expect(await store.scriptRuns.journal('r-2')).toEqual([]);
        // A new run under a removed id starts with an empty journal.
        await run('r-2');
        expect(await store.scriptRuns.journal('r-2')).toEqual([]);
      });

      it('prunes only finished runs last updated before the cutoff, with their journals', async () => {
        await run('old-done');
        await store.scriptRuns.append('old-done', [{ a: 1 }]);
        await store.scriptRuns.update('old-done', { status: 'finished' });
        await run('old-running');
        clock.advance(5);
        const cutoff = new Date(clock.now()).toISOString();
        clock.advance(5);
        await run('new-done');
        await store.scriptRuns.update('new-done', { status: 'finished' });
        expect(await store.scriptRuns.prune(cutoff)).toBe(1);
        expect(await store.scriptRuns.get('old-done')).toBeUndefined();
        expect(await store.scriptRuns.journal('old-done')).toEqual([]);
        expect((await store.scriptRuns.list()).map((r) => r.id).sort()).toEqual(['new-done', 'old-running']);
        expect(await store.scriptRuns.prune(cutoff)).toBe(0);
        await expect(store.scriptRuns.prune('yesterday')).rejects.toMatchObject({
          code: 'INVALID_INPUT',
          message: expect.stringContaining('before'),
        });
      });
    });

    it('answers ping', async () => {
      expect(await store.ping()).toBe(true);
    });
  });
}
