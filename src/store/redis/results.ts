// Capability results kept for `policy.cache` and shared by every instance on one Redis: one string key per result,
// expiring by itself (PX), so nothing sweeps them and an idle hub holds none.
import type { Redis } from 'ioredis';
import type { SharedResultsPart } from '../contract.ts';
import type { Io } from './scripts.ts';

export class RedisResults implements SharedResultsPart {
  constructor(
    private readonly r: Redis,
    private readonly P: string,
    private readonly io: Io,
  ) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.io(() => this.r.get(`${this.P}result:${key}`))) ?? undefined;
  }

  async put(key: string, value: string, ttlMs: number): Promise<void> {
    await this.io(() => this.r.set(`${this.P}result:${key}`, value, 'PX', Math.max(1, Math.round(ttlMs))));
  }
}
