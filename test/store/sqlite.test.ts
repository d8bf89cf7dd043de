// SqliteStore: the shared Store contract on a real file and in memory, plus what only SQLite has —
// persistence across reopen, WAL, schema versioning and upgrades, cursor tampering, two handles on one file.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { applyMigration, MIGRATIONS, SCHEMA_VERSION, SqliteStore } from '../../src/store/sqlite/index.ts';
import { lineSegmentRecords } from '../fixtures/audit-schema-8/records.ts';
import { auditRecord } from '../helpers/audit.ts';
import { storeContract } from './contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'switchboard-sqlite-'));
const dbFile = () => join(dir, `${randomUUID()}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

storeContract('sqlite (file)', async (clock) => SqliteStore.open(dbFile(), clock));
storeContract('sqlite (:memory:)', async (clock) => SqliteStore.open(':memory:', clock));

/** The two audit records the upgrade tests store the old way, as a query returns them (newest first). */
const OLD_RECORDS = lineSegmentRecords.map((r, i) => ({ seq: i + 1, ...r })).reverse();

describe('SqliteStore', () => {
  const open: SqliteStore[] = [];
  const openStore = (file: string) => {
    const store = SqliteStore.open(file);
    open.push(store);
    return store;
  };
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
  });

  it('keeps tasks, instances and events across close and reopen', async () => {
    const file = dbFile();
    const first = openStore(file);
    const task = await first.tasks.create({ text: 'persist me', priority: 42, type: 'docs', metadata: { k: [1, 2] } });
    const moved = await first.tasks.update(task.id, { status: 'assigned', assignedTo: 'w1' });
    const inst = await first.instances.register('w1', ['coder'], 60_000);
    await first.events.append({ type: 'test.event', at: 'x' });
    const seq = (await first.events.recent(1))[0].seq;
    await first.close();

    const second = openStore(file);
    expect(await second.tasks.get(task.id)).toEqual(moved.ok && moved.task);
    expect(await second.instances.get('w1')).toEqual(inst);
    expect(await second.events.recent(10)).toEqual([{ seq, event: { type: 'test.event', at: 'x' } }]);
    await second.events.append({ type: 'test.event', at: 'y' });
    expect((await second.events.recent(1))[0].seq).toBe(seq + 1);
  });

  it('runs in WAL mode with the current schema version', () => {
    const file = dbFile();
    openStore(file);
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    } finally {
      raw.close();
    }
  });

  it('keeps tokens and the audit log across close and reopen', async () => {
    const file = dbFile();
    const first = openStore(file);
    const token = await first.tokens.create({ name: 'ci', hash: 'a'.repeat(64), roles: ['agent'], expiresAt: null });
    await first.audit.append({
      at: '2030-01-01T00:00:00.000Z',
      principal: 'ci',
      transport: 'rest',
      capability: 'task.list',
      input: '{}',
      outcome: 'ok',
      errorCode: null,
      errorMessage: null,
      durationMs: 3,
      requestId: 'r1',
    });
    const audit = await first.audit.query();
    await first.close();

    const second = openStore(file);
    expect(await second.tokens.findByHash('a'.repeat(64))).toEqual(token);
    expect(await second.audit.query()).toEqual(audit);
  });

  it('upgrades a version-2 file in place: its per-row audit records keep their seq through segments and back', async () => {
    const file = dbFile();
    const v2 = new Database(file);
    applyMigration(v2, MIGRATIONS[0]);
    applyMigration(v2, MIGRATIONS[1]);
    v2.pragma('user_version = 2');
    const insert = v2.prepare(
      `INSERT INTO audit (at, principal, transport, capability, input, outcome, error_code, error_message, duration_ms, request_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    insert.run('2030-01-01T00:00:00.000Z', 'alice', 'rest', 'task.create', '{"text":"a"}', 'ok', null, null, 1.5, 'r1');
    insert.run(
      '2030-01-02T00:00:00.000Z',
      'bob',
      'stdio',
      'task.fail',
      '{}',
      'error',
      'CONFLICT',
      'two\tparts\nhere',
      2,
      'r2',
    );
    v2.close();
    const store = openStore(file);
    const records = await store.audit.query();
    expect(records).toEqual(OLD_RECORDS);
    await store.audit.append({ ...records[1], at: '2030-01-03T00:00:00.000Z', requestId: 'r3' });
    expect((await store.audit.query({ limit: 1 }))[0]).toMatchObject({ seq: 3, requestId: 'r3' });
    await store.close();
  });

  it('upgrades a version-6 file: its line-format segments become rows, beside the records written after', async () => {
    const file = dbFile();
    const v6 = new Database(file);
    for (const m of MIGRATIONS.slice(0, 6)) applyMigration(v6, m);
    v6.pragma('user_version = 6');
    // Two records in the line format of schema 3 to 6, as the writer of that time stored them.
    const lines = [
      '2030-01-01T00:00:00.000Z\talice\trest\ttask.create\tok\t\t1.5\tr1\t\t{"text":"a"}',
      '2030-01-02T00:00:00.000Z\tbob\tstdio\ttask.fail\terror\tCONFLICT\t2\tr2\t"two\\tparts\\nhere"\t{}',
    ];
    v6.prepare('INSERT INTO audit_segments (first_seq, count, at_min, at_max, data) VALUES (?, ?, ?, ?, ?)').run(
      1,
      2,
      '2030-01-01T00:00:00.000Z',
      '2030-01-02T00:00:00.000Z',
      lines.join('\n'),
    );
    v6.prepare('UPDATE audit_seq SET next = 3 WHERE id = 1').run();
    v6.close();
    const store = openStore(file);
    // A new record, with text that once needed escaping.
    const carol = {
      at: '2030-01-03T00:00:00.250Z',
      principal: 'carol',
      transport: 'http',
      capability: 'demo.x',
      input: '{"q":"é€😀"}',
      outcome: 'error',
      errorCode: 'TIMEOUT',
      errorMessage: 'slow\nreally',
      durationMs: 0.125,
      requestId: 'r3',
    } as const;
    await store.audit.appendMany([carol]);
    expect(await store.audit.query()).toEqual([{ seq: 3, ...carol }, ...OLD_RECORDS]);
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.prepare('SELECT seq, request_id AS requestId FROM audit ORDER BY seq').all()).toEqual([
        { seq: 1, requestId: 'r1' },
        { seq: 2, requestId: 'r2' },
        { seq: 3, requestId: 'r3' },
      ]);
    } finally {
      raw.close();
    }
  });

  it('refuses a malformed audit row, even with raw SQL', async () => {
    const file = dbFile();
    openStore(file);
    const raw = new Database(file);
    const insert = raw.prepare(
      `INSERT INTO audit (at, principal, transport, capability, input, outcome, error_code, error_message, duration_ms, request_id)
       VALUES ('2030-01-01T00:00:00.000Z', 'p', 'stdio', 'demo.x', '{}', ?, ?, NULL, ?, 'r1')`,
    );
    try {
      expect(() => insert.run('maybe', null, 1)).toThrow(/CHECK constraint failed/);
      expect(() => insert.run('ok', 'INTERNAL', 1)).toThrow(/CHECK constraint failed/);
      expect(() => insert.run('error', null, 1)).toThrow(/CHECK constraint failed/);
      expect(() => insert.run('ok', null, -1)).toThrow(/CHECK constraint failed/);
    } finally {
      raw.close();
    }
  });

  it('upgrades a version-1 file in place, keeping its tasks, instances and events', async () => {
    // A file exactly as Switchboard with schema version 1 left it.
    const file = dbFile();
    const v1 = new Database(file);
    applyMigration(v1, MIGRATIONS[0]);
    v1.pragma('user_version = 1');
    v1.prepare(
      `INSERT INTO tasks (id, text, priority, status, type, metadata, assigned_to, result, error, created_at, updated_at, completed_at, version)
       VALUES ('t-legacy', 'from v1', 70, 'completed', 'docs', '{"k":[1,2]}', 'w1', '{"ok":true}', NULL,
               '2025-01-01T00:00:00.000Z', '2025-01-02T00:00:00.000Z', '2025-01-02T00:00:00.000Z', 3)`,
    ).run();
    v1.prepare(
      `INSERT INTO instances (id, roles, registered_at, last_seen_at, expires_at)
       VALUES ('w1', '["coder"]', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z', 4102444800000)`,
    ).run();
    v1.prepare(`INSERT INTO events (type, data) VALUES ('test.event', '{"type":"test.event","at":"x"}')`).run();
    v1.close();

    const store = openStore(file);
    expect(await store.tasks.get('t-legacy')).toEqual({
      id: 't-legacy',
      text: 'from v1',
      priority: 70,
      status: 'completed',
      type: 'docs',
      metadata: { k: [1, 2] },
      estimatedComplexity: null,
      assessment: null,
      assignedTo: 'w1',
      // Schema 10's columns: who created and finished it was not recorded before.
      createdBy: null,
      completedBy: null,
      result: { ok: true },
      error: null,
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-02T00:00:00.000Z',
      completedAt: '2025-01-02T00:00:00.000Z',
      version: 3,
    });
    expect(await store.instances.get('w1')).toMatchObject({ roles: ['coder'], expiresAt: 4102444800000 });
    expect(await store.events.recent(10)).toEqual([{ seq: 1, event: { type: 'test.event', at: 'x' } }]);
    // The new parts work on the upgraded file, and old parts keep working.
    await store.tokens.create({ name: 'ci', hash: 'b'.repeat(64), roles: [], expiresAt: null });
    expect(await store.tokens.count()).toBe(1);
    expect(await store.audit.query()).toEqual([]);
    // Migration 4: finished tasks are found by time, and hook runs can be recorded.
    expect((await store.tasks.finished({ since: '2025-01-01T00:00:00.000Z' })).map((t) => t.id)).toEqual(['t-legacy']);
    expect(await store.hooks.runs({ since: '2000-01-01T00:00:00.000Z' })).toEqual([]);
    await store.tasks.create({ text: 'after upgrade', priority: 1 });
    expect((await store.tasks.list()).tasks.map((t) => t.id)).toContain('t-legacy');
    await store.close();

    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    } finally {
      raw.close();
    }
  });

  it('upgrades a version-10 file: its tokens stay unbound, new ones can be bound to a profile, a bad name is refused', async () => {
    const file = dbFile();
    const v10 = new Database(file);
    for (const step of MIGRATIONS.slice(0, 10)) applyMigration(v10, step);
    v10.pragma('user_version = 10');
    v10
      .prepare(
        `INSERT INTO tokens (name, hash, roles, created_at, expires_at, last_used_at)
         VALUES ('old', '${'c'.repeat(64)}', '["agent"]', '2025-01-01T00:00:00.000Z', NULL, NULL)`,
      )
      .run();
    v10.close();
    const store = openStore(file);
    expect(await store.tokens.get('old')).toMatchObject({ name: 'old', roles: ['agent'], profile: null });
    await store.tokens.create({ name: 'rev', hash: 'd'.repeat(64), roles: [], expiresAt: null, profile: 'reviewer' });
    expect((await store.tokens.get('rev'))?.profile).toBe('reviewer');
    await store.close();
    const raw = new Database(file);
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      // The column's CHECK holds even against raw SQL: a profile name that could not be in a URL is refused.
      expect(() => raw.prepare(`UPDATE tokens SET profile = 'a b' WHERE name = 'old'`).run()).toThrow(/CHECK/);
    } finally {
      raw.close();
    }
  });

  it('refuses to rewrite an audit record, even with raw SQL', async () => {
    const file = dbFile();
    const store = openStore(file);
    await store.audit.append(auditRecord(1, { principal: 'alice' }));
    const raw = new Database(file);
    try {
      expect(() => raw.prepare(`UPDATE audit SET principal = 'mallory'`).run()).toThrow(/append-only/);
    } finally {
      raw.close();
    }
    expect(await store.audit.query()).toMatchObject([{ principal: 'alice' }]);
  });

  it('reopening an up-to-date file does not migrate again', async () => {
    const file = dbFile();
    const first = openStore(file);
    await first.tasks.create({ text: 'x', priority: 1 });
    await first.close();
    const second = openStore(file);
    expect((await second.tasks.list()).tasks).toHaveLength(1);
  });

  it('refuses a file written by a newer schema and leaves it untouched', () => {
    const file = dbFile();
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => SqliteStore.open(file)).toThrow(/schema version .* newer than this Switchboard supports/);
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    check.close();
  });

  it('rejects tampered cursors with INVALID_INPUT that says what to do', async () => {
    const store = openStore(':memory:');
    for (let i = 0; i < 3; i++) await store.tasks.create({ text: `t${i}`, priority: 1 });
    const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
    const tampered = [
      b64('not json'),
      b64({ p: 'high', c: '2024', i: 't-1' }),
      b64({ p: 1.5, c: '2024', i: 't-1' }),
      b64({ p: 1, c: 2024, i: 't-1' }),
      b64([1, '2024', 't-1']),
      b64(null),
      'a'.repeat(2000),
      'abc=',
      'ab cd',
    ];
    for (const cursor of tampered) {
      await expect(store.tasks.list({ cursor })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/cursor .*Pass the nextCursor of the previous page unchanged/),
      });
    }
  });

  it('issues opaque base64url cursors', async () => {
    const store = openStore(':memory:');
    for (let i = 0; i < 3; i++) await store.tasks.create({ text: `t${i}`, priority: 1 });
    const { nextCursor } = await store.tasks.list({ limit: 1 });
    expect(nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('issues time-sortable task ids', async () => {
    const store = openStore(':memory:');
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) ids.push((await store.tasks.create({ text: `t${i}`, priority: 1 })).id);
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]).toMatch(/^t-[0-9a-z]{16}$/);
  });

  it('shares state and compare-and-set between two handles on one file', async () => {
    const file = dbFile();
    const a = openStore(file);
    const b = openStore(file);
    const task = await a.tasks.create({ text: 'shared', priority: 1 });
    expect(await b.tasks.get(task.id)).toEqual(task);
    expect(
      await b.tasks.update(task.id, { status: 'assigned', assignedTo: 'w2' }, { from: ['pending'] }),
    ).toMatchObject({ ok: true });
    expect(
      await a.tasks.update(task.id, { status: 'assigned', assignedTo: 'w1' }, { from: ['pending'] }),
    ).toMatchObject({
      ok: false,
      reason: 'conflict',
      task: { assignedTo: 'w2' },
    });
  });

  it('pings false and fails calls with UNAVAILABLE once closed; closing twice is harmless', async () => {
    const store = SqliteStore.open(':memory:');
    expect(await store.ping()).toBe(true);
    await store.close();
    await store.close();
    expect(await store.ping()).toBe(false);
    await expect(store.tasks.list()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });

  it('rejects an event JSON cannot hold without breaking the log', async () => {
    const store = openStore(':memory:');
    const cyclic: Record<string, unknown> = { type: 'test.event', at: 'x' };
    cyclic.self = cyclic;
    await expect(store.events.append(cyclic as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await store.events.append({ type: 'test.event', at: 'y' });
    expect((await store.events.recent(10)).map((e) => e.event.at)).toEqual(['y']);
  });
});

describe('SqliteStore audit sink (worker thread)', () => {
  it('writes batches off the event loop; flush makes them visible to the main connection; close is clean', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { SqliteStore } = await import('../../src/store/sqlite/index.ts');
    const store = SqliteStore.open(join(mkdtempSync(join(tmpdir(), 'sb-sink-')), 'state.db'));
    const errors: string[] = [];
    const sink = store.audit.openSink?.((m) => errors.push(m));
    expect(sink).toBeDefined();
    const record = (i: number) => auditRecord(i, { input: `{"i":${i}}` });
    sink!.write(Array.from({ length: 300 }, (_, i) => record(i)));
    sink!.write([
      {
        ...record(300),
        outcome: 'error',
        errorCode: 'CONFLICT',
        errorMessage: 'line one\nline\ttwo',
        input: '{"a":"tab\\there"}',
      },
    ]);
    await sink!.flush();
    const rows = await store.audit.query({ limit: 1000 });
    expect(rows).toHaveLength(301);
    expect(rows[0]).toMatchObject({
      requestId: 'r300',
      errorCode: 'CONFLICT',
      errorMessage: 'line one\nline\ttwo',
      input: '{"a":"tab\\there"}',
    });
    expect(errors).toEqual([]);
    await sink!.close();
    await store.close();
    const memory = SqliteStore.open(':memory:');
    expect(memory.audit.openSink?.(() => {})).toBeUndefined();
    await memory.close();
  });
});

