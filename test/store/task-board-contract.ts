// The task board's ClaudeBench parts as a Store contract (issue 18): batches all or none, the atomic claim,
// delete with attachments, attachments and their limits, who created and who finished. Run against every store by
// test/store/task-board.test.ts; it uses only the Store interface.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store, Task } from '../../src/store/contract.ts';
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS_PER_TASK } from '../../src/store/records/task-attachments.ts';

export function taskBoardContract(name: string, make: () => Promise<Store>): void {
  describe(`Task board contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await make();
    });
    afterEach(async () => {
      await store.close();
    });

    describe('createMany', () => {
      it('creates every task in the order given, pending, and lists them', async () => {
        const made = await store.tasks.createMany([
          { text: 'a', priority: 10 },
          { text: 'b', priority: 90, type: 'docs', metadata: { k: 1 }, createdBy: 'alice' },
        ]);
        expect(made.map((t) => [t.text, t.status, t.priority])).toEqual([
          ['a', 'pending', 10],
          ['b', 'pending', 90],
        ]);
        expect(made[1]).toMatchObject({ type: 'docs', metadata: { k: 1 }, createdBy: 'alice', completedBy: null });
        expect(await store.tasks.get(made[1].id)).toEqual(made[1]);
        const page = await store.tasks.list({});
        expect(page.tasks.map((t) => t.text)).toEqual(['b', 'a']);
      });

      it('writes nothing when one task is bad, naming its index and field', async () => {
        await expect(
          store.tasks.createMany([
            { text: 'fine', priority: 1 },
            { text: 'also fine', priority: 2 },
            { text: '', priority: 3 },
          ]),
        ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: 'tasks[2].text must not be empty.' });
        expect((await store.tasks.list({})).tasks).toEqual([]);
      });

      it('refuses an empty batch and one above the limit', async () => {
        await expect(store.tasks.createMany([])).rejects.toThrow(/tasks must be an array of 1 to 100 tasks/);
        const many = Array.from({ length: 101 }, (_, i) => ({ text: `t${i}`, priority: 1 }));
        await expect(store.tasks.createMany(many)).rejects.toThrow(/of 101/);
      });
    });

    describe('claim', () => {
      it('takes the highest priority, then oldest, pending task and makes it in_progress for the instance', async () => {
        const [low, high1, high2] = await store.tasks.createMany([
          { text: 'low', priority: 10 },
          { text: 'high, older', priority: 80 },
          { text: 'high, newer', priority: 80 },
        ]);
        const first = await store.tasks.claim('w1');
        expect(first).toMatchObject({ id: high1.id, status: 'in_progress', assignedTo: 'w1', version: 2 });
        expect(await store.tasks.get(high1.id)).toEqual(first);
        expect((await store.tasks.claim('w2'))?.id).toBe(high2.id);
        expect((await store.tasks.claim('w1'))?.id).toBe(low.id);
        expect(await store.tasks.claim('w1')).toBeUndefined();
        // The indexes moved with the task: it lists as in_progress under its assignee, no longer as pending.
        expect((await store.tasks.list({ status: ['pending'] })).tasks).toEqual([]);
        expect((await store.tasks.list({ assignedTo: 'w1', status: ['in_progress'] })).tasks.map((t) => t.id)).toEqual([
          high1.id,
          low.id,
        ]);
      });

      it('skips tasks that are not pending', async () => {
        const [a, b] = await store.tasks.createMany([
          { text: 'a', priority: 90 },
          { text: 'b', priority: 10 },
        ]);
        await store.tasks.update(a.id, { status: 'failed', error: 'no' });
        expect((await store.tasks.claim('w1'))?.id).toBe(b.id);
      });

      it('gives every task to exactly one of many concurrent claimers', async () => {
        await store.tasks.createMany(Array.from({ length: 60 }, (_, i) => ({ text: `t${i}`, priority: i % 7 })));
        const claimed = await Promise.all(Array.from({ length: 90 }, (_, i) => store.tasks.claim(`w${i % 9}`)));
        const ids = claimed.filter((t): t is Task => t !== undefined).map((t) => t.id);
        expect(ids).toHaveLength(60);
        expect(new Set(ids).size).toBe(60);
        expect(claimed.filter((t) => t === undefined)).toHaveLength(30);
      });
    });

    describe('delete', () => {
      it('removes the task, its indexes and its attachments, and answers it as it was', async () => {
        const task = await store.tasks.create({ text: 'gone soon', priority: 5, type: 'docs' });
        await store.tasks.attach({ taskId: task.id, key: 'notes', type: 'text', value: 'hello' });
        const deleted = await store.tasks.delete(task.id);
        expect(deleted).toEqual(task);
        expect(await store.tasks.get(task.id)).toBeUndefined();
        expect((await store.tasks.list({ type: 'docs' })).tasks).toEqual([]);
        expect(await store.tasks.attachments(task.id)).toBeUndefined();
        expect(await store.tasks.delete(task.id)).toBeUndefined();
        expect(await store.tasks.claim('w1')).toBeUndefined();
      });
    });

    describe('attachments', () => {
      it('keeps json and text documents by key, replacing on the same key', async () => {
        const task = await store.tasks.create({ text: 'with docs', priority: 5 });
        const json = await store.tasks.attach({
          taskId: task.id,
          key: 'analysis',
          type: 'json',
          value: { files: ['a.ts'], risk: 'low' },
          createdBy: 'alice',
        });
        expect(json).toMatchObject({
          ok: true,
          attachment: { taskId: task.id, key: 'analysis', type: 'json', size: 31, createdBy: 'alice' },
        });
        await store.tasks.attach({ taskId: task.id, key: 'handoff', type: 'text', value: 'first' });
        await store.tasks.attach({ taskId: task.id, key: 'handoff', type: 'text', value: 'second, ünïcode' });
        const all = await store.tasks.attachments(task.id);
        expect(all?.map((a) => [a.key, a.type, a.value, a.size])).toEqual([
          ['analysis', 'json', { files: ['a.ts'], risk: 'low' }, 31],
          ['handoff', 'text', 'second, ünïcode', 17],
        ]);
      });

      it('answers not_found for an unknown task and writes nothing', async () => {
        expect(await store.tasks.attach({ taskId: 't-none', key: 'k', type: 'text', value: 'x' })).toEqual({
          ok: false,
          reason: 'not_found',
        });
        expect(await store.tasks.attachments('t-none')).toBeUndefined();
      });

      it('refuses a document above the size limit with its size and the limit', async () => {
        const task = await store.tasks.create({ text: 'big', priority: 5 });
        await expect(
          store.tasks.attach({
            taskId: task.id,
            key: 'big',
            type: 'text',
            value: 'x'.repeat(MAX_ATTACHMENT_BYTES + 1),
          }),
        ).rejects.toMatchObject({
          code: 'INVALID_INPUT',
          message: expect.stringContaining(`is ${MAX_ATTACHMENT_BYTES + 1} bytes; an attachment may be at most 65536`),
        });
        await expect(
          store.tasks.attach({ taskId: task.id, key: 'bad key!', type: 'text', value: 'x' }),
        ).rejects.toThrow(/key must be 1-128 letters/);
        await expect(store.tasks.attach({ taskId: task.id, key: 'k', type: 'text', value: { a: 1 } })).rejects.toThrow(
          /value must be a string for a text attachment/,
        );
        expect(await store.tasks.attachments(task.id)).toEqual([]);
      });

      it(`keeps at most ${MAX_ATTACHMENTS_PER_TASK} per task, still allowing a replacement`, async () => {
        const task = await store.tasks.create({ text: 'full', priority: 5 });
        for (let i = 0; i < MAX_ATTACHMENTS_PER_TASK; i++)
          await store.tasks.attach({ taskId: task.id, key: `k${i}`, type: 'json', value: i });
        expect(await store.tasks.attach({ taskId: task.id, key: 'one-more', type: 'json', value: 1 })).toEqual({
          ok: false,
          reason: 'full',
        });
        expect(await store.tasks.attach({ taskId: task.id, key: 'k0', type: 'json', value: 'new' })).toMatchObject({
          ok: true,
        });
      });
    });

    it('records who completed a task', async () => {
      const task = await store.tasks.create({ text: 'mine', priority: 5, createdBy: 'alice' });
      const done = await store.tasks.update(task.id, { status: 'completed', completedBy: 'alice' });
      expect(done).toMatchObject({ ok: true, task: { createdBy: 'alice', completedBy: 'alice', assignedTo: null } });
      expect(await store.tasks.get(task.id)).toMatchObject({ createdBy: 'alice', completedBy: 'alice' });
    });
  });
}
