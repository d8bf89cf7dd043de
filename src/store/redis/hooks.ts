// Plugin hook runs on Redis: one sorted set by time (`hooks:runs`, score: epoch ms of `at`; equal times order by
// the padded seq in the member), numbered by a counter (`hooks:seq`), and the hooks' fingerprints (`hooks:prints`).
import type { Redis } from 'ioredis';
import type { HookRun, HookStore, NewHookRun } from '../contract.ts';
import { checkIso, checkNonEmpty } from '../records/common.ts';
import { checkHookQuery, checkHookRun } from '../records/hooks.ts';
import type { Io, ScriptDef } from './scripts.ts';

export interface HookScripts {
  sbHookRecord(k1: string, k2: string, score: string, json: string): Promise<number>;
}

export const HOOK_SCRIPTS: ScriptDef<keyof HookScripts>[] = [
  /** KEYS: seq counter, zset by time; ARGV: score ms, record json. Members are 'seq16<TAB>json'; answers the seq. */
  ['sbHookRecord', 2, ['hook-record.lua']],
];

/** Hook runs in one sorted set by time (score: epoch ms of `at`; equal times order by the padded seq). */
export class RedisHooks implements HookStore {
  private readonly k: { seq: string; runs: string; prints: string };

  constructor(
    private readonly r: Redis & HookScripts,
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
    const k = checkNonEmpty(key, 'key');
    return (await this.io(() => this.r.hget(this.k.prints, k))) ?? undefined;
  }

  async setFingerprint(key: string, fingerprint: string | null): Promise<void> {
    checkNonEmpty(key, 'key');
    if (fingerprint === null) await this.io(() => this.r.hdel(this.k.prints, key));
    else {
      const f = checkNonEmpty(fingerprint, 'fingerprint');
      await this.io(() => this.r.hset(this.k.prints, key, f));
    }
  }

  async prune(before: string): Promise<number> {
    const at = checkIso(before, 'before');
    return this.io(() => this.r.zremrangebyscore(this.k.runs, '-inf', `(${Date.parse(at)}`));
  }
}
