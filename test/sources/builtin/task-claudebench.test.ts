// The task board's ClaudeBench parts (issue 18) through the real pipeline, on SQLite and on Redis: task.claim,
// task.unassign, task.delete, task.batch_create, task.assign to the least-loaded instance, a creator completing its
// own unassigned task, attachments — and one spelling convention across the task and system inputs (ClaudeBench's
// own params are checked to be camelCase in test/originals/claudebench.test.ts).
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Outcome } from '../../../src/core/pipeline.ts';
import type { Store, Task } from '../../../src/store/contract.ts';
import { MAX_ATTACHMENT_BYTES } from '../../../src/store/records/task-attachments.ts';
import { SqliteStore } from '../../../src/store/sqlite/index.ts';
import { ADMIN, type TestHub, testHub } from '../../helpers/hub.ts';
import { openTestStore } from '../../helpers/redis.ts';

const ALICE = { id: 'alice', roles: ['*'] };
const BOB = { id: 'bob', roles: ['*'] };

const dropped: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of dropped.splice(0)) await drop();
});

const stores: [string, () => Promise<Store>][] = [
  ['sqlite', async () => SqliteStore.open(':memory:')],
  [
    'redis',
    async () => {
      const store = await openTestStore();
      dropped.push(() => store.drop());
      return store;
    },
  ],
];

function failure(out: Outcome, code: string): string {
  if (out.ok) throw new Error(`expected ${code}, got ${JSON.stringify(out.value)}`);
  expect(out.error.code).toBe(code);
  return out.error.message;
}

