// Instances on Redis: one hash per instance (`instance:<id>`) and a sorted set of ids by lease end (`instances`),
// written together by Lua scripts so an expired instance is handed to exactly one caller.
import type { Redis } from 'ioredis';
import type { Instance, InstanceStore } from '../contract.ts';
import { readClock, type StoreClock } from '../records/clock.ts';
import { check } from '../records/common.ts';
import { checkRegistration, epochMs, leaseMs } from '../records/instances.ts';
import { replies } from './connection.ts';
import { type Io, pairs, type ScriptDef } from './scripts.ts';

export interface InstanceScripts {
  sbInstanceRegister(k1: string, k2: string, ...args: string[]): Promise<string[]>;
  sbInstanceHeartbeat(k1: string, k2: string, ...args: string[]): Promise<string[] | null>;
  sbInstanceExpire(k1: string, ...args: string[]): Promise<string[]>;
}

export const INSTANCE_SCRIPTS: ScriptDef<keyof InstanceScripts>[] = [
  /** KEYS[1] instance hash, KEYS[2] expiry zset; ARGV: id, roles json, now iso, now ms, expiresAt. */
  ['sbInstanceRegister', 2, ['instance-register.lua']],
  /** KEYS[1] instance hash, KEYS[2] expiry zset; ARGV: id, now iso, now ms, expiresAt. */
  ['sbInstanceHeartbeat', 2, ['instance-heartbeat.lua']],
  /** KEYS[1] expiry zset; ARGV: prefix, now ms. Each expired id is handed to exactly one caller. */
  ['sbInstanceExpire', 1, ['instance-expire.lua']],
];

type Client = Redis & InstanceScripts;

function toInstance(h: Record<string, string>, id: string): Instance {
  return {
    id,
    roles: JSON.parse(h.roles),
    registeredAt: h.registeredAt,
    lastSeenAt: h.lastSeenAt,
    expiresAt: Number(h.expiresAt),
  };
}

export class RedisInstances implements InstanceStore {
  constructor(
    private readonly r: Client,
    private readonly P: string,
    private readonly io: Io,
    private readonly now: StoreClock = readClock,
  ) {}

  private get expiry() {
    return `${this.P}instances`;
  }

  async register(id: string, roles: string[], ttlMs: number): Promise<Instance> {
    const { ttlMs: ttl } = checkRegistration(id, roles, ttlMs);
    const nowMs = this.now();
    const reply = await this.io(() =>
      this.r.sbInstanceRegister(
        `${this.P}instance:${id}`,
        this.expiry,
        id,
        JSON.stringify(roles),
        new Date(nowMs).toISOString(),
        String(nowMs),
        String(nowMs + ttl),
      ),
    );
    return toInstance(pairs(reply), id);
  }

  async heartbeat(id: string, ttlMs: number): Promise<Instance | undefined> {
    const ttl = check(leaseMs, ttlMs, 'ttlMs');
    if (typeof id !== 'string') return undefined;
    const nowMs = this.now();
    const reply = await this.io(() =>
      this.r.sbInstanceHeartbeat(
        `${this.P}instance:${id}`,
        this.expiry,
        id,
        new Date(nowMs).toISOString(),
        String(nowMs),
        String(nowMs + ttl),
      ),
    );
    return reply ? toInstance(pairs(reply), id) : undefined;
  }

  async get(id: string): Promise<Instance | undefined> {
    if (typeof id !== 'string') return undefined;
    const h = await this.io(() => this.r.hgetall(`${this.P}instance:${id}`));
    return h.registeredAt ? toInstance(h, id) : undefined;
  }

  async list(): Promise<Instance[]> {
    const ids = (await this.io(() => this.r.zrange(this.expiry, '0', '-1'))).sort();
    if (ids.length === 0) return [];
    const pipe = this.r.pipeline();
    for (const id of ids) pipe.hgetall(`${this.P}instance:${id}`);
    const rows = await this.io(() => replies(pipe));
    const out: Instance[] = [];
    rows.forEach((h, i) => {
      const row = h as Record<string, string>;
      if (row.registeredAt) out.push(toInstance(row, ids[i]));
    });
    return out;
  }

  async expire(now: number): Promise<string[]> {
    check(epochMs, now, 'now');
    const ids = await this.io(() => this.r.sbInstanceExpire(this.expiry, this.P, String(now)));
    return [...ids].sort();
  }
}
