// What instances on one Redis share beyond the stored records (the Store contract's `shared`): MCP sessions and
// their mailboxes, rate limits and breakers, the event bus's stream, cached capability results, single-use tickets,
// and secrets every instance holds alike.
import type { Redis } from 'ioredis';
import type { SharedState } from '../contract.ts';
import { RedisBusStream } from './bus-stream.ts';
import { type LimitScripts, RedisLimits } from './limits.ts';
import { RedisMcpSessions } from './mcp-sessions.ts';
import { RedisResults } from './results.ts';
import type { Io } from './scripts.ts';
import { RedisTickets } from './tickets.ts';

export class RedisShared implements SharedState {
  readonly sessions: RedisMcpSessions;
  readonly limits: RedisLimits;
  readonly bus: RedisBusStream;
  readonly results: RedisResults;
  readonly tickets: RedisTickets;

  constructor(
    private readonly r: Redis & LimitScripts,
    url: string,
    private readonly P: string,
    private readonly io: Io,
  ) {
    this.sessions = new RedisMcpSessions(r, url, P, io);
    this.limits = new RedisLimits(r, P, io);
    this.bus = new RedisBusStream(r, url, P, io);
    this.results = new RedisResults(r, P, io);
    this.tickets = new RedisTickets(r, P, io);
  }

  /** The first instance to ask creates it (SET NX), the rest read it; it lives as long as the Redis data. */
  async secret(name: string): Promise<Uint8Array> {
    const key = `${this.P}secret:${name}`;
    const fresh = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');
    await this.io(() => this.r.set(key, fresh, 'NX'));
    const hex = await this.io(() => this.r.get(key));
    return new Uint8Array(Buffer.from(hex ?? fresh, 'hex'));
  }
}
