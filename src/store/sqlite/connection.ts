// The SQLite connection every part of the store shares: opening it (with the addon's path), its pragmas, and the
// driver's types and error codes the parts use.
import { createRequire } from 'node:module';
import Database from 'better-sqlite3';
import { sqliteAddon } from './addon.ts';

export type Db = Database.Database;
export type Statement = Database.Statement;

/**
 * A better-sqlite3 connection, given the addon's path when it is where the package builds it. In the startup
 * snapshot better-sqlite3's JavaScript is part of the blob, and that copy cannot look for the addon itself (the
 * `bindings` package it would use finds it from its own file's path): without a path, the package is loaded from
 * node_modules as a normal start does.
 */
export function openDatabase(file: string): Db {
  const addon = sqliteAddon();
  if (addon) return new Database(file, { nativeBinding: addon });
  const Installed = createRequire(import.meta.url)('better-sqlite3') as typeof Database;
  return new Installed(file);
}

/** WAL journal, synchronous=NORMAL, busy_timeout 5 s. */
export function configure(db: Db): void {
  // busy_timeout first: switching to WAL itself needs a lock another process may hold.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
}

export function isConstraint(err: unknown, code: string): boolean {
  return err instanceof Database.SqliteError && err.code === code;
}
