// API tokens (hashes, roles, expiry, last use) in the SQLite store.
import { SwitchboardError } from '../../core/errors.ts';
import type { NewToken, TokenRecord, TokenStore } from '../contract.ts';
import { checkIso } from '../records/common.ts';
import { checkHash, checkNewToken, checkTokenName } from '../records/tokens.ts';
import { type Db, isConstraint, type Statement } from './connection.ts';

interface TokenRow {
  name: string;
  hash: string;
  roles: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  profile: string | null;
}

function toToken(row: TokenRow): TokenRecord {
  return {
    name: row.name,
    hash: row.hash,
    roles: JSON.parse(row.roles),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    profile: row.profile,
  };
}

export class SqliteTokens implements TokenStore {
  private readonly insert: Statement;
  private readonly byName: Statement;
  private readonly byHash: Statement;
  private readonly all: Statement;
  private readonly remove: Statement;
  private readonly use: Statement;
  private readonly total: Statement;

  constructor(
    db: Db,
    private readonly live: () => void,
  ) {
    this.insert = db.prepare(
      `INSERT INTO tokens (name, hash, roles, created_at, expires_at, last_used_at, profile)
       VALUES (@name, @hash, @roles, @created_at, @expires_at, @last_used_at, @profile)`,
    );
    this.byName = db.prepare('SELECT * FROM tokens WHERE name = ?');
    this.byHash = db.prepare('SELECT * FROM tokens WHERE hash = ?');
    this.all = db.prepare('SELECT * FROM tokens ORDER BY name');
    this.remove = db.prepare('DELETE FROM tokens WHERE name = ?');
    // Monotonic: canonical ISO text compares as time, so an out-of-order touch cannot move lastUsedAt back.
    this.use = db.prepare(
      'UPDATE tokens SET last_used_at = @at WHERE name = @name AND (last_used_at IS NULL OR last_used_at < @at)',
    );
    this.total = db.prepare('SELECT count(*) AS n FROM tokens');
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
  }

  private readonly dataVersion: Statement;
  /** Changes made through this connection (data_version only counts other connections' commits). */
  private localChanges = 0;

  async version(): Promise<string> {
    this.live();
    return `${this.dataVersion.get() as number}.${this.localChanges}`;
  }

  async create(token: NewToken): Promise<TokenRecord> {
    this.live();
    const { name, hash, roles, expiresAt, profile } = checkNewToken(token);
    const row: TokenRow = {
      name,
      hash,
      roles: JSON.stringify(roles),
      created_at: new Date().toISOString(),
      expires_at: expiresAt,
      last_used_at: null,
      profile,
    };
    try {
      this.insert.run(row);
      this.localChanges++;
    } catch (err) {
      if (isConstraint(err, 'SQLITE_CONSTRAINT_PRIMARYKEY'))
        throw new SwitchboardError(
          'CONFLICT',
          `Token '${name}' already exists; revoke it first with: switchboard token revoke ${name}`,
        );
      if (isConstraint(err, 'SQLITE_CONSTRAINT_UNIQUE'))
        throw new SwitchboardError(
          'CONFLICT',
          `Another token already has this hash; generate a new token instead of reusing one.`,
        );
      throw err;
    }
    return toToken(row);
  }

  async list(): Promise<TokenRecord[]> {
    this.live();
    return (this.all.all() as TokenRow[]).map(toToken);
  }

  async get(name: string): Promise<TokenRecord | undefined> {
    this.live();
    const row = this.byName.get(checkTokenName(name)) as TokenRow | undefined;
    return row && toToken(row);
  }

  async findByHash(hash: string): Promise<TokenRecord | undefined> {
    this.live();
    const row = this.byHash.get(checkHash(hash)) as TokenRow | undefined;
    return row && toToken(row);
  }

  async revoke(name: string): Promise<boolean> {
    this.live();
    const removed = this.remove.run(checkTokenName(name)).changes > 0;
    if (removed) this.localChanges++;
    return removed;
  }

  async touch(name: string, atIso: string): Promise<void> {
    this.live();
    this.use.run({ name: checkTokenName(name), at: checkIso(atIso, 'atIso') });
  }

  async count(): Promise<number> {
    this.live();
    return (this.total.get() as { n: number }).n;
  }
}
