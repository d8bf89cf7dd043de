// One batching queue for records bound for the store (hub events, audit records): written at most
// BATCH_MS after the first one is queued, or at once when BATCH_MAX are waiting — few, big writes.

/** Records reach the store within this many ms of being queued… */
export const BATCH_MS = 50;
/** …or as soon as this many are waiting. */
export const BATCH_MAX = 500;

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
    const n = this.pending.push(item);
    if (n === 1) setTimeout(() => void this.flush(), BATCH_MS).unref();
    else if (n >= BATCH_MAX) void this.flush();
  }

  /** Hand everything queued to `write` now. */
  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length) await this.write(batch);
  }
}
