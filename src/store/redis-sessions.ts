// Agent sessions on Redis, for instances on several machines: the meta as one JSON string, the transcript as a
// list, the turn lock as a lease in Redis time. Every write that touches more than one key is one Lua script.
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../core/errors.ts';
import {
  type AgentSessionRecord,
  type AgentSessionStore,
  type AgentTranscriptEvent,
  type AgentTranscriptPage,
  type AgentTurnLock,
  sessionBusy,
  sessionLockLost,
  sessionMissing,
  sessionRunning,
  sessionTaken,
} from './contract.ts';
import { checkSessionName, checkString, checkTtl, sessionMetaJson, transcriptLines } from './validate.ts';

type Io = <T>(fn: () => Promise<T>) => Promise<T>;

// Leases are measured on the Redis server's clock, the one clock every instance shares: a machine whose clock is
// off cannot make a live turn look dead to the others, or keep a dead one looking alive.
const NOW_MS = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** Whether the lock hash in KEYS[k] is held by someone whose lease has not run out (needs NOW_MS first). */
const LIVE = `local function live(k) local e = redis.call('HGET', k, 'expiresAt'); return e and tonumber(e) > now end`;

/** KEYS: meta, log, index; ARGV: name, meta json. 0 when the name is taken. */
const LUA_CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[3], 0, ARGV[1])
return 1
`;

/**
 * KEYS: meta, turn; ARGV: meta json, holder ('' for none), release ('1'). -1: no session; 0: holder does not hold
 * the lock; 1: written (and the holder's lock released with release).
 */
const LUA_PUT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[2], 'owner') ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
if ARGV[3] == '1' and ARGV[2] ~= '' then redis.call('DEL', KEYS[2]) end
return 1
`;

