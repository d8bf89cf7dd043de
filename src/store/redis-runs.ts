// The Redis parts for plugin hook runs and script runs (with their journals): the same contract and messages as
// the SQLite tables, every multi-key write one Lua script, so two instances never see a half-written run.
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../core/errors.ts';
import type {
  HookRun,
  HookStore,
  NewHookRun,
  NewScriptRun,
  ScriptRun,
  ScriptRunFilter,
  ScriptRunStatus,
  ScriptRunStore,
} from './contract.ts';
import {
  checkHookQuery,
  checkHookRun,
  checkIso,
  checkNewScriptRun,
  checkRunFilter,
  checkRunId,
  checkRunPatch,
  checkString,
  journalRows,
} from './validate.ts';

type Io = <T>(fn: () => Promise<T>) => Promise<T>;

/** KEYS: seq counter, zset by time; ARGV: score ms, record json. Members are 'seq16<TAB>json'; answers the seq. */
const LUA_HOOK_RECORD = `
local seq = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], ARGV[1], string.format('%016d', seq) .. '\\t' .. ARGV[2])
return seq
`;

/** KEYS: run hash, journal list, zset by update; ARGV: id, clientKey, principal, name, now iso, now ms. */
const LUA_RUN_CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'clientKey', ARGV[2], 'principal', ARGV[3], 'name', ARGV[4],
  'status', 'running', 'createdAt', ARGV[5], 'updatedAt', ARGV[5], 'entries', 0)
redis.call('ZADD', KEYS[3], ARGV[6], ARGV[1])
return 1
`;

/** KEYS: run hash, journal list, zset by update; ARGV: id, now iso, now ms, entries... */
const LUA_RUN_APPEND = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 4, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
redis.call('HINCRBY', KEYS[1], 'entries', #ARGV - 3)
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 1
`;

/** KEYS: run hash, zset by update; ARGV: id, now iso, now ms, status ('' keeps), clientKey ('' keeps). */
const LUA_RUN_UPDATE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'status', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'clientKey', ARGV[5]) end
redis.call('HSET', KEYS[1], 'updatedAt', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return redis.call('HGETALL', KEYS[1])
`;

/** KEYS: run hash, journal list, zset by update; ARGV: id. */
const LUA_RUN_REMOVE = `
local existed = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
return existed
`;

/**
 * KEYS: zset by update; ARGV: prefix, cutoff iso, cutoff ms. Finished runs updated before the cutoff go, with their
 * journals; running ones stay however old.
 */
const LUA_RUN_PRUNE = `
local n = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])) do
  local k = ARGV[1] .. 'srun:' .. id
  local h = redis.call('HMGET', k, 'status', 'updatedAt')
  if h[1] == 'finished' and h[2] < ARGV[2] then
    redis.call('DEL', k, k .. ':journal')
    redis.call('ZREM', KEYS[1], id)
    n = n + 1
  end
