// The event bus across instances: local subscribers hear an event at once (as on the in-process bus), and it is
// appended to the shared store's bus stream, which every other instance reads, so a subscriber anywhere sees every
// instance's events.
import type { Logger } from 'pino';
import type { BusEvent, EventBus } from '../core/context.ts';
import type { BusStreamPart, BusStreamReader } from '../store/contract.ts';
import { InProcessBus } from './events.ts';
import { outwardEvent } from './redact.ts';

/** How long one waiting read waits before the loop checks whether it should stop. */
const BLOCK_MS = 1_000;

/** A bus event that arrived from another instance carries the id of the instance that published it. */
export type RemoteEvent = BusEvent & { origin: string };

/** Whether an event came from another instance (its stored or logged copy is that instance's business). */
export function isRemote(event: BusEvent, instanceId: string): boolean {
  const origin = (event as { origin?: unknown }).origin;
  return typeof origin === 'string' && origin !== instanceId;
}

/**
 * Publishes locally and to the shared stream; a reader on its own connection delivers other instances' events
 * (tagged with `origin`). Events leave the process redacted (`outwardEvent`), like every other exit. Writes are
 * batched once per event-loop turn; while the store is away they are dropped (logged once) — the event log and the
 * audit trail, not the live bus, are the durable record.
 *
 * @example
 * const bus = new SharedBus(store.shared.bus, instanceId, logger);
 * bus.subscribe((e) => console.error(e.type)); // hears events of every instance on the store
 */
export class SharedBus implements EventBus {
  /** Followers of every instance's events. */
  private readonly everyone = new InProcessBus();
  /** Listeners to this instance's events only. */
  private readonly mine = new InProcessBus();
  private readonly reader: BusStreamReader;
  private pending: string[] = [];
  private scheduled = false;
  private stopped = false;
  private warned = false;
  private loop: Promise<void> = Promise.resolve();
  private reading = false;
  /** Subscribers that want other instances' events too (live streams); the reader runs only while there are any. */
  private followers = 0;

  constructor(
    private readonly stream: BusStreamPart,
    private readonly instanceId: string,
    private readonly logger: Logger,
  ) {
    this.reader = stream.reader();
  }

  publish(event: BusEvent): void {
    this.mine.publish(event);
    this.everyone.publish(event);
    if (this.stopped || isRemote(event, this.instanceId)) return;
    this.pending.push(JSON.stringify({ ...outwardEvent(event), origin: this.instanceId }));
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /** Hear every instance's events. The stream is read only while someone follows it: reading costs every instance. */
  subscribe(listener: (event: BusEvent) => void): () => void {
    const off = this.everyone.subscribe(listener);
    this.followers++;
    this.follow();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      off();
      this.followers--;
    };
  }

  /** Start the reader unless it runs; a reader that ends while someone follows again is restarted. */
  private follow(): void {
    if (this.reading || this.stopped || this.followers === 0) return;
    this.reading = true;
    this.loop = this.read().finally(() => {
      this.reading = false;
      this.follow();
    });
  }

  /** Hear this instance's events only (the hub's own event log: each instance stores what it published). */
  subscribeLocal(listener: (event: BusEvent) => void): () => void {
    return this.mine.subscribe(listener);
  }

  /**
   * The newest `n` call events of every instance, oldest first, read from the stream (already redacted). Call
   * events are not stored in the event log; on a shared store the stream is where every instance's recent calls are.
   */
  async recentCalls(n: number): Promise<BusEvent[]> {
    await this.flush();
    if (n <= 0) return [];
    // Hub events share the stream; read a few times more entries than asked to find n calls among them.
    const entries = await this.stream.latest(n * 4);
    const calls: BusEvent[] = [];
    for (const data of entries) {
      const event = parse(data);
      if (event?.type === 'call') calls.push(event);
      if (calls.length >= n) break;
    }
    return calls.reverse();
  }

  /** Write what is queued now (one round trip). */
  async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      await this.stream.append(batch);
      this.warned = false;
    } catch (err) {
      if (!this.warned)
        this.logger.warn({ err: (err as Error).message }, 'event bus: shared store unreachable, events stay local');
      this.warned = true;
    }
  }

  /** Read the stream from its end onwards (the reader waits on a connection of its own). */
  private async read(): Promise<void> {
    // Resolved once per run of the reader, so events written between two reads are not skipped.
    let last: string | undefined;
    try {
      while (!this.stopped && this.followers > 0) {
        try {
          last ??= await this.reader.end();
          const { entries, next } = await this.reader.read(last, BLOCK_MS);
          last = next;
          for (const data of entries) {
            if (this.stopped) break;
            const event = parse(data) as RemoteEvent | undefined;
            if (event && event.origin !== this.instanceId) this.everyone.publish(event);
          }
        } catch (err) {
          if (this.stopped) break;
          this.logger.debug({ err: (err as Error).message }, 'event bus: read failed, retrying');
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    } finally {
      // Closed only when the bus stops; a pause between followers keeps the connection for the next one.
      if (this.stopped) this.reader.close();
    }
  }

  /** Stop reading and write what is still queued. */
  async close(): Promise<void> {
    await this.flush();
    this.stopped = true;
    // Ends a waiting read at once instead of waiting for its timeout.
    this.reader.close();
    await this.loop.catch(() => {});
  }
}

/** An entry of the stream as an event; undefined for one that is not JSON (not ours). */
function parse(data: string): BusEvent | undefined {
  try {
    return JSON.parse(data) as BusEvent;
  } catch {
    return undefined;
  }
}
