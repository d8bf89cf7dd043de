// The Redis event bus: two buses on one prefix stand for two instances — an event published on one reaches the
// other's followers (redacted, tagged with its origin), local-only subscribers hear only their own instance, and
// recent calls of every instance are read back from the stream.
import { afterEach, describe, expect, it } from 'vitest';
import type { BusEvent } from '../../src/core/context.ts';
import { createLogger } from '../../src/observe/logger.ts';
import { RedisBus } from '../../src/observe/redis-bus.ts';
import { RedisStore } from '../../src/store/redis/index.ts';
import { openTestStore, REDIS_URL } from '../helpers/redis.ts';

const logger = createLogger('silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const call = (name: string, input: unknown): BusEvent => ({
  type: 'call',
  name,
  input,
  principal: 'p',
  transport: 'http',
  requestId: `r-${name}`,
  durationMs: 1,
  at: new Date().toISOString(),
});

async function until(fn: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > end) throw new Error('timed out');
    await sleep(20);
  }
}

describe('RedisBus', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function twoBuses() {
    const sa = await openTestStore();
    const sb = await RedisStore.open({ url: REDIS_URL, prefix: sa.prefix });
    const a = new RedisBus(sa, 'inst-a', logger);
    const b = new RedisBus(sb, 'inst-b', logger);
    cleanup.push(
      () => sa.drop(),
      () => sb.close(),
      () => a.close(),
      () => b.close(),
    );
    return { a, b };
  }

  it('delivers an event published on one instance to followers on the other, redacted and tagged', async () => {
    const { a, b } = await twoBuses();
    const onB: BusEvent[] = [];
    const onBLocal: BusEvent[] = [];
    b.subscribe((e) => onB.push(e));
    b.subscribeLocal((e) => onBLocal.push(e));
    await sleep(200); // the reader resolved the stream's end
    a.publish(call('task.create', { text: 'x', api_key: 'secret-value' }));
    a.publish({ type: 'task.changed', id: 't-1', at: new Date().toISOString() });
    await until(() => onB.length >= 2);
    expect(onB.map((e) => e.type)).toEqual(['call', 'task.changed']);
    expect(onB[0]).toMatchObject({ origin: 'inst-a', name: 'task.create' });
    expect(JSON.stringify(onB[0])).not.toContain('secret-value');
    // Local-only subscribers hear their own instance alone.
    expect(onBLocal).toEqual([]);
  });

  it('does not echo an instance its own events back', async () => {
    const { a } = await twoBuses();
    const heard: BusEvent[] = [];
    a.subscribe((e) => heard.push(e));
    await sleep(200);
    a.publish(call('x', {}));
    await sleep(300);
    expect(heard).toHaveLength(1);
  });

  it('reads the recent calls of every instance from the stream, oldest first', async () => {
    const { a, b } = await twoBuses();
    a.publish(call('one', {}));
    await a.flush();
    b.publish({ type: 'task.changed', at: new Date().toISOString() });
    b.publish(call('two', {}));
    await b.flush();
    const recent = await a.recentCalls(10);
    expect(recent.map((e) => (e as { name: string }).name)).toEqual(['one', 'two']);
    expect(await b.recentCalls(1)).toMatchObject([{ name: 'two' }]);
  });
});
