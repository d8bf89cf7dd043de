// Script runs on Redis, with their journals: the same contract and messages as the SQLite tables, every multi-key
// write one Lua script, so two instances never see a half-written run.

import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../core/errors.ts';
import type { NewScriptRun, ScriptRun, ScriptRunFilter, ScriptRunStatus, ScriptRunStore } from '../contract.ts';
import { readClock, type StoreClock } from '../records/clock.ts';
import { checkIso } from '../records/common.ts';
import { checkNewScriptRun, checkRunFilter, checkRunId, checkRunPatch, journalRows } from '../records/script-runs.ts';
import { replies } from './connection.ts';
import { type Io, pairs, type ScriptDef } from './scripts.ts';

export interface ScriptRunScripts {
  sbRunCreate(k1: string, k2: string, k3: string, ...args: string[]): Promise<number>;
  sbRunAppend(k1: string, k2: string, k3: string, ...args: string[]): Promise<number>;
  sbRunUpdate(k1: string, k2: string, ...args: string[]): Promise<string[] | null>;
  sbRunRemove(k1: string, k2: string, k3: string, id: string): Promise<number>;
  sbRunPrune(k1: string, prefix: string, cutoff: string, cutoffMs: string): Promise<number>;
}

export const SCRIPT_RUN_SCRIPTS: ScriptDef<keyof ScriptRunScripts>[] = [
  /** KEYS: run hash, journal list, zset by update; ARGV: id, clientKey, principal, name, now iso, now ms. */
  ['sbRunCreate', 3, ['run-create.lua']],
  /** KEYS: run hash, journal list, zset by update; ARGV: id, now iso, now ms, entries... */
  ['sbRunAppend', 3, ['run-append.lua']],
  /** KEYS: run hash, zset by update; ARGV: id, now iso, now ms, status ('' keeps), clientKey ('' keeps). */
  ['sbRunUpdate', 2, ['run-update.lua']],
  /** KEYS: run hash, journal list, zset by update; ARGV: id. */
  ['sbRunRemove', 3, ['run-remove.lua']],
  /**
   * KEYS: zset by update; ARGV: prefix, cutoff iso, cutoff ms. Finished runs updated before the cutoff go, with their
   * journals; running ones stay however old.
   */
  ['sbRunPrune', 1, ['run-prune.lua']],
];

type Client = Redis & ScriptRunScripts;

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

/** A run is a hash (`srun:<id>`), its journal a list (`srun:<id>:journal`); one sorted set orders runs by update. */
export class RedisScriptRuns implements ScriptRunStore {
  private readonly byUpdate: string;

  constructor(
    private readonly r: Client,
    private readonly P: string,
    private readonly io: Io,
    /** The clock of creation and update times (tests move it). */
    private readonly now: StoreClock = readClock,
  ) {
    this.byUpdate = `${P}sruns`;
  }

  private key(id: string): string {
    return `${this.P}srun:${id}`;
  }

  async create(run: NewScriptRun): Promise<ScriptRun> {
    const r = checkNewScriptRun(run);
    const now = new Date(this.now());
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
    const now = new Date(this.now());
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
    const now = new Date(this.now());
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
      const rows = await this.io(() => replies(pipe));
      for (const h of rows) {
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