describe('SqliteStore token version across connections', () => {
  it('changes when another connection (the CLI) creates or revokes a token', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { SqliteStore } = await import('../../src/store/sqlite/index.ts');
    const file = join(mkdtempSync(join(tmpdir(), 'sb-ver-')), 'state.db');
    const server = SqliteStore.open(file);
    const cli = SqliteStore.open(file);
    const v0 = await server.tokens.version();
    await cli.tokens.create({ name: 'x', hash: 'a'.repeat(64), roles: [], expiresAt: null });
    const v1 = await server.tokens.version();
    expect(v1).not.toBe(v0);
    await cli.tokens.revoke('x');
    expect(await server.tokens.version()).not.toBe(v1);
    await cli.close();
    await server.close();
  });
});

describe('SqliteStore audit sink under write contention', () => {
  it('loses no batch while the main connection writes at the same time', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { SqliteStore } = await import('../../src/store/sqlite/index.ts');
    const store = SqliteStore.open(join(mkdtempSync(join(tmpdir(), 'sb-busy-')), 'state.db'));
    const errors: string[] = [];
    const sink = store.audit.openSink?.((m) => errors.push(m));
    if (!sink) throw new Error('a file store must offer an audit sink');
    for (let round = 0; round < 60; round++) {
      sink.write(Array.from({ length: 20 }, (_, i) => auditRecord(round * 20 + i)));
      await store.events.appendMany([
        { type: 'test.a', at: new Date().toISOString() },
        { type: 'test.b', at: new Date().toISOString() },
      ]);
      await store.tasks.create({ text: `t${round}`, priority: 1 });
      await store.audit.prune('2000-01-01T00:00:00.000Z');
    }
    await sink.flush();
    expect(errors).toEqual([]);
    expect(await store.audit.query({ limit: 10_000 })).toHaveLength(1200);
    await sink.close();
    await store.close();
  });
});

