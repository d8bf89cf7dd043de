// The event bus across instances, on the Redis store's bus stream: two buses on one prefix stand for two instances —
// an event published on one reaches the other's followers (redacted, tagged with its origin), local-only subscribers
// hear only their own instance, and recent calls of every instance are read back from the stream.
import { afterEach, describe, expect, it } from 'vitest';
import type { BusEvent } from '../../src/core/context.ts';
import { createLogger } from '../../src/observe/logger.ts';
import { SharedBus } from '../../src/observe/shared-bus.ts';
import { twoTestStores } from '../helpers/redis.ts';
import { until } from '../helpers/until.ts';

const logger = createLogger('silent');
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

/**
 * Wait until `heard` (filled by a subscriber) receives what `from` publishes now, then drop the probes from it. A
 * reader skips what was written before it found the stream's end, so probe until one arrives; the stream is ordered,
 * so once the latest probe is heard no earlier one is still on its way.
 */
async function hearing(heard: BusEvent[], from: SharedBus): Promise<void> {
  const probe = (e: BusEvent) => (e.type === 'call' ? String(e.name) : '');
  let n = 0;
  await until(
    () => {
      const last = `probe-${n}`;
      if (heard.some((e) => probe(e) === last)) return true;
      from.publish(call(`probe-${++n}`, {}));
      return false;
    },
    { timeoutMs: 5_000, everyMs: 50, what: 'a probe across the bus' },
  );
  const rest = heard.filter((e) => !probe(e).startsWith('probe-'));
  heard.splice(0, heard.length, ...rest);
}

describe('SharedBus', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function twoBuses() {
    const [sa, sb] = await twoTestStores(cleanup);
    const a = new SharedBus(sa.shared.bus, 'inst-a', logger);
    const b = new SharedBus(sb.shared.bus, 'inst-b', logger);
    cleanup.push(
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
    await hearing(onB, a);
    a.publish(call('task.create', { text: 'x', api_key: 'secret-value' }));
    a.publish({ type: 'task.changed', id: 't-1', at: new Date().toISOString() });
    await until(() => onB.length >= 2, { timeoutMs: 5_000, what: 'both events on B' });
    expect(onB.map((e) => e.type)).toEqual(['call', 'task.changed']);
    expect(onB[0]).toMatchObject({ origin: 'inst-a', name: 'task.create' });
    expect(JSON.stringify(onB[0])).not.toContain('secret-value');
    // Local-only subscribers hear their own instance alone.
    expect(onBLocal).toEqual([]);
  });

  it('does not echo an instance its own events back', async () => {
    const { a, b } = await twoBuses();
    const heard: BusEvent[] = [];
    a.subscribe((e) => heard.push(e));
    await hearing(heard, b);
    a.publish(call('x', {}));
    // The reader has passed x (and any echo of it) once it hears what b publishes after it.
    await a.flush();
    await hearing(heard, b);
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
