// One batching rule for records bound for the store (hub events, audit records): written at most BATCH_MS after
// the first one is queued, or at once when BATCH_MAX are waiting — few, big writes.

/** Records reach the store within this many ms of being queued… */
export const BATCH_MS = 50;
/** …or as soon as this many are waiting. */
export const BATCH_MAX = 500;

/**
 * When a queue is due: BATCH_MS after its first item, or at once when BATCH_MAX are waiting. One per queue, which
 * calls `added` after adding an item and `written` whenever it hands a batch over, however it came to (full, timer,
 * or an explicit flush): a batch written early must not leave its timer behind, or that timer would cut a later
 * batch short — under load, every batch (measured: 241 records on average instead of 500, BENCHMARKS.md).
 */
export class FlushTimer {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly flush: () => void) {}

  /** After adding an item, with how many are now queued. */
  added(queued: number): void {
    if (queued >= BATCH_MAX) this.flush();
    else if (queued === 1 && !this.timer) {
      this.timer = setTimeout(this.flush, BATCH_MS);
      this.timer.unref();
    }
  }

  /** The queue handed its batch over: the next one gets a timer of its own. */
  written(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }
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
  private readonly due = new FlushTimer(() => void this.flush());

  constructor(private readonly write: (batch: T[]) => Promise<void> | void) {}

  push(item: T): void {
    this.due.added(this.pending.push(item));
  }

  /** Hand everything queued to `write` now. */
  async flush(): Promise<void> {
    this.due.written();
    const batch = this.pending;
    this.pending = [];
    if (batch.length) await this.write(batch);
  }
}
