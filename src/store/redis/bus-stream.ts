// The stream under the event bus across instances: one Redis Stream (`<prefix>bus`), each entry one field `e`
// holding an event's JSON. Appends are pipelined; readers wait on connections of their own (XREAD BLOCK).
import type { Redis } from 'ioredis';
import type { BusStreamPart, BusStreamReader } from '../contract.ts';
import { newRedisClient, REDIS_COMMAND_TIMEOUT_MS, replies } from './connection.ts';
import type { Io } from './scripts.ts';

/** The stream keeps about this many entries (approximate trim: cheap, and readers only need the recent tail). */
export const BUS_STREAM_MAXLEN = 10_000;

/** Most entries one read returns. */
const READ_COUNT = 500;

type Entries = [id: string, fields: string[]][];

export class RedisBusStream implements BusStreamPart {
  private readonly key: string;

  constructor(
    private readonly r: Redis,
    private readonly url: string,
    prefix: string,
    private readonly io: Io,
  ) {
    this.key = `${prefix}bus`;
  }

  async append(entries: readonly string[]): Promise<void> {
    if (entries.length === 0) return;
    const pipe = this.r.pipeline();
    for (const data of entries) pipe.xadd(this.key, 'MAXLEN', '~', String(BUS_STREAM_MAXLEN), '*', 'e', data);
    await this.io(() => replies(pipe));
  }

  async latest(count: number): Promise<string[]> {
    if (count <= 0) return [];
    const entries = await this.io(() => this.r.xrevrange(this.key, '+', '-', 'COUNT', count));
    return entries.map(([, fields]) => fields[1]);
  }

  reader(): BusStreamReader {
    return new StreamReader(newRedisClient(this.url, { lazy: true }), this.key);
  }
}

/** Reads the stream on a dedicated connection, connected on first use (a blocking read holds its connection). */
class StreamReader implements BusStreamReader {
  constructor(
    private readonly conn: Redis,
    private readonly key: string,
  ) {}

  private async connected(): Promise<Redis> {
    if (this.conn.status === 'wait') await this.conn.connect();
    return this.conn;
  }

  async end(): Promise<string> {
    const tail = await (await this.connected()).xrevrange(this.key, '+', '-', 'COUNT', 1);
    return tail[0]?.[0] ?? '0-0';
  }

  async read(from: string, waitMs: number): Promise<{ entries: string[]; next: string }> {
    // A blocked XREAD must outlast the command timeout the store uses for ordinary commands.
    (this.conn.options as { commandTimeout?: number }).commandTimeout = waitMs + REDIS_COMMAND_TIMEOUT_MS;
    const conn = await this.connected();
    const reply = (await conn.xread('COUNT', READ_COUNT, 'BLOCK', waitMs, 'STREAMS', this.key, from)) as
      | [key: string, entries: Entries][]
      | null;
    const entries: string[] = [];
    let next = from;
    for (const [, stream] of reply ?? [])
      for (const [id, fields] of stream) {
        next = id;
        entries.push(fields[1]);
      }
    return { entries, next };
  }

  close(): void {
    this.conn.disconnect();
  }
}
