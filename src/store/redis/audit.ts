// The audit log on Redis: one sorted set by time (`audit`, score: epoch ms of the call's start) whose members are
// 'seq16<TAB>record' lines (src/store/audit-line.ts), one per call, numbered by a counter (`audit:seq`).
import type { Redis } from 'ioredis';
import { auditLine, parseAuditLine } from '../audit-line.ts';
import type { AuditLog, AuditQuery, AuditRecord, AuditSink, NewAuditRecord } from '../contract.ts';
import { auditMatches, checkAuditQuery, newestFirst, validAudit } from '../records/audit.ts';
import { checkIso, describe, invalid } from '../records/common.ts';
import type { Io, ScriptDef } from './scripts.ts';

export interface AuditScripts {
  sbAuditAppend(k1: string, k2: string, ...args: string[]): Promise<number>;
  sbAuditPrune(k1: string, cutoff: string): Promise<number>;
}

export const AUDIT_SCRIPTS: ScriptDef<keyof AuditScripts>[] = [
  /** KEYS: seq counter, zset by time; ARGV: pairs of (score ms, encoded record). Members are 'seq16<TAB>record'. */
  ['sbAuditAppend', 2, ['audit-append.lua']],
  /** KEYS: zset by time; ARGV: cutoff ms (exclusive). */
  ['sbAuditPrune', 1, ['audit-prune.lua']],
];

type Client = Redis & AuditScripts;

/** The audit script's arguments for a batch: each record's score (its start, epoch ms) and its line. */
function scriptArgs(records: readonly NewAuditRecord[]): string[] {
  return records.flatMap((r) => [String(Date.parse(r.at)), auditLine(r)]);
}

export class RedisAudit implements AuditLog {
  private readonly seqKey: string;
  private readonly byTime: string;

  constructor(
    private readonly r: Client,
    P: string,
    private readonly io: Io,
  ) {
    this.seqKey = `${P}audit:seq`;
    this.byTime = `${P}audit`;
  }

  async append(record: NewAuditRecord): Promise<void> {
    await this.appendMany([record]);
  }

  /** One script call: every record gets its seq and lands, or none does. */
  async appendMany(records: readonly NewAuditRecord[]): Promise<void> {
    if (!Array.isArray(records)) invalid(`audit records must be an array, got ${describe(records)}.`);
    if (records.length === 0) return;
    const args = scriptArgs(records.map(validAudit));
    await this.io(() => this.r.sbAuditAppend(this.seqKey, this.byTime, ...args));
  }

  /**
   * The hub's writer: its records are built by the hub, so they skip validation and go out as one script call per
   * batch without waiting (the connection pipelines them); `flush` waits for what was written before it.
   */
  openSink(onError: (message: string) => void): AuditSink {
    let last: Promise<unknown> = Promise.resolve();
    const write = (records: readonly NewAuditRecord[]) => {
      if (records.length === 0) return;
      const args = scriptArgs(records);
      last = this.io(() => this.r.sbAuditAppend(this.seqKey, this.byTime, ...args)).catch((err) =>
        onError((err as Error).message),
      );
    };
    return {
      write,
      flush: () => last.then(() => {}),
      close: () => last.then(() => {}),
    };
  }

  async query(query: AuditQuery = {}): Promise<AuditRecord[]> {
    const q = checkAuditQuery(query);
    // Scores are epoch ms of `at` (canonical ISO has ms precision), so the score range is the time range; equal
    // times order by the zero-padded seq in the member, newest first.
    const max = q.until === '\uffff' ? '+inf' : `(${Date.parse(q.until)}`;
    const min = q.since === '' ? '-inf' : String(Date.parse(q.since));
    const found: AuditRecord[] = [];
    const batch = Math.max(q.limit, 500);
    for (let offset = 0; found.length < q.limit; offset += batch) {
      const members = await this.io(() => this.r.zrevrangebyscore(this.byTime, max, min, 'LIMIT', offset, batch));
      for (const m of members) {
        const tab = m.indexOf('\t');
        const r = parseAuditLine(Number(m.slice(0, tab)), m.slice(tab + 1));
        if (auditMatches(r, q)) found.push(r);
      }
      if (members.length < batch) break;
    }
    return found.sort(newestFirst).slice(0, q.limit);
  }

  async prune(before: string): Promise<number> {
    const at = checkIso(before, 'before');
    return this.io(() => this.r.sbAuditPrune(this.byTime, String(Date.parse(at))));
  }
}
