// Single-use tickets shared by every instance on one Redis: one string key each, expiring by itself (PX), taken with
// GETDEL so of two instances redeeming the same ticket at once, one gets it.
import type { Redis } from 'ioredis';
import type { SharedTicketsPart } from '../contract.ts';
import type { Io } from './scripts.ts';

export class RedisTickets implements SharedTicketsPart {
  constructor(
    private readonly r: Redis,
    private readonly P: string,
    private readonly io: Io,
  ) {}

  async put(id: string, value: string, ttlMs: number): Promise<void> {
    await this.io(() => this.r.set(`${this.P}ticket:${id}`, value, 'PX', Math.max(1, Math.round(ttlMs))));
  }

  async take(id: string): Promise<string | undefined> {
    return (await this.io(() => this.r.getdel(`${this.P}ticket:${id}`))) ?? undefined;
  }
}
