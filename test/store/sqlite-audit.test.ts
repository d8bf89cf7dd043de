// The SQLite audit log as rows (schema 9): a file whose records the Switchboard of schema 8 stored as segments
// upgrades to rows that answer exactly as before, in one transaction; and every kind of query reads an index.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditQuery, AuditRecord } from '../../src/store/contract.ts';
import { checkAuditQuery, singleLine } from '../../src/store/records/audit.ts';
import { auditQuerySql } from '../../src/store/sqlite/audit.ts';
import { applyMigration, MIGRATIONS, SCHEMA_VERSION, SqliteStore } from '../../src/store/sqlite/index.ts';
import { lineSegmentRecords, mainRecords, sinkBatches } from '../fixtures/audit-schema-8/records.ts';
import { auditRecord } from '../helpers/audit.ts';

const FIXTURE = join(import.meta.dirname, '../fixtures/audit-schema-8');
const expected = JSON.parse(readFileSync(join(FIXTURE, 'expected.json'), 'utf8')) as {
  records: AuditRecord[];
  answers: { query: AuditQuery; seqs: number[] }[];
};
const dir = mkdtempSync(join(tmpdir(), 'switchboard-audit-rows-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the schema-8 fixture (state.db as the old code left it). */
function oldFile(): string {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.db`);
  copyFileSync(join(FIXTURE, 'state.db'), file);
  return file;
}

function withRaw<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

const tables = (db: Database.Database) =>
  (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'audit%'").pluck().all() as string[])
    .slice()
    .sort();

describe('SQLite audit upgrade from segments (schema 8) to rows', () => {
  it('keeps every record, field by field, and answers every query as the old code did', async () => {
    const file = oldFile();
    // The fixture is what it says: schema 8, its records in segments (line and batch formats).
    withRaw(file, (db) => {
      expect(db.pragma('user_version', { simple: true })).toBe(8);
      expect(db.prepare('SELECT count(*) AS n, sum(times IS NULL) AS lines FROM audit_segments').get()).toEqual({
        n: 7,
        lines: 1,
      });
    });
    const store = SqliteStore.open(file);
    try {
      const all = await store.audit.query({ limit: 10_000 });
      expect(all).toHaveLength(546);
      expect(all).toEqual(expected.records);
      // …which are the records written, in their order (the API's checks had made names single lines).
      const written = [
        ...lineSegmentRecords,
        ...mainRecords
          .flat()
          .map((r) => ({ ...r, principal: singleLine(r.principal), requestId: singleLine(r.requestId) })),
        ...sinkBatches.flat(),
      ];
      expect([...all].reverse().map(({ seq, ...r }) => r)).toEqual(written);
      const bySeq = new Map(all.map((r) => [r.seq, r]));
      for (const { query, seqs } of expected.answers) {
        expect(seqs.length, JSON.stringify(query)).toBeGreaterThan(0);
        expect(await store.audit.query(query), JSON.stringify(query)).toEqual(seqs.map((s) => bySeq.get(s)));
      }
      // The log goes on from the old counter; retention deletes exactly the records before the cutoff (alice's, which
      // shared a segment with bob's: a segment went only when all its records were older).
      await store.audit.append(auditRecord(1, { at: '2031-01-01T00:00:00.000Z' }));
      expect((await store.audit.query({ limit: 1 }))[0]).toMatchObject({ seq: 550, requestId: 'r1' });
      expect(await store.audit.prune('2030-01-01T12:00:00.000Z')).toBe(1);
      expect((await store.audit.query({ until: '2030-01-03T00:00:00.000Z' })).map((r) => r.seq)).toEqual([2]);
    } finally {
      await store.close();
    }
    withRaw(file, (db) => {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(tables(db)).toEqual(['audit']);
      expect(db.prepare('SELECT count(*) FROM audit').pluck().get()).toBe(546);
    });
  });

  it('the writer thread stores its batches in the upgraded file', async () => {
    const store = SqliteStore.open(oldFile());
    try {
      const errors: string[] = [];
      const sink = store.audit.openSink?.((m) => errors.push(m));
      if (!sink) throw new Error('a file store must offer an audit sink');
      sink.write([
        auditRecord(7, { at: '2031-01-01T00:00:00.000Z' }),
        auditRecord(8, { at: '2031-01-01T00:00:00.000Z' }),
      ]);
      await sink.close();
      expect(errors).toEqual([]);
      expect(await store.audit.query({ since: '2031-01-01T00:00:00.000Z' })).toMatchObject([
        { seq: 551, requestId: 'r8' },
        { seq: 550, requestId: 'r7' },
      ]);
    } finally {
      await store.close();
    }
  });

  it('does not reuse a seq when every record had been pruned before the upgrade', async () => {
    const file = join(dir, 'pruned.db');
    withRaw(file, (db) => {
      for (const m of MIGRATIONS.slice(0, 8)) applyMigration(db, m);
      db.pragma('user_version = 8');
      db.prepare('UPDATE audit_seq SET next = 42 WHERE id = 1').run();
    });
    const store = SqliteStore.open(file);
    try {
      await store.audit.append(auditRecord(1));
      expect(await store.audit.query()).toMatchObject([{ seq: 42 }]);
    } finally {
      await store.close();
    }
  });

  it('upgrades all or nothing: a segment it cannot read leaves the file at schema 8, every segment kept', () => {
    const file = oldFile();
    withRaw(file, (db) => {
      db.prepare('INSERT INTO audit_segments (first_seq, count, at_min, at_max, data) VALUES (?, ?, ?, ?, ?)').run(
        1000,
        1,
        '2030-02-01T00:00:00.000Z',
        '2030-02-01T00:00:00.000Z',
        '2030-02-01T00:00:00.000Z\tp\tstdio\tdemo.x\terror\tINTERNAL\t1\tr\t"unterminated\t{}',
      );
    });
    expect(() => SqliteStore.open(file)).toThrow(
      /could not be upgraded from schema version 8 to 9: .*JSON.*The file is unchanged/s,
    );
    withRaw(file, (db) => {
      expect(db.pragma('user_version', { simple: true })).toBe(8);
      expect(tables(db)).toEqual(['audit_segments', 'audit_seq']);
      expect(db.prepare('SELECT sum(count) FROM audit_segments').pluck().get()).toBe(547);
    });
  });
});

describe('SQLite audit queries', () => {
  it('read an index for every combination of filters, newest first without a sort', () => {
    const db = new Database(':memory:');
    try {
      for (const m of MIGRATIONS) applyMigration(db, m);
      const filters: AuditQuery[] = [];
      for (const capability of [undefined, 'demo.x'])
        for (const principal of [undefined, 'p'])
          for (const outcome of [undefined, 'ok', 'error'] as const) filters.push({ capability, principal, outcome });
      for (const f of filters) {
        const q = checkAuditQuery(f);
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${auditQuerySql(q)}`).all(q) as { detail: string }[])
          .map((p) => p.detail)
          .join('; ');
        expect(plan, JSON.stringify(f)).toMatch(
          /^SEARCH audit USING (COVERING )?INDEX audit_\w+ \(.*at>\? AND at<\?\)$/,
        );
        if (f.outcome === 'error' && !f.capability && !f.principal) expect(plan).toContain('audit_errors_by_at');
      }
    } finally {
      db.close();
    }
  });
});
