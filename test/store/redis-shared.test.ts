// The Store contract's shared parts on Redis, part by part, with two stores on one prefix standing for two
// instances: MCP session records and the mailboxes that route a client's answer, the bus stream and its readers,
// and the shared secret. (The limits part is driven through the policy side in test/policy/shared-policy.test.ts.)
// An embedded store offers no shared state: a hub on it runs as a single instance.
import { afterEach, describe, expect, it } from 'vitest';
import type { RoutedMessage, Store } from '../../src/store/contract.ts';
import { SqliteStore } from '../../src/store/sqlite/index.ts';
import { twoTestStores } from '../helpers/redis.ts';
import { until } from '../helpers/until.ts';

const record = (id = 'alice') => ({
  principal: { id, roles: ['dev'] },
  initialize: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18' } },
  createdAt: '2030-01-01T00:00:00.000Z',
});

describe('Redis shared state', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function twoInstances() {
    const [a, b] = await twoTestStores(cleanup);
    return { a: a.shared, b: b.shared };
  }

  it('keeps an MCP session record every instance reads, until it idles out or is removed', async () => {
    const { a, b } = await twoInstances();
    await a.sessions.save('s-1', record(), 60_000);
    expect(await b.sessions.load('s-1')).toEqual(record());
    // A refresh gives a short-lived record its idle time again; s-3, saved later for longer and not refreshed, is
    // gone once s-2's first idle time has surely passed.
    await a.sessions.save('s-2', record(), 150);
    await b.sessions.refresh('s-2', 60_000);
    await a.sessions.save('s-3', record(), 200);
    await until(async () => (await b.sessions.load('s-3')) === undefined, { what: 's-3 to idle out' });
    expect(await b.sessions.load('s-2')).toEqual(record());
    await b.sessions.remove('s-1');
    expect(await a.sessions.load('s-1')).toBeUndefined();
    // Refreshing a session that is gone creates nothing.
    await a.sessions.refresh('s-1', 60_000);
    expect(await a.sessions.load('s-1')).toBeUndefined();
  });

  it('refuses a malformed session record, saying which field is wrong, and writes nothing', async () => {
    const { a } = await twoInstances();
    await expect(a.sessions.save('bad', { ...record(''), initialize: {} }, 60_000)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: 'principal.id must not be empty.',
    });
    await expect(
      a.sessions.save('bad', { ...record(), createdAt: 'yesterday' } as never, 60_000),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/^createdAt must be an ISO 8601/),
    });
    expect(await a.sessions.load('bad')).toBeUndefined();
  });

  it('gives a claim on a request to one taker, and routes a message to the instance that listens', async () => {
    const { a, b } = await twoInstances();
    await a.sessions.claim('s-1', '7', 'inst-a', 60_000);
    const takes = await Promise.all([b.sessions.take('s-1', '7'), a.sessions.take('s-1', '7')]);
    expect(takes.sort()).toEqual(['inst-a', undefined]);

    const heardByA: RoutedMessage[] = [];
    const heardByB: RoutedMessage[] = [];
    const stopA = a.sessions.listen('inst-a', (m) => heardByA.push(m));
    cleanup.push(
      stopA,
      b.sessions.listen('inst-b', (m) => heardByB.push(m)),
    );
    // Nobody listens on inst-c's mailbox: the send reports it was not received.
    expect(await b.sessions.send('inst-c', { sessionId: 's-1', message: {} })).toBe(false);
    // The subscription is made in the background: send until a listener receives.
    const answer = { sessionId: 's-1', message: { jsonrpc: '2.0', id: 7, result: { action: 'accept' } } };
    await until(() => b.sessions.send('inst-a', answer), { what: "inst-a's listener" });
    await until(() => heardByA.length, { what: 'the message at inst-a' });
    expect(heardByA).toEqual([answer]);
    expect(heardByB).toEqual([]);
    // Stopped: the mailbox has no listener once the connection is gone.
    stopA();
    await until(async () => !(await b.sessions.send('inst-a', answer)), { what: 'inst-a to stop listening' });
  });

  it('appends bus entries every reader sees from where the stream ended, and reads back the latest', async () => {
    const { a, b } = await twoInstances();
    await a.bus.append(['{"n":0}']);
    const reader = b.bus.reader();
    cleanup.push(() => reader.close());
    const end = await reader.end();
    // Nothing after the end yet: a read waits `waitMs` and answers no entries, at the same position.
    expect(await reader.read(end, 50)).toEqual({ entries: [], next: end });
    await a.bus.append(['{"n":1}', '{"n":2}']);
    const page = await reader.read(end, 1_000);
    expect(page.entries).toEqual(['{"n":1}', '{"n":2}']);
    expect((await reader.read(page.next, 50)).entries).toEqual([]);
    expect(await b.bus.latest(2)).toEqual(['{"n":2}', '{"n":1}']);
    expect(await b.bus.latest(0)).toEqual([]);
  });

  it('gives a ticket put on one instance to one taker on any, until it expires', async () => {
    const [storeA, storeB] = await twoTestStores(cleanup);
    const [a, b] = [storeA.shared, storeB.shared];
    await a.tickets.put('t-1', 'who', 60_000);
    const takes = await Promise.all([b.tickets.take('t-1'), a.tickets.take('t-1')]);
    expect(takes.sort()).toEqual(['who', undefined]);
    await a.tickets.put('t-2', 'short', 100);
    await a.tickets.put('t-3', 'long', 60_000);
    // Looked at without taking it: once Redis has dropped it, nobody takes it.
    await until(async () => (await storeB.client.exists(`${storeB.prefix}ticket:t-2`)) === 0, {
      what: 't-2 to expire',
    });
    expect(await b.tickets.take('t-2')).toBeUndefined();
    expect(await b.tickets.take('t-3')).toBe('long');
    expect(await b.tickets.take('made-up')).toBeUndefined();
  });

  it('hands every instance the same secret, made by the first to ask', async () => {
    const { a, b } = await twoInstances();
    const [fromA, fromB] = await Promise.all([a.secret('request-state'), b.secret('request-state')]);
    expect(fromA).toHaveLength(32);
    expect(Buffer.from(fromB).equals(Buffer.from(fromA))).toBe(true);
    expect(Buffer.from(await a.secret('other')).equals(Buffer.from(fromA))).toBe(false);
  });

  it('is absent on an embedded store', async () => {
    const store: Store = SqliteStore.open(':memory:');
    cleanup.push(() => store.close());
    expect(store.shared).toBeUndefined();
  });
});
