// The event history: what switchboard://events, system.get_state and late subscribers read. Hub events (tasks, instances,
// config, registry) are kept in the store, written in batches and trimmed to `[events] retain`; call events stay in
// memory only, because the durable record of every call is its audit record — writing each call twice would double
// the cost per call. On a shared store, every instance's recent calls are in the bus stream instead.
import type { Logger } from 'pino';
import type { BusEvent, EventBus } from '../core/context.ts';
import type { Store, StoredEvent } from '../store/contract.ts';
import { BatchQueue } from './batch.ts';
import { Ring } from './events.ts';
import { outwardEvent } from './redact.ts';
import type { SharedBus } from './shared-bus.ts';

/**
 * Notifications that say where to re-read (a transcript grew, a script run moved on a step, an MCP task changed state):
 * the transcript, the run journal and the task's document are the record, so these are not stored a second time,
 * only streamed.
 */
const STREAMED_ONLY = new Set(['agent.transcript', 'script.changed', 'mcp_task.changed']);

export class EventHistory {
  private readonly calls: Ring<BusEvent>;
  private appended = 0;
  private readonly queue: BatchQueue<BusEvent>;
  private readonly unsubscribe: () => void;

  /** `shared`: the bus across instances, when several share a store (then `bus` is that same bus). */
  constructor(
    private readonly store: Store,
    bus: EventBus,
    private readonly shared: SharedBus | undefined,
    retain: number,
    logger: Logger,
  ) {
    this.calls = new Ring<BusEvent>(retain);
    this.queue = new BatchQueue<BusEvent>(async (batch) => {
      this.appended += batch.length;
      // Trimming deletes through an index scan; once per thousand events is plenty.
      const trim = this.appended >= 1000;
      if (trim) this.appended = 0;
      try {
        await store.events.appendMany(batch);
        if (trim) await store.events.trim(retain);
      } catch (err) {
        logger.warn({ err }, 'event log append failed');
      }
    });
    // The log hears this instance's events only: each instance stores what it published (on Redis, other
    // instances' events are in the shared log and stream already).
    this.unsubscribe = (shared ? shared.subscribeLocal.bind(shared) : bus.subscribe.bind(bus))((event) => {
      if (retain === 0 || STREAMED_ONLY.has(event.type)) return;
      if (event.type === 'call') {
        if (!shared) this.calls.push(event);
        return;
      }
      this.queue.push(event);
    });
  }

  /** The newest `n` events, stored hub events and recent calls merged by time; calls carry seq 0 (not stored). */
  async recent(n: number): Promise<StoredEvent[]> {
    const stored = await this.store.events.recent(n);
    const calls = this.shared
      ? (await this.shared.recentCalls(n)).map((event) => ({ seq: 0, event }))
      : this.calls.last(n).map((event) => ({ seq: 0, event: outwardEvent(event) }));
    return [...stored, ...calls].sort((a, b) => String(a.event.at).localeCompare(String(b.event.at))).slice(-n);
  }

  /** Write the queued hub events now. */
  flush(): Promise<void> {
    return this.queue.flush();
  }

  /** Stop listening and write what is queued. */
  async close(): Promise<void> {
    this.unsubscribe();
    await this.flush();
  }
}