describe('SqliteStore audit sink with large and multi-byte batches', () => {
  it('keeps every record, whole and in order, when batches arrive faster than the writer stores them', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { SqliteStore } = await import('../../src/store/sqlite/index.ts');
    const store = SqliteStore.open(join(mkdtempSync(join(tmpdir(), 'sb-large-')), 'state.db'));
    const errors: string[] = [];
    const sink = store.audit.openSink?.((m) => errors.push(m));
    if (!sink) throw new Error('a file store must offer an audit sink');
    // Multi-byte text (2-, 3- and 4-byte UTF-8) makes every frame's byte length differ from its character count.
    const text = (i: number, size: number) => `é€😀${i}`.padEnd(size, 'ß');
    const record = (i: number, size: number) => auditRecord(i, { input: JSON.stringify({ t: text(i, size) }) });
    let next = 0;
    const batch = (n: number, size: number) => Array.from({ length: n }, () => record(next++, size));
    // ~6 MB handed over without waiting, so the writer falls behind; big, tiny and single-record batches mixed.
    for (let round = 0; round < 6; round++) {
      sink.write(batch(500, 1500));
      sink.write(batch(3, 10));
      sink.write(batch(1, 60_000));
    }
    await sink.flush();
    expect(errors).toEqual([]);
    const rows = await store.audit.query({ limit: 10_000 });
    expect(rows).toHaveLength(next);
    // Newest first; seq follows the order the records were written in.
    expect(rows.map((r) => r.requestId)).toEqual(Array.from({ length: next }, (_, i) => `r${next - 1 - i}`));
    for (const r of rows) {
      const i = Number(r.requestId.slice(1));
      expect(JSON.parse(r.input).t.startsWith(`é€😀${i}`)).toBe(true);
    }
    await sink.close();
    await store.close();
  }, 60_000);
});
