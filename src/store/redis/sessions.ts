// Agent sessions on Redis, for instances on several machines: the meta as one JSON string, the transcript as a
// list, the turn lock as a lease in Redis time. Every write that touches more than one key is one Lua script.
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../core/errors.ts';
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
} from '../contract.ts';
import { checkSessionName, checkTtl, sessionMetaJson, transcriptLines } from '../records/agent-sessions.ts';
import { checkNonEmpty } from '../records/common.ts';
import type { Io, ScriptDef } from './scripts.ts';

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

// Leases are measured on the Redis server's clock, the one clock every instance shares: a machine whose clock is
// off cannot make a live turn look dead to the others, or keep a dead one looking alive. session-clock.lua sets
// `now` from it; session-live.lua (after it) defines live(k): whether the lock hash in k is held by someone whose
// lease has not run out.
export const SESSION_SCRIPTS: ScriptDef<keyof SessionScripts>[] = [
  /** KEYS: meta, log, index; ARGV: name, meta json. 0 when the name is taken. */
  ['sbSessionCreate', 3, ['session-create.lua']],
  /**
   * KEYS: meta, turn; ARGV: meta json, holder ('' for none), release ('1'). -1: no session; 0: holder does not hold
   * the lock; 1: written (and the holder's lock released with release).
   */
  ['sbSessionPut', 2, ['session-put.lua']],
  /** KEYS: meta, log, turn; ARGV: holder ('' for none), lines... -1: no session; 0: lock not held; 1: appended. */
  ['sbSessionAppend', 3, ['session-append.lua']],
  /** KEYS: turn; ARGV: owner, ttl ms. {1} when taken (free, or stale and taken over); {0, owner} when live. */
  ['sbSessionLock', 1, ['session-clock.lua', 'session-live.lua', 'session-lock.lua']],
  /** KEYS: turn; ARGV: owner, ttl ms. 1 when extended; 0 when the lock is someone else's or gone. */
  ['sbSessionRenew', 1, ['session-clock.lua', 'session-renew.lua']],
  /** KEYS: turn; ARGV: owner. Deletes the lock only when it is the owner's. */
  ['sbSessionUnlock', 1, ['session-unlock.lua']],
  /** KEYS: turn. {owner, expiresAt, now} or false when nobody holds it. */
  ['sbSessionOwner', 1, ['session-clock.lua', 'session-owner.lua']],
  /** KEYS: meta, log, turn, index; ARGV: name. -1 while a live lock is held; else 1/0: whether the session existed. */
  ['sbSessionRemove', 4, ['session-clock.lua', 'session-live.lua', 'session-remove.lua']],
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
    const holder = opts.holder === undefined ? '' : checkNonEmpty(opts.holder, 'holder');
    const k = this.keys(name);
    const ok = await this.io(() => this.r.sbSessionPut(k.meta, k.turn, json, holder, opts.release ? '1' : ''));
    if (ok === -1) throw sessionMissing(name);
    if (ok === 0) throw sessionLockLost(name, `instance ${holder}`);
  }

  async append(name: string, events: readonly AgentTranscriptEvent[], opts: { holder?: string } = {}): Promise<void> {
    const k = this.keys(name);
    const lines = transcriptLines(events);
    const holder = opts.holder === undefined ? '' : checkNonEmpty(opts.holder, 'holder');
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
    checkNonEmpty(owner, 'owner');
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