end
return n
`;

export interface RunScripts {
  sbHookRecord(k1: string, k2: string, score: string, json: string): Promise<number>;
  sbRunCreate(k1: string, k2: string, k3: string, ...args: string[]): Promise<number>;
  sbRunAppend(k1: string, k2: string, k3: string, ...args: string[]): Promise<number>;
  sbRunUpdate(k1: string, k2: string, ...args: string[]): Promise<string[] | null>;
  sbRunRemove(k1: string, k2: string, k3: string, id: string): Promise<number>;
  sbRunPrune(k1: string, prefix: string, cutoff: string, cutoffMs: string): Promise<number>;
}

/** Name, number of keys and body of each script, for `defineCommand` on every connection of the store. */
export const RUN_SCRIPTS: [keyof RunScripts, number, string][] = [
  ['sbHookRecord', 2, LUA_HOOK_RECORD],
  ['sbRunCreate', 3, LUA_RUN_CREATE],
  ['sbRunAppend', 3, LUA_RUN_APPEND],
  ['sbRunUpdate', 2, LUA_RUN_UPDATE],
  ['sbRunRemove', 3, LUA_RUN_REMOVE],
  ['sbRunPrune', 1, LUA_RUN_PRUNE],
];

type Client = Redis & RunScripts;

/** Hook runs in one sorted set by time (score: epoch ms of `at`; equal times order by the padded seq). */
export class RedisHooks implements HookStore {
  private readonly k: { seq: string; runs: string; prints: string };

  constructor(
    private readonly r: Client,
    P: string,
    private readonly io: Io,
  ) {
    this.k = { seq: `${P}hooks:seq`, runs: `${P}hooks:runs`, prints: `${P}hooks:prints` };
  }

  async record(run: NewHookRun): Promise<HookRun> {
    const r = checkHookRun(run);
    const seq = await this.io(() =>
      this.r.sbHookRecord(this.k.seq, this.k.runs, String(Date.parse(r.at)), JSON.stringify(r)),
    );
    return { seq, ...r };
  }

  async runs(query: { since: string; until?: string; limit?: number }): Promise<HookRun[]> {
    const q = checkHookQuery(query);
    const max = q.until === '\uffff' ? '+inf' : `(${Date.parse(q.until)}`;
    const members = await this.io(() =>
      this.r.zrangebyscore(this.k.runs, String(Date.parse(q.since)), max, 'LIMIT', 0, q.limit),
    );
    return members.map((m) => {
      const tab = m.indexOf('\t');
      const r = JSON.parse(m.slice(tab + 1)) as NewHookRun;
      return {
        seq: Number(m.slice(0, tab)),
        plugin: r.plugin,
        hook: r.hook,
        directory: r.directory,
        ok: r.ok,
        cached: r.cached,
        exitCode: r.exitCode,
        durationMs: r.durationMs,
        at: r.at,
      };
    });
  }

  async fingerprint(key: string): Promise<string | undefined> {
    const k = checkString(key, 'key', { nonEmpty: true }) as string;
    return (await this.io(() => this.r.hget(this.k.prints, k))) ?? undefined;
  }

  async setFingerprint(key: string, fingerprint: string | null): Promise<void> {
    checkString(key, 'key', { nonEmpty: true });
    if (fingerprint === null) await this.io(() => this.r.hdel(this.k.prints, key));
    else {
      const f = checkString(fingerprint, 'fingerprint', { nonEmpty: true }) as string;
      await this.io(() => this.r.hset(this.k.prints, key, f));
    }
  }

  async prune(before: string): Promise<number> {
    const at = checkIso(before, 'before');
    return this.io(() => this.r.zremrangebyscore(this.k.runs, '-inf', `(${Date.parse(at)}`));
  }
}

function toScriptRun(h: Record<string, string>): ScriptRun {
  return {
    id: h.id,
    clientKey: h.clientKey,
    principal: h.principal,
    name: h.name,
    status: h.status as ScriptRunStatus,
    createdAt: h.createdAt,
    updatedAt: h.updatedAt,
    entries: Number(h.entries),
  };
}

/** HGETALL reply (flat array or object) as an object. */
export function pairs(reply: string[] | Record<string, string>): Record<string, string> {
  if (!Array.isArray(reply)) return reply;
  const out: Record<string, string> = {};
  for (let i = 0; i < reply.length; i += 2) out[reply[i]] = reply[i + 1];
  return out;
}

/** A run is a hash (`srun:<id>`), its journal a list (`srun:<id>:journal`); one sorted set orders runs by update. */
export class RedisScriptRuns implements ScriptRunStore {
  private readonly byUpdate: string;

  constructor(
    private readonly r: Client,
    private readonly P: string,
    private readonly io: Io,
  ) {
    this.byUpdate = `${P}sruns`;
  }

  private key(id: string): string {
    return `${this.P}srun:${id}`;
  }

  async create(run: NewScriptRun): Promise<ScriptRun> {
    const r = checkNewScriptRun(run);
    const now = new Date();
    const at = now.toISOString();
    const ok = await this.io(() =>
      this.r.sbRunCreate(
        this.key(r.id),
        `${this.key(r.id)}:journal`,
        this.byUpdate,
        r.id,
        r.clientKey,
        r.principal,
        r.name,
        at,
        String(now.getTime()),
      ),
    );
    if (ok !== 1) throw new SwitchboardError('CONFLICT', `Script run '${r.id}' already exists.`);
    return { ...r, status: 'running', createdAt: at, updatedAt: at, entries: 0 };
  }

  async get(id: string): Promise<ScriptRun | undefined> {
    const h = await this.io(() => this.r.hgetall(this.key(checkRunId(id))));
    return h.id ? toScriptRun(h) : undefined;
  }

  async append(id: string, entries: readonly Record<string, unknown>[]): Promise<void> {
    checkRunId(id);
    const data = journalRows(entries);
    if (data.length === 0) return;
    const now = new Date();
    const ok = await this.io(() =>
      this.r.sbRunAppend(
        this.key(id),
        `${this.key(id)}:journal`,
        this.byUpdate,
        id,
        now.toISOString(),
        String(now.getTime()),
        ...data,
      ),
    );
    if (ok !== 1) throw new SwitchboardError('NOT_FOUND', `No script run '${id}'.`);
  }

  async journal(id: string): Promise<Record<string, unknown>[]> {
    const rows = await this.io(() => this.r.lrange(`${this.key(checkRunId(id))}:journal`, 0, -1));
    return rows.map((d) => JSON.parse(d));
  }

  async update(id: string, patch: { status?: ScriptRunStatus; clientKey?: string }): Promise<ScriptRun | undefined> {
    checkRunId(id);
    const p = checkRunPatch(patch);
    const now = new Date();
    const reply = await this.io(() =>
      this.r.sbRunUpdate(
        this.key(id),
        this.byUpdate,
        id,
        now.toISOString(),
        String(now.getTime()),
        p.status ?? '',
        p.clientKey ?? '',
      ),
    );
    return reply ? toScriptRun(pairs(reply)) : undefined;
  }

  async list(filter: ScriptRunFilter = {}): Promise<ScriptRun[]> {
    const f = checkRunFilter(filter);
    const found: ScriptRun[] = [];
    const batch = Math.max(f.limit, 100);
    // Bounded: each round either fills the page or reaches the end of the set.
    for (let offset = 0; found.length < f.limit; offset += batch) {
      const ids = await this.io(() => this.r.zrevrange(this.byUpdate, offset, offset + batch - 1));
      if (ids.length === 0) break;
      const pipe = this.r.pipeline();
      for (const id of ids) pipe.hgetall(this.key(id));
      const rows = (await this.io(() => pipe.exec())) ?? [];
      for (const [err, h] of rows) {
        if (err) throw err;
        const row = h as Record<string, string>;
        if (!row.id) continue;
        const run = toScriptRun(row);
        if (f.principal !== undefined && run.principal !== f.principal) continue;
        if (f.clientKey !== undefined && run.clientKey !== f.clientKey) continue;
        if (f.status !== undefined && run.status !== f.status) continue;
        found.push(run);
      }
      if (ids.length < batch) break;
    }
    return found.slice(0, f.limit);
  }

  async remove(id: string): Promise<boolean> {
    checkRunId(id);
    return (await this.io(() => this.r.sbRunRemove(this.key(id), `${this.key(id)}:journal`, this.byUpdate, id))) > 0;
  }

  async prune(before: string): Promise<number> {
    const cutoff = checkIso(before, 'before');
    return this.io(() => this.r.sbRunPrune(this.byUpdate, this.P, cutoff, String(Date.parse(cutoff))));
  }
}