/** KEYS: meta, log, turn; ARGV: holder ('' for none), lines... -1: no session; 0: lock not held; 1: appended. */
const LUA_APPEND = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if ARGV[1] ~= '' and redis.call('HGET', KEYS[3], 'owner') ~= ARGV[1] then return 0 end
for i = 2, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
return 1
`;

/** KEYS: turn; ARGV: owner, ttl ms. {1} when taken (free, or stale and taken over); {0, owner} when live. */
const LUA_LOCK = `
${NOW_MS}
${LIVE}
if live(KEYS[1]) then return {0, redis.call('HGET', KEYS[1], 'owner')} end
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'expiresAt', now + tonumber(ARGV[2]))
return {1}
`;

/** KEYS: turn; ARGV: owner, ttl ms. 1 when extended; 0 when the lock is someone else's or gone. */
const LUA_RENEW = `
${NOW_MS}
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'expiresAt', now + tonumber(ARGV[2]))
return 1
`;

/** KEYS: turn; ARGV: owner. Deletes the lock only when it is the owner's. */
const LUA_UNLOCK = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** KEYS: turn. {owner, expiresAt, now} or false when nobody holds it. */
const LUA_OWNER = `
${NOW_MS}
local h = redis.call('HMGET', KEYS[1], 'owner', 'expiresAt')
if not h[1] then return false end
return {h[1], h[2], tostring(now)}
`;

/** KEYS: meta, log, turn, index; ARGV: name. -1 while a live lock is held; else 1/0: whether the session existed. */
const LUA_REMOVE = `
${NOW_MS}
${LIVE}
if live(KEYS[3]) then return -1 end
local existed = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('ZREM', KEYS[4], ARGV[1])
return existed
`;

export interface SessionScripts {
  sbSessionCreate(meta: string, log: string, index: string, name: string, json: string): Promise<number>;
  sbSessionPut(meta: string, turn: string, json: string, holder: string, release: string): Promise<number>;
  sbSessionAppend(meta: string, log: string, turn: string, holder: string, ...lines: string[]): Promise<number>;
  sbSessionLock(turn: string, owner: string, ttl: string): Promise<[number, string?]>;
  sbSessionRenew(turn: string, owner: string, ttl: string): Promise<number>;
  sbSessionUnlock(turn: string, owner: string): Promise<number>;
  sbSessionOwner(turn: string): Promise<[string, string, string] | null>;
  sbSessionRemove(meta: string, log: string, turn: string, index: string, name: string): Promise<number>;
}

/** Name, number of keys and body of each script, for `defineCommand` on every connection of the store. */
export const SESSION_SCRIPTS: [keyof SessionScripts, number, string][] = [
  ['sbSessionCreate', 3, LUA_CREATE],
  ['sbSessionPut', 2, LUA_PUT],
  ['sbSessionAppend', 3, LUA_APPEND],
  ['sbSessionLock', 1, LUA_LOCK],
  ['sbSessionRenew', 1, LUA_RENEW],
  ['sbSessionUnlock', 1, LUA_UNLOCK],
  ['sbSessionOwner', 1, LUA_OWNER],
  ['sbSessionRemove', 4, LUA_REMOVE],
];

type Client = Redis & SessionScripts;

/**
 * Sessions under `asession:meta:<name>`, `asession:log:<name>` and `asession:turn:<name>` (the kind first, so no
 * name can reach another session's key), and `asessions`, a sorted set of names (score 0: ordered by name).
 */
export class RedisAgentSessions implements AgentSessionStore {
  private readonly index: string;

  constructor(
    private readonly r: Client,
    private readonly P: string,
    private readonly io: Io,
  ) {
    this.index = `${P}asessions`;
  }

  private keys(name: string): { meta: string; log: string; turn: string } {
    const n = checkSessionName(name);
    return {
      meta: `${this.P}asession:meta:${n}`,
      log: `${this.P}asession:log:${n}`,
      turn: `${this.P}asession:turn:${n}`,
    };
  }

  where(name: string): string {
    return `the session's transcript in Redis (${this.P}asession:log:${name}; read it with: switchboard sessions tail ${name} --json)`;
  }

  async create(meta: AgentSessionRecord): Promise<void> {
    const { name, json } = sessionMetaJson(meta);
    const k = this.keys(name);
    const ok = await this.io(() => this.r.sbSessionCreate(k.meta, k.log, this.index, name, json));
    if (ok !== 1) throw sessionTaken(name);
  }

  async get(name: string): Promise<AgentSessionRecord | undefined> {
    const k = this.keys(name);
    const text = await this.io(() => this.r.get(k.meta));
    if (text === null) return undefined;
    try {
      return JSON.parse(text) as AgentSessionRecord;
    } catch (err) {
      throw new SwitchboardError('INTERNAL', `Redis key ${k.meta} is not valid JSON: ${(err as Error).message}`);
    }
  }

  async put(meta: AgentSessionRecord, opts: { holder?: string; release?: boolean } = {}): Promise<void> {
    const { name, json } = sessionMetaJson(meta);
    const holder = opts.holder === undefined ? '' : (checkString(opts.holder, 'holder', { nonEmpty: true }) as string);
    const k = this.keys(name);
    const ok = await this.io(() => this.r.sbSessionPut(k.meta, k.turn, json, holder, opts.release ? '1' : ''));
    if (ok === -1) throw sessionMissing(name);
    if (ok === 0) throw sessionLockLost(name, `instance ${holder}`);
  }

  async append(name: string, events: readonly AgentTranscriptEvent[], opts: { holder?: string } = {}): Promise<void> {
    const k = this.keys(name);
    const lines = transcriptLines(events);
    const holder = opts.holder === undefined ? '' : (checkString(opts.holder, 'holder', { nonEmpty: true }) as string);
    const ok = await this.io(() => this.r.sbSessionAppend(k.meta, k.log, k.turn, holder, ...lines));
    if (ok === -1) throw sessionMissing(name);
    if (ok === 0) throw sessionLockLost(name, `instance ${holder}`);
  }

  async transcript(name: string, from = 0): Promise<AgentTranscriptPage> {
    const k = this.keys(name);
    const start = Number.isSafeInteger(from) && from > 0 ? from : 0;
    const rows = await this.io(() => this.r.lrange(k.log, start, -1));
    const events: AgentTranscriptEvent[] = [];
    let skipped = 0;
    for (const row of rows) {
      try {
        events.push(JSON.parse(row));
      } catch {
        skipped++;
      }
    }
    return { events, skipped, next: start + rows.length };
  }

  async names(): Promise<string[]> {
    return this.io(() => this.r.zrange(this.index, '0', '-1'));
  }

  async lock(name: string, owner: string, ttlMs: number): Promise<void> {
    const k = this.keys(name);
    checkString(owner, 'owner', { nonEmpty: true });
    const ttl = checkTtl(ttlMs);
    const [ok] = await this.io(() => this.r.sbSessionLock(k.turn, owner, String(ttl)));
    if (ok !== 1) throw sessionBusy(name);
  }

  async renew(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const k = this.keys(name);
    const ttl = checkTtl(ttlMs);
    return (await this.io(() => this.r.sbSessionRenew(k.turn, owner, String(ttl)))) === 1;
  }

  async unlock(name: string, owner: string): Promise<void> {
    const k = this.keys(name);
    await this.io(() => this.r.sbSessionUnlock(k.turn, owner));
  }

  async lockOwner(name: string): Promise<AgentTurnLock | undefined> {
    const k = this.keys(name);
    const reply = await this.io(() => this.r.sbSessionOwner(k.turn));
    if (!reply) return undefined;
    const [owner, expiresAt, now] = reply;
    return { owner, alive: Number(expiresAt) > Number(now), holder: `instance ${owner}` };
  }

  async remove(name: string): Promise<boolean> {
    const k = this.keys(name);
    const n = await this.io(() => this.r.sbSessionRemove(k.meta, k.log, k.turn, this.index, name));
    if (n === -1) throw sessionRunning(name);
    return n === 1;
  }
}