describe.each(stores)('task board from ClaudeBench on %s', (_name, makeStore) => {
  let hub: TestHub;
  const as = async <T = any>(principal: typeof ALICE, name: string, input: unknown): Promise<T> => {
    const out = await hub.call(name, input, principal);
    if (!out.ok) throw new Error(`${out.error.code}: ${out.error.message}`);
    return out.value as T;
  };
  beforeEach(async () => {
    hub = await testHub({ store: await makeStore() });
  });
  afterEach(async () => {
    await hub.close();
  });
  const register = (instanceId: string) => hub.value('system.register', { instanceId, roles: ['worker'] });

  describe('task.claim', () => {
    it('hands out the highest-priority pending task, in_progress and assigned to the caller, then claimed: false', async () => {
      await register('w1');
      await hub.value('task.batch_create', {
        tasks: [
          { text: 'low', priority: 10 },
          { text: 'urgent', priority: 90 },
        ],
      });
      const first = await hub.value('task.claim', { instanceId: 'w1' });
      expect(first).toMatchObject({ claimed: true, task: { text: 'urgent', status: 'in_progress', assignedTo: 'w1' } });
      expect((await hub.value('task.claim', { instanceId: 'w1' })).task.text).toBe('low');
      expect(await hub.value('task.claim', { instanceId: 'w1' })).toEqual({ claimed: false, task: null });
    });

    it('refuses an instance that is not registered, saying how to register', async () => {
      await hub.value('task.create', { text: 'work' });
      expect(failure(await hub.call('task.claim', { instanceId: 'ghost' }), 'NOT_FOUND')).toContain('system.register');
      expect((await hub.value('task.list', { status: 'pending' })).tasks).toHaveLength(1);
    });

    it('gives each of 30 tasks to exactly one of 45 concurrent claims from three workers', async () => {
      for (const w of ['w1', 'w2', 'w3']) await register(w);
      const { tasks } = await hub.value('task.batch_create', {
        tasks: Array.from({ length: 30 }, (_, i) => ({ text: `t${i}`, priority: i % 5 })),
      });
      const outs = await Promise.all(
        Array.from({ length: 45 }, (_, i) => hub.value('task.claim', { instanceId: `w${(i % 3) + 1}` })),
      );
      const ids = outs.filter((o) => o.claimed).map((o) => o.task.id);
      expect(ids.sort()).toEqual(tasks.map((t: Task) => t.id).sort());
      expect(outs.filter((o) => !o.claimed)).toHaveLength(15);
    });
  });

  it('task.unassign puts a claimed task back to pending for the next worker; a finished one is refused', async () => {
    await register('w1');
    await register('w2');
    const task = await hub.value<Task>('task.create', { text: 'hand over' });
    await hub.value('task.claim', { instanceId: 'w1' });
    expect(await hub.value('task.unassign', { id: task.id })).toMatchObject({ status: 'pending', assignedTo: null });
    expect((await hub.value('task.claim', { instanceId: 'w2' })).task).toMatchObject({ id: task.id, assignedTo: 'w2' });
    await hub.value('task.complete', { id: task.id });
    expect(failure(await hub.call('task.unassign', { id: task.id }), 'CONFLICT')).toContain(
      'task.unassign needs assigned or in_progress',
    );
  });

  it('task.delete removes the task and its attachments; a second delete is NOT_FOUND', async () => {
    const task = await hub.value<Task>('task.create', { text: 'mistake', type: 'oops' });
    await hub.value('task.attach', { id: task.id, key: 'notes', type: 'text', value: 'why' });
    expect(await hub.value('task.delete', { id: task.id })).toMatchObject({ id: task.id, text: 'mistake' });
    expect(failure(await hub.call('task.get', { id: task.id }), 'NOT_FOUND')).toContain('does not exist');
    expect(failure(await hub.call('task.attachments', { id: task.id }), 'NOT_FOUND')).toContain('does not exist');
    expect((await hub.value('task.list', { type: 'oops' })).tasks).toEqual([]);
    expect(failure(await hub.call('task.delete', { id: task.id }), 'NOT_FOUND')).toContain(task.id);
  });

  describe('task.batch_create', () => {
    it('creates all, in order, recording the creator', async () => {
      const { tasks } = await as(ALICE, 'task.batch_create', {
        tasks: [{ text: 'one' }, { text: 'two', priority: 70, type: 'docs', estimatedComplexity: 'simple' }],
      });
      expect(tasks.map((t: Task) => [t.text, t.priority, t.createdBy])).toEqual([
        ['one', 50, 'alice'],
        ['two', 70, 'alice'],
      ]);
      expect((await hub.value('task.list', {})).tasks).toHaveLength(2);
    });

    it('fails the whole call on one bad item, naming its index and field, and creates nothing', async () => {
      const message = failure(
        await hub.call('task.batch_create', {
          tasks: [{ text: 'fine' }, { text: 'fine too' }, { text: 'bad', priority: 101 }],
        }),
        'INVALID_INPUT',
      );
      expect(message).toMatch(/tasks\.2\.priority/);
      expect((await hub.value('task.list', {})).tasks).toEqual([]);
    });
  });

  it('task.assign without instanceId picks the live instance with the fewest open tasks', async () => {
    for (const w of ['w1', 'w2', 'w3']) await register(w);
    const { tasks } = await hub.value('task.batch_create', {
      tasks: Array.from({ length: 6 }, (_, i) => ({ text: `t${i}` })),
    });
    // w1 holds two, w2 one, w3 one (finished work does not count): the next goes to w2, the lower id of the tied.
    await hub.value('task.assign', { id: tasks[0].id, instanceId: 'w1' });
    await hub.value('task.assign', { id: tasks[1].id, instanceId: 'w1' });
    await hub.value('task.assign', { id: tasks[2].id, instanceId: 'w2' });
    await hub.value('task.assign', { id: tasks[3].id, instanceId: 'w3' });
    await hub.value('task.assign', { id: tasks[4].id, instanceId: 'w3' });
    await hub.value('task.complete', { id: tasks[4].id });
    expect((await hub.value('task.assign', { id: tasks[5].id })).assignedTo).toBe('w2');
  });

  describe('completing an unassigned task', () => {
    it('is allowed to its creator and recorded as completed by it, with no assignee', async () => {
      const task = await as<Task>(ALICE, 'task.create', { text: 'my own fix', type: 'fix' });
      const done = await as<Task>(ALICE, 'task.complete', { id: task.id, outcome: 'success', confidence: 0.8 });
      expect(done).toMatchObject({
        status: 'completed',
        assignedTo: null,
        createdBy: 'alice',
        completedBy: 'alice',
        assessment: { outcome: 'success', confidence: 0.8 },
      });
      // It counts in the outcome metrics like any assigned task.
      const metrics = await hub.value('task.metrics', {});
      expect(JSON.stringify(metrics)).toContain('"success"');
    });

    it('is refused to anyone else, naming the creator, and nothing changes', async () => {
      const task = await as<Task>(ALICE, 'task.create', { text: 'alice’s' });
      const message = failure(await hub.call('task.complete', { id: task.id }, BOB), 'CONFLICT');
      expect(message).toContain("Only its creator ('alice') may complete it unassigned; you are 'bob'.");
      expect(await hub.value('task.get', { id: task.id })).toEqual(task);
    });
  });

  describe('attachments', () => {
    it('keeps json and text documents for the next agent, replacing by key', async () => {
      const task = await hub.value<Task>('task.create', { text: 'investigate' });
      await as(ALICE, 'task.attach', { id: task.id, key: 'analysis', type: 'json', value: { risk: 'low', files: 2 } });
      await as(ALICE, 'task.attach', { id: task.id, key: 'handoff', type: 'text', value: 'draft' });
      await as(BOB, 'task.attach', { id: task.id, key: 'handoff', type: 'text', value: '## Next\nrun the tests' });
      const { attachments } = await hub.value('task.attachments', { id: task.id });
      expect(attachments.map((a: any) => [a.key, a.type, a.value, a.createdBy])).toEqual([
        ['analysis', 'json', { risk: 'low', files: 2 }, 'alice'],
        ['handoff', 'text', '## Next\nrun the tests', 'bob'],
      ]);
      expect((await hub.value('task.attachments', { id: task.id, key: 'analysis' })).attachments).toHaveLength(1);
    });

    it('keeps markdown as its own type, a string like text (ClaudeBench attaches markdown handoffs)', async () => {
      const task = await hub.value<Task>('task.create', { text: 'plan' });
      await hub.value('task.attach', { id: task.id, key: 'plan', type: 'markdown', value: '# Plan\n- test' });
      const { attachments } = await hub.value('task.attachments', { id: task.id, key: 'plan' });
      expect(attachments.map((a: any) => [a.type, a.value, a.size])).toEqual([['markdown', '# Plan\n- test', 13]]);
      expect(
        failure(
          await hub.call('task.attach', { id: task.id, key: 'plan', type: 'markdown', value: { a: 1 } }),
          'INVALID_INPUT',
        ),
      ).toContain("value must be a string for a markdown attachment, got object; use type 'json'");
    });

    it('refuses a document over the limit with its size, the limit and what to do instead', async () => {
      const task = await hub.value<Task>('task.create', { text: 'big' });
      const message = failure(
        await hub.call('task.attach', {
          id: task.id,
          key: 'log',
          type: 'text',
          value: 'x'.repeat(MAX_ATTACHMENT_BYTES + 10),
        }),
        'INVALID_INPUT',
      );
      expect(message).toContain(
        `is ${MAX_ATTACHMENT_BYTES + 10} bytes; an attachment may be at most 65536 bytes (64 KiB)`,
      );
      expect(message).toContain('attach a summary and a path');
      expect(
        failure(await hub.call('task.attach', { id: 't-none', key: 'k', type: 'text', value: 'x' }), 'NOT_FOUND'),
      ).toContain("Task 't-none' does not exist");
    });
  });
});

describe('one spelling across the task and system domains', () => {
  it('every input field of task.* and system.* is camelCase, as ClaudeBench spells its params', async () => {
    const camel = /^[a-z][a-zA-Z0-9]*$/;
    const hub = await testHub();
    try {
      const ours = hub.services.registry
        .list()
        .filter((e) => /^(task|system)\./.test(e.capability.name))
        .flatMap((e) =>
          Object.keys((e.tool.inputSchema as { properties?: object }).properties ?? {}).map(
            (k) => `${e.capability.name}.${k}`,
          ),
        );
      expect(ours.length).toBeGreaterThan(30);
      expect(ours.filter((k) => !camel.test(k.split('.').pop() as string))).toEqual([]);
      // ClaudeBench's instanceId (system.heartbeat, task.assign in its contract) is spelled the same here.
      expect(ours).toEqual(
        expect.arrayContaining(['system.register.instanceId', 'system.heartbeat.instanceId', 'task.assign.instanceId']),
      );
      // The old snake_case spellings are refused with the field named, not silently ignored.
      const out = await hub.call('system.register', { instance_id: 'w1' }, ADMIN);
      expect(failure(out, 'INVALID_INPUT')).toContain('instanceId');
    } finally {
      await hub.close();
    }
  });
});
