// The event bus across instances: local subscribers hear an event at once (as on the in-process bus), and it is
// appended to a Redis Stream that every other instance reads, so a subscriber anywhere sees every instance's events.
import type { Logger } from 'pino';
import type { BusEvent, EventBus } from '../core/context.ts';
import { RedisStore } from '../store/redis/index.ts';
import { InProcessBus } from './events.ts';
import { outwardEvent } from './redact.ts';

/** The stream keeps about this many entries (approximate trim: cheap, and readers only need the recent tail). */
export const BUS_STREAM_MAXLEN = 10_000;
/** How long one blocking read waits before the loop checks whether it should stop. */
const BLOCK_MS = 1_000;

/** A bus event that arrived from another instance carries the id of the instance that published it. */
export type RemoteEvent = BusEvent & { origin: string };

/** Whether an event came from another instance (its stored or logged copy is that instance's business). */
export function isRemote(event: BusEvent, instanceId: string): boolean {
  const origin = (event as { origin?: unknown }).origin;
  return typeof origin === 'string' && origin !== instanceId;
}

/**
 * Publishes locally and to the stream `<prefix>bus`; a reader on its own connection delivers other instances'
 * events (tagged with `origin`). Events leave the process redacted (`outwardEvent`), like every other exit.
 * Writes are pipelined once per event-loop turn; while Redis is away they are dropped (logged once) — the event
 * log and the audit trail, not the live bus, are the durable record.
 *
 * @example
 * const bus = new RedisBus(store, instanceId, logger);
 * bus.subscribe((e) => console.error(e.type)); // hears events of every instance on the prefix
 */
export class RedisBus implements EventBus {
  /** Followers of every instance's events. */
  private readonly everyone = new InProcessBus();
  /** Listeners to this instance's events only. */
  private readonly mine = new InProcessBus();
  private readonly key: string;
  private readonly conn: ReturnType<typeof RedisStore.connect>;
  private pending: string[] = [];
  private scheduled = false;
  private stopped = false;
  private warned = false;
  private loop: Promise<void> = Promise.resolve();
  private reading = false;
  /** Subscribers that want other instances' events too (live streams); the reader runs only while there are any. */
  private followers = 0;

  constructor(
    private readonly store: RedisStore,
    private readonly instanceId: string,
    private readonly logger: Logger,
  ) {
    this.key = `${store.prefix}bus`;
    this.conn = RedisStore.connect(store.url, { lazy: true });
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
   * events are not stored in the event log; on Redis the stream is where every instance's recent calls are.
   */
  async recentCalls(n: number): Promise<BusEvent[]> {
    await this.flush();
    if (n <= 0) return [];
    // Hub events share the stream; read a few times more entries than asked to find n calls among them.
    const entries = await this.store.io(() => this.store.client.xrevrange(this.key, '+', '-', 'COUNT', n * 4));
    const calls: BusEvent[] = [];
    for (const [, fields] of entries) {
      try {
        const event = JSON.parse(fields[1]) as BusEvent;
        if (event.type === 'call') calls.push(event);
      } catch {
        // not ours
      }
      if (calls.length >= n) break;
    }
    return calls.reverse();
  }

  /** Write what is queued now (one pipeline). */
  async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const pipe = this.store.client.pipeline();
    for (const data of batch) pipe.xadd(this.key, 'MAXLEN', '~', String(BUS_STREAM_MAXLEN), '*', 'e', data);
    try {
      const results = (await pipe.exec()) ?? [];
      const failed = results.find(([err]) => err);
      if (failed) throw failed[0];
      this.warned = false;
    } catch (err) {
      if (!this.warned)
        this.logger.warn({ err: (err as Error).message }, 'event bus: Redis unreachable, events stay local');
      this.warned = true;
    }
  }

  /** Read the stream from its end onwards on a dedicated connection (a blocking read holds its connection). */
  private async read(): Promise<void> {
    const conn = this.conn;
    // A blocked XREAD must outlast the command timeout the store uses for ordinary commands.
    (conn.options as { commandTimeout?: number }).commandTimeout = BLOCK_MS + 2_000;
    let last = '$';
    try {
      while (!this.stopped && this.followers > 0) {
        try {
          if (conn.status === 'wait') await conn.connect();
          if (last === '$') {
            // Resolve '$' once, so events written between two reads are not skipped.
            const tail = await conn.xrevrange(this.key, '+', '-', 'COUNT', 1);
            last = tail[0]?.[0] ?? '0-0';
          }
          const reply = await conn.xread('COUNT', 500, 'BLOCK', BLOCK_MS, 'STREAMS', this.key, last);
          for (const [, entries] of reply ?? []) {
            for (const [id, fields] of entries) {
              last = id;
              if (this.stopped) break;
              const data = fields[1];
              let event: RemoteEvent;
              try {
                event = JSON.parse(data) as RemoteEvent;
              } catch {
                continue;
              }
              if (event.origin !== this.instanceId) this.everyone.publish(event);
            }
          }
        } catch (err) {
          if (this.stopped) break;
          this.logger.debug({ err: (err as Error).message }, 'event bus: read failed, retrying');
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    } finally {
      // Disconnected only when the bus stops; a pause between followers keeps the connection for the next one.
      if (this.stopped) conn.disconnect();
    }
  }

  /** Stop reading and write what is still queued. */
  async close(): Promise<void> {
    await this.flush();
    this.stopped = true;
    // Ends a blocked read at once instead of waiting for its timeout.
    this.conn.disconnect();
    await this.loop.catch(() => {});
  }
}
