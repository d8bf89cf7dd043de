// When better-sqlite3's addon is not where the package builds it (another build layout, a prebuilt binary
// elsewhere), the store loads better-sqlite3 from node_modules and lets it find its addon itself — for the main
// connection and for the audit writer thread alike.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { auditRecord } from '../helpers/audit.ts';

const lookedUp = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/store/sqlite/addon.ts', () => ({
  sqliteAddon: () => {
    lookedUp.count++;
    return undefined;
  },
}));

const { SqliteStore } = await import('../../src/store/sqlite/index.ts');

const dir = mkdtempSync(join(tmpdir(), 'sqlite-fallback-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SqliteStore without a known addon path', () => {
  it('opens, writes and reads through the installed package, and its audit writer thread stores records', async () => {
    const file = join(dir, 'state.db');
    const store = SqliteStore.open(file);
    expect(lookedUp.count).toBeGreaterThan(0);
    const task = await store.tasks.create({ text: 'opened without a path', priority: 50 });
    expect((await store.tasks.get(task.id))?.text).toBe('opened without a path');
    const errors: string[] = [];
    const sink = store.audit.openSink?.((m) => errors.push(m));
    if (!sink) throw new Error('a file store must offer an audit sink');
    sink.write([auditRecord(1)]);
    await sink.flush();
    expect(errors).toEqual([]);
    expect((await store.audit.query({})).map((r) => r.requestId)).toEqual(['r1']);
    await sink.close();
    await store.close();
  });
});
