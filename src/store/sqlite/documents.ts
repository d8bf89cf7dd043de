// Small JSON documents by namespace and key in the SQLite store.
import type { DocumentStore, StoredDocument } from '../contract.ts';
import { checkDocumentId, documentJson } from '../records/documents.ts';
import type { Db, Statement } from './connection.ts';

interface DocumentRow {
  namespace: string;
  key: string;
  value: string;
  updated_at: string;
}

function toDocument<T>(row: DocumentRow): StoredDocument<T> {
  return { namespace: row.namespace, key: row.key, value: JSON.parse(row.value) as T, updatedAt: row.updated_at };
}

export class SqliteDocuments implements DocumentStore {
  private readonly getStmt: Statement;
  private readonly putStmt: Statement;
  private readonly deleteStmt: Statement;
  private readonly listStmt: Statement;

  constructor(
    db: Db,
    private readonly live: () => void,
  ) {
    this.getStmt = db.prepare('SELECT * FROM documents WHERE namespace = ? AND key = ?');
    this.putStmt = db.prepare(
      `INSERT INTO documents (namespace, key, value, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
    this.deleteStmt = db.prepare('DELETE FROM documents WHERE namespace = ? AND key = ?');
    this.listStmt = db.prepare('SELECT * FROM documents WHERE namespace = ? ORDER BY key');
  }

  async get<T>(namespace: string, key: string): Promise<StoredDocument<T> | undefined> {
    this.live();
    checkDocumentId(namespace, key);
    const row = this.getStmt.get(namespace, key) as DocumentRow | undefined;
    return row ? toDocument<T>(row) : undefined;
  }

  async put(namespace: string, key: string, value: unknown): Promise<StoredDocument> {
    this.live();
    checkDocumentId(namespace, key);
    const text = documentJson(value);
    const updatedAt = new Date().toISOString();
    this.putStmt.run(namespace, key, text, updatedAt);
    return { namespace, key, value: JSON.parse(text), updatedAt };
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    this.live();
    checkDocumentId(namespace, key);
    return this.deleteStmt.run(namespace, key).changes > 0;
  }

  async list<T>(namespace: string): Promise<StoredDocument<T>[]> {
    this.live();
    checkDocumentId(namespace, 'x');
    return (this.listStmt.all(namespace) as DocumentRow[]).map((r) => toDocument<T>(r));
  }
}
