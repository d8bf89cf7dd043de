// The built-in task domain through the real pipeline: schemas, defaults, the lifecycle and its errors,
// pagination, instance checks and the task.changed events — as a model calling the tools would see them.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HubEvent } from '../../../src/core/context.ts';
import type { Outcome } from '../../../src/core/pipeline.ts';
import type { Task } from '../../../src/store/contract.ts';
import { ADMIN, type TestHub, testHub } from '../../helpers/hub.ts';

/** A principal that did not create the test's tasks (they are created as ADMIN). */
const OTHER = { id: 'someone-else', roles: ['*'] };

let hub: TestHub;
let events: HubEvent[];

beforeEach(async () => {
  hub = await testHub();
  events = [];
  hub.services.bus.subscribe((e) => {
    if (e.type === 'task.changed') events.push(e as HubEvent);
  });
});
afterEach(async () => {
  await hub.close();
});

const create = (input: Record<string, unknown> = {}) =>
  hub.value<Task>('task.create', { text: 'Write the README', ...input });
const live = (id = 'w1') => hub.services.store.instances.register(id, ['coder'], 60_000);

/** A task moved to `status` through the capabilities themselves. */
async function taskIn(status: Task['status']): Promise<Task> {
  const task = await create();
  if (status === 'pending') return task;
  if (status === 'failed') return hub.value('task.fail', { id: task.id, reason: 'not needed' });
  await live();
  const assigned = await hub.value<Task>('task.assign', { id: task.id, instanceId: 'w1' });
  if (status === 'assigned') return assigned;
  const started = await hub.value<Task>('task.start', { id: task.id });
  if (status === 'in_progress') return started;
  return hub.value('task.complete', { id: task.id });
}

function expectError(
  out: Outcome,
  code: string,
  ...fragments: string[]
): { code: string; message: string; details?: Record<string, unknown> } {
  expect(out.ok).toBe(false);
  if (out.ok) throw new Error('expected a failure');
  expect(out.error.code).toBe(code);
  for (const f of fragments) expect(out.error.message).toContain(f);
  return out.error;
}

describe('task catalog', () => {
  it('registers every task capability with titles, schemas and annotations', () => {
    const tools = hub.services.registry.list().filter((e) => e.capability.name.startsWith('task.'));
    expect(tools.map((e) => e.capability.name)).toEqual([
      'task.assign',
      'task.attach',
      'task.attachments',
      'task.batch_create',
      'task.claim',
      'task.complete',
      'task.create',
      'task.delete',
      'task.fail',
      'task.get',
      'task.list',
      'task.metrics',
      'task.start',
      'task.unassign',
      'task.update',
    ]);
    for (const { capability, tool } of tools) {
      expect(capability).toMatchObject({ source: 'builtin', feature: 'task' });
      expect(capability.roles).toBeUndefined();
      expect(tool.title).toEqual(expect.any(String));
      expect(tool.description.length).toBeGreaterThan(60);
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
      expect(tool.annotations).toMatchObject({ openWorldHint: false });
    }
    const readOnly = tools.filter((e) => e.tool.annotations?.readOnlyHint).map((e) => e.capability.name);
    expect(readOnly).toEqual(['task.attachments', 'task.get', 'task.list', 'task.metrics']);
  });

  it('advertises the create defaults and limits in its JSON Schema', () => {
    const schema = hub.services.registry.get('task__create')!.tool.inputSchema as {
      properties: Record<string, any>;
      required: string[];
    };
    expect(schema.required).toEqual(['text']);
    expect(schema.properties.text).toMatchObject({ minLength: 1, maxLength: 500 });
    expect(schema.properties.priority).toMatchObject({ default: 50, minimum: 0, maximum: 100 });
  });
});

