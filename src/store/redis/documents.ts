// Documents on Redis: one hash per namespace (`doc:<namespace>`), each value 'updatedAt<TAB>json'; single-key
// writes, so no scripts.
import type { Redis } from 'ioredis';
import type { DocumentStore, StoredDocument } from '../contract.ts';
import { checkDocumentId, documentJson } from '../records/documents.ts';
import type { Io } from './scripts.ts';

export class RedisDocuments implements DocumentStore {
  constructor(
    private readonly r: Redis,
    private readonly P: string,
    private readonly io: Io,
  ) {}

  /** Stored as 'updatedAt<TAB>json' in one hash per namespace. */
  private decode<T>(namespace: string, key: string, text: string): StoredDocument<T> {
    const tab = text.indexOf('\t');
    return { namespace, key, value: JSON.parse(text.slice(tab + 1)) as T, updatedAt: text.slice(0, tab) };
  }

  async get<T>(namespace: string, key: string): Promise<StoredDocument<T> | undefined> {
    checkDocumentId(namespace, key);
    const text = await this.io(() => this.r.hget(`${this.P}doc:${namespace}`, key));
    return text === null ? undefined : this.decode<T>(namespace, key, text);
  }

  async put(namespace: string, key: string, value: unknown): Promise<StoredDocument> {
    checkDocumentId(namespace, key);
    const text = documentJson(value);
    const updatedAt = new Date().toISOString();
    await this.io(() => this.r.hset(`${this.P}doc:${namespace}`, key, `${updatedAt}\t${text}`));
    return { namespace, key, value: JSON.parse(text), updatedAt };
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    checkDocumentId(namespace, key);
    return (await this.io(() => this.r.hdel(`${this.P}doc:${namespace}`, key))) > 0;
  }

  async list<T>(namespace: string): Promise<StoredDocument<T>[]> {
    checkDocumentId(namespace, 'x');
    const all = await this.io(() => this.r.hgetall(`${this.P}doc:${namespace}`));
    return Object.keys(all)
      .sort()
      .map((key) => this.decode<T>(namespace, key, all[key]));
  }
}
