// One batching queue for records bound for the store (hub events, audit records): written at most
// BATCH_MS after the first one is queued, or at once when BATCH_MAX are waiting — few, big writes.

/** Records reach the store within this many ms of being queued… */
export const BATCH_MS = 50;
/** …or as soon as this many are waiting. */
export const BATCH_MAX = 500;

/**
 * Call after adding an item, with how many are now queued: schedules `flush` for the first of a batch (in
 * BATCH_MS) and runs it at once when BATCH_MAX are waiting. For queues that gather in their own shape (the
 * audit trail's columns); others use BatchQueue.
 */
export function whenDue(queued: number, flush: () => void): void {
  if (queued === 1) setTimeout(flush, BATCH_MS).unref();
  else if (queued >= BATCH_MAX) flush();
}

/**
 * Queues items and hands each batch to `write`, in order.
 *
 * @example
 * const q = new BatchQueue<Event>((batch) => store.events.appendMany(batch));
 * q.push(event);       // written within 50 ms
 * await q.flush();     // written now
 */
export class BatchQueue<T> {
  private pending: T[] = [];

  constructor(private readonly write: (batch: T[]) => Promise<void> | void) {}

  push(item: T): void {
    whenDue(this.pending.push(item), this.flushSoon);
  }

  private readonly flushSoon = () => void this.flush();

  /** Hand everything queued to `write` now. */
  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length) await this.write(batch);
  }
}