describe('task.create', () => {
  it('creates a pending task with priority 50 by default', async () => {
    const task = await create();
    expect(task).toMatchObject({
      id: expect.stringMatching(/^t-/),
      text: 'Write the README',
      priority: 50,
      status: 'pending',
      type: null,
      metadata: null,
      assignedTo: null,
      result: null,
      error: null,
      completedAt: null,
      version: 1,
    });
  });

  it('keeps priority, type and metadata', async () => {
    const task = await create({ priority: 90, type: 'docs', metadata: { files: ['README.md'] } });
    expect(task).toMatchObject({ priority: 90, type: 'docs', metadata: { files: ['README.md'] } });
    expect(await hub.value('task.get', { id: task.id })).toEqual(task);
  });

  it.each([
    [{ text: '' }, 'text'],
    [{ text: 'x'.repeat(501) }, 'text'],
    [{}, 'text'],
    [{ text: 'x', priority: 101 }, 'priority'],
    [{ text: 'x', priority: -1 }, 'priority'],
    [{ text: 'x', priority: 1.5 }, 'priority'],
    [{ text: 'x', priority: '5' }, 'priority'],
    [{ text: 'x', type: '' }, 'type'],
    [{ text: 'x', metadata: [1, 2] }, 'metadata'],
    [{ text: 'x', status: 'completed' }, 'status'],
  ])('rejects %j naming the field %s', async (input, field) => {
    const error = expectError(await hub.call('task.create', input), 'INVALID_INPUT', field);
    expect(((error.details?.issues ?? []) as { path: string }[]).map((i) => i.path).join(' ')).toContain(
      field === 'status' ? '(root)' : field,
    );
    expect((await hub.value('task.list')).tasks).toEqual([]);
  });
});

describe('task.create with an idempotency key', () => {
  const withMeta = (input: Record<string, unknown>, meta: Record<string, unknown>, principal = ADMIN) =>
    hub.pipeline.call({ principal, name: 'task.create', input, transport: 'http', meta });

  it('answers a retry with the same key and input with the first task, creating and announcing it once', async () => {
    const first = await create({ idempotencyKey: 'req-1', priority: 7 });
    const again = await create({ idempotencyKey: 'req-1', priority: 7 });
    expect(again).toEqual(first);
    expect(first).not.toHaveProperty('idempotencyKey');
    expect((await hub.value('task.list')).tasks.map((t: Task) => t.id)).toEqual([first.id]);
    expect(events.filter((e) => e.action === 'create')).toHaveLength(1);
    // Without a key, every call creates.
    await create();
    await create();
    expect((await hub.value('task.list')).tasks).toHaveLength(3);
  });

  it('takes the key from MCP _meta "switchboard/idempotency-key" as well, the same key as the input field', async () => {
    const viaMeta = await withMeta({ text: 'Write the README' }, { 'switchboard/idempotency-key': 'req-2' });
    expect(viaMeta.ok).toBe(true);
    expect(await create({ idempotencyKey: 'req-2' })).toEqual(viaMeta.ok && viaMeta.value);
    expect((await hub.value('task.list')).tasks).toHaveLength(1);
  });

  it('keeps keys per principal: the same key from another principal creates its own task', async () => {
    const mine = await withMeta({ text: 'x' }, { 'switchboard/idempotency-key': 'shared' });
    const theirs = await withMeta(
      { text: 'x' },
      { 'switchboard/idempotency-key': 'shared' },
      { id: 'bob', roles: ['*'] },
    );
    expect([mine.ok, theirs.ok]).toEqual([true, true]);
    const ids = [mine, theirs].map((out) => (out.ok ? (out.value as Task).id : undefined));
    expect(ids[0]).not.toBe(ids[1]);
    expect((await hub.value('task.list')).tasks).toHaveLength(2);
  });

  it('refuses a key reused with different input with CONFLICT saying so, and creates nothing', async () => {
    await create({ idempotencyKey: 'req-3', text: 'first' });
    const out = await hub.call('task.create', { idempotencyKey: 'req-3', text: 'second' });
    expectError(
      out,
      'CONFLICT',
      "Idempotency key 'req-3' was already used for a different task.create request",
      'send a new key for a new request',
    );
    expect((await hub.value('task.list')).tasks.map((t: Task) => t.text)).toEqual(['first']);
  });

  it('refuses a malformed key, or two different keys, with INVALID_INPUT saying what is expected', async () => {
    expectError(await hub.call('task.create', { text: 'x', idempotencyKey: '' }), 'INVALID_INPUT', 'idempotencyKey');
    expectError(
      await withMeta({ text: 'x' }, { 'switchboard/idempotency-key': 42 }),
      'INVALID_INPUT',
      '_meta "switchboard/idempotency-key" (or the Idempotency-Key header): Invalid input: expected string',
    );
    expectError(
      await withMeta({ text: 'x', idempotencyKey: 'a' }, { 'switchboard/idempotency-key': 'b' }),
      'INVALID_INPUT',
      "idempotencyKey 'a' and _meta \"switchboard/idempotency-key\" (or the Idempotency-Key header) 'b' differ",
    );
    expect((await hub.value('task.list')).tasks).toEqual([]);
  });
});

