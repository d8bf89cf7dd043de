// The store opens SQLite with better-sqlite3's addon by path (no `bindings` search); the path must be the real one.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteAddon } from '../../src/store/sqlite/addon.ts';
import { SqliteStore } from '../../src/store/sqlite/index.ts';

const dir = mkdtempSync(join(tmpdir(), 'sqlite-addon-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sqliteAddon', () => {
  it("finds better-sqlite3's compiled addon where the package builds it", () => {
    const addon = sqliteAddon();
    expect(addon).toMatch(/[/\\]better-sqlite3[/\\]build[/\\](Release|Debug)[/\\]better_sqlite3\.node$/);
    expect(existsSync(addon as string)).toBe(true);
  });

  it('opens a store file with it, which other connections can read', async () => {
    const file = join(dir, 'state.db');
    const store = SqliteStore.open(file);
    const task = await store.tasks.create({ text: 'opened by path', priority: 50 });
    await store.close();
    const again = SqliteStore.open(file);
    expect((await again.tasks.get(task.id))?.text).toBe('opened by path');
    await again.close();
  });
});