describe('task.get', () => {
  it('answers NOT_FOUND for an unknown id', async () => {
    const error = expectError(await hub.call('task.get', { id: 't-x' }), 'NOT_FOUND', "Task 't-x' does not exist.");
    expect(error.details).toEqual({ id: 't-x' });
  });

  it('requires an id', async () => {
    expectError(await hub.call('task.get', {}), 'INVALID_INPUT', 'id');
  });
});

describe('task.list', () => {
  it('lists highest priority first, then oldest first, 50 by default', async () => {
    const low = await create({ priority: 10 });
    const high = await create({ priority: 90 });
    const mid1 = await create();
    const mid2 = await create();
    const page = await hub.value('task.list');
    expect(page.tasks.map((t: Task) => t.id)).toEqual([high.id, mid1.id, mid2.id, low.id]);
    expect(page.nextCursor).toBeNull();
  });

  it('pages through every task once with limit and cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await create({ text: `t${i}`, priority: i % 2 ? 50 : 60 })).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await hub.value('task.list', { limit: 5, ...(cursor ? { cursor } : {}) });
      seen.push(...page.tasks.map((t: Task) => t.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(12);
    expect(seen).toEqual([...ids.filter((_, i) => i % 2 === 0), ...ids.filter((_, i) => i % 2 === 1)]);
  });

  it('filters by a single status, several statuses, assignee and type', async () => {
    const pending = await create({ type: 'bug' });
    const assigned = await taskIn('assigned');
    const failed = await taskIn('failed');
    const ids = async (input: Record<string, unknown>) =>
      (await hub.value('task.list', input)).tasks.map((t: Task) => t.id);
    expect(await ids({ status: 'pending' })).toEqual([pending.id]);
    expect((await ids({ status: ['assigned', 'failed'] })).sort()).toEqual([assigned.id, failed.id].sort());
    expect(await ids({ assignedTo: 'w1' })).toEqual([assigned.id]);
    expect(await ids({ type: 'bug' })).toEqual([pending.id]);
  });

  it.each([
    [{ status: 'done' }, 'status'],
    [{ status: [] }, 'status'],
    [{ limit: 0 }, 'limit'],
    [{ limit: 501 }, 'limit'],
    [{ cursor: '' }, 'cursor'],
  ])('rejects %j naming %s', async (input, field) => {
    expectError(await hub.call('task.list', input), 'INVALID_INPUT', field);
  });

  it('explains the accepted statuses when the status filter is wrong', async () => {
    expectError(
      await hub.call('task.list', { status: 'done' }),
      'INVALID_INPUT',
      'pending, assigned, in_progress, completed, failed',
    );
  });

  it('rejects a cursor it did not issue with INVALID_INPUT', async () => {
    await create();
    expectError(await hub.call('task.list', { cursor: 'bogus' }), 'INVALID_INPUT', 'cursor', 'nextCursor');
  });
});

describe('task.update', () => {
  it('changes only the given fields and bumps the version', async () => {
    const task = await create({ type: 'bug', metadata: { a: 1 } });
    const updated = await hub.value<Task>('task.update', { id: task.id, text: 'Rewrite the README', priority: 80 });
    expect(updated).toMatchObject({
      text: 'Rewrite the README',
      priority: 80,
      type: 'bug',
      metadata: { a: 1 },
      status: 'pending',
      version: 2,
    });
  });

  it('replaces metadata as a whole and clears type and metadata with null', async () => {
    const task = await create({ type: 'bug', metadata: { a: 1 } });
    expect(await hub.value('task.update', { id: task.id, metadata: { b: 2 } })).toMatchObject({ metadata: { b: 2 } });
    expect(await hub.value('task.update', { id: task.id, type: null, metadata: null })).toMatchObject({
      type: null,
      metadata: null,
    });
  });

  it('works while assigned or in progress and keeps the status', async () => {
    const task = await taskIn('in_progress');
    expect(await hub.value('task.update', { id: task.id, priority: 1 })).toMatchObject({
      status: 'in_progress',
      priority: 1,
      assignedTo: 'w1',
    });
  });

  it('refuses to change status and points to the lifecycle tools', async () => {
    const task = await create();
    expectError(
      await hub.call('task.update', { id: task.id, status: 'completed' }),
      'INVALID_INPUT',
      'status',
      'task.complete',
    );
  });

  it('needs at least one field to change', async () => {
    const task = await create();
    expectError(await hub.call('task.update', { id: task.id }), 'INVALID_INPUT', 'at least one field');
  });

  it('rejects an empty text naming the field', async () => {
    const task = await create();
    expectError(await hub.call('task.update', { id: task.id, text: '' }), 'INVALID_INPUT', 'text');
  });

  it.each(['completed', 'failed'] as const)('refuses to edit a %s task', async (status) => {
    const task = await taskIn(status);
    const error = expectError(
      await hub.call('task.update', { id: task.id, text: 'x' }),
      'CONFLICT',
      `is ${status}`,
      'cannot be updated',
      'final',
    );
    expect(error.details).toEqual({ status, allowed: [] });
  });

  it('answers NOT_FOUND for an unknown id', async () => {
    expectError(await hub.call('task.update', { id: 't-x', text: 'y' }), 'NOT_FOUND', "Task 't-x' does not exist.");
  });
});

describe('task lifecycle', () => {
  it('walks pending → assigned → in_progress → completed with a result', async () => {
    const task = await create();
    await live('w1');
    const assigned = await hub.value<Task>('task.assign', { id: task.id, instanceId: 'w1' });
    expect(assigned).toMatchObject({ status: 'assigned', assignedTo: 'w1', version: 2 });
    const started = await hub.value<Task>('task.start', { id: task.id });
    expect(started).toMatchObject({ status: 'in_progress', assignedTo: 'w1', version: 3 });
    const done = await hub.value<Task>('task.complete', { id: task.id, result: { pr: 'https://example.com/pr/1' } });
    expect(done).toMatchObject({
      status: 'completed',
      assignedTo: 'w1',
      result: { pr: 'https://example.com/pr/1' },
      version: 4,
    });
    expect(done.completedAt).toEqual(expect.any(String));
  });

  it('completes an assigned task directly, without a result', async () => {
    const task = await taskIn('assigned');
    expect(await hub.value('task.complete', { id: task.id })).toMatchObject({ status: 'completed', result: null });
  });

  it.each(['pending', 'assigned', 'in_progress'] as const)('fails a %s task with its reason', async (status) => {
    const task = await taskIn(status);
    const failed = await hub.value<Task>('task.fail', { id: task.id, reason: 'The API is gone.' });
    expect(failed).toMatchObject({ status: 'failed', error: 'The API is gone.' });
    expect(failed.completedAt).toEqual(expect.any(String));
  });

  it('requires a fail reason of 1..2000 characters', async () => {
    const task = await create();
    expectError(await hub.call('task.fail', { id: task.id }), 'INVALID_INPUT', 'reason');
    expectError(await hub.call('task.fail', { id: task.id, reason: '' }), 'INVALID_INPUT', 'reason');
    expectError(await hub.call('task.fail', { id: task.id, reason: 'x'.repeat(2001) }), 'INVALID_INPUT', 'reason');
  });

  // Every action × every status it is illegal from, with the message and details a model recovers from.
  const illegal: [string, Task['status'], Record<string, unknown>, string, string[]][] = [
    [
      'task.assign',
      'assigned',
      { instanceId: 'w1' },
      'cannot be assigned',
      ['task.complete', 'task.fail', 'task.start', 'task.unassign', 'task.update'],
    ],
    [
      'task.assign',
      'in_progress',
      { instanceId: 'w1' },
      'cannot be assigned',
      ['task.complete', 'task.fail', 'task.unassign', 'task.update'],
    ],
    ['task.assign', 'completed', { instanceId: 'w1' }, 'cannot be assigned', []],
    ['task.assign', 'failed', { instanceId: 'w1' }, 'cannot be assigned', []],
    ['task.start', 'pending', {}, 'cannot be started', ['task.assign', 'task.fail', 'task.update']],
    [
      'task.start',
      'in_progress',
      {},
      'cannot be started',
      ['task.complete', 'task.fail', 'task.unassign', 'task.update'],
    ],
    ['task.start', 'completed', {}, 'cannot be started', []],
    ['task.start', 'failed', {}, 'cannot be started', []],
    ['task.complete', 'pending', {}, 'cannot be completed', ['task.assign', 'task.fail', 'task.update']],
    ['task.complete', 'completed', {}, 'cannot be completed', []],
    ['task.complete', 'failed', {}, 'cannot be completed', []],
    ['task.fail', 'completed', { reason: 'x' }, 'cannot be failed', []],
    ['task.fail', 'failed', { reason: 'x' }, 'cannot be failed', []],
  ];
  it.each(illegal)(
    '%s on a %s task is a CONFLICT naming the status and what is allowed',
    async (name, status, extra, phrase, allowed) => {
      const task = await taskIn(status);
      await live('w1');
      // Completing a pending task is refused to anyone but its creator (the creator's case: task-claudebench.test.ts).
      const error = expectError(
        await hub.call(name, { id: task.id, ...extra }, OTHER),
        'CONFLICT',
        `Task '${task.id}' is ${status}`,
        phrase,
      );
      expect(error.details).toEqual({ status, allowed });
      expect(error.message).toContain(allowed.length ? `Allowed from ${status}: ${allowed.join(', ')}.` : 'final');
      // Nothing changed.
      expect(await hub.value('task.get', { id: task.id })).toEqual(task);
    },
  );

  it.each([
    ['task.assign', { instanceId: 'w1' }],
    ['task.start', {}],
    ['task.complete', {}],
    ['task.fail', { reason: 'x' }],
  ])('%s answers NOT_FOUND for an unknown task', async (name, extra) => {
    await live('w1');
    expectError(await hub.call(name, { id: 't-x', ...extra }), 'NOT_FOUND', "Task 't-x' does not exist.");
  });
});

describe('task.assign', () => {
  it('refuses an instance that never registered, naming it', async () => {
    const task = await create();
    const error = expectError(
      await hub.call('task.assign', { id: task.id, instanceId: 'ghost' }),
      'NOT_FOUND',
      "Instance 'ghost'",
      'system.register',
    );
    expect(error.details).toEqual({ instanceId: 'ghost' });
    expect(await hub.value('task.get', { id: task.id })).toMatchObject({ status: 'pending', version: 1 });
  });

  it('refuses an instance whose lease expired, even before the sweep removed it', async () => {
    const task = await create();
    // The lease is stamped with Date.now: freeze it, then move it past the 1 ms lease instead of sleeping.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      await hub.services.store.instances.register('w-old', [], 1);
      vi.setSystemTime(Date.now() + 20);
      expectError(
        await hub.call('task.assign', { id: task.id, instanceId: 'w-old' }),
        'NOT_FOUND',
        "Instance 'w-old'",
        'expired',
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it('without instanceId, refuses when no instance is live, saying how one registers', async () => {
    const task = await create();
    expectError(await hub.call('task.assign', { id: task.id }), 'NOT_FOUND', 'No live instance', 'system.register');
  });

  it('lets only one of two racing assignments win', async () => {
    const task = await create();
    await live('w1');
    await live('w2');
    const outs = await Promise.all(['w1', 'w2'].map((w) => hub.call('task.assign', { id: task.id, instanceId: w })));
    expect(outs.filter((o) => o.ok)).toHaveLength(1);
    const loser = outs.find((o) => !o.ok);
    expect(loser && !loser.ok && loser.error.code).toBe('CONFLICT');
  });
});

describe('task.changed events', () => {
  it('publishes one event per change with id, status, action and time', async () => {
    const task = await create();
    await live('w1');
    await hub.value('task.update', { id: task.id, priority: 60 });
    await hub.value('task.assign', { id: task.id, instanceId: 'w1' });
    await hub.value('task.start', { id: task.id });
    const done = await hub.value<Task>('task.complete', { id: task.id });
    const other = await create();
    await hub.value('task.fail', { id: other.id, reason: 'dup' });

    expect(events.map((e) => [e.id, e.status, e.action])).toEqual([
      [task.id, 'pending', 'create'],
      [task.id, 'pending', 'update'],
      [task.id, 'assigned', 'assign'],
      [task.id, 'in_progress', 'start'],
      [task.id, 'completed', 'complete'],
      [other.id, 'pending', 'create'],
      [other.id, 'failed', 'fail'],
    ]);
    expect(events.every((e) => e.type === 'task.changed')).toBe(true);
    expect(events[4].at).toBe(done.updatedAt);
  });

  it('publishes nothing for reads and refused changes', async () => {
    const task = await create();
    events.length = 0;
    await hub.call('task.get', { id: task.id });
    await hub.call('task.list', {});
    await hub.call('task.complete', { id: task.id }, OTHER);
    await hub.call('task.update', { id: 't-x', text: 'y' });
    expect(events).toEqual([]);
  });
});

describe('registerTask', () => {
  it('stop removes the task capabilities again', async () => {
    const { registerTask } = await import('../../../src/sources/builtin/task/index.ts');
    hub.services.registry.removeSource('builtin');
    const stop = registerTask(hub.services);
    expect(hub.services.registry.get('task.create')).toBeDefined();
    stop();
    expect(hub.services.registry.list().filter((e) => e.capability.name.startsWith('task.'))).toEqual([]);
  });
});
