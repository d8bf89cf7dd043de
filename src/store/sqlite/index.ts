// The embedded Store: one SQLite file (WAL) holding tasks, instances, the event log, API tokens and the audit log —
// the default on one machine. Each part of the contract is a file of this folder; this one opens the file and
// assembles them.
// Several hub processes may share the file: writes take the lock up front (BEGIN IMMEDIATE) and wait up to busy_timeout.
import { SwitchboardError } from '../../core/errors.ts';
import type {
  AuditLog,
  DocumentStore,
  EventLog,
  HookStore,
  InstanceStore,
  OAuthLoginStore,
  ScriptRunStore,
  Store,
  TaskStore,
  TokenStore,
} from '../contract.ts';
import { readClock, type StoreClock } from '../records/clock.ts';
import { SqliteAudit } from './audit.ts';
import { configure, type Db, openDatabase, type Statement } from './connection.ts';
import { SqliteDocuments } from './documents.ts';
import { SqliteEvents } from './events.ts';
import { SqliteHooks } from './hooks.ts';
import { SqliteInstances } from './instances.ts';
import { migrate } from './migrations.ts';
import { SqliteOAuthLogins } from './oauth-logins.ts';
import { SqliteScriptRuns } from './script-runs.ts';
import { SqliteTasks } from './tasks.ts';
import { SqliteTokens } from './tokens.ts';

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../records/common.ts';
export { newTaskId } from '../records/tasks.ts';
export { applyMigration, MIGRATIONS, SCHEMA_VERSION } from './migrations.ts';

/**
 * The SQLite {@link Store}: WAL journal, synchronous=NORMAL (durable across process crashes, at most the last
 * commits lost on power loss), busy_timeout 5 s, statements prepared once.
 *
 * @example
 * const store = SqliteStore.open('.switchboard/state.db');
 * const task = await store.tasks.create({ text: 'Write the README', priority: 50 });
 * await store.close();
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly tasks: TaskStore;
  readonly instances: InstanceStore;
  readonly events: EventLog;
  readonly tokens: TokenStore;
  readonly audit: AuditLog;
  readonly documents: DocumentStore;
  readonly oauthLogins: OAuthLoginStore;
  readonly hooks: HookStore;
  readonly scriptRuns: ScriptRunStore;
  private readonly pingStmt: Statement;

  private constructor(
    private readonly db: Db,
    readonly file: string,
    now: StoreClock,
  ) {
    const live = () => {
      if (!db.open) throw new SwitchboardError('UNAVAILABLE', `The SQLite store ${file} is closed.`);
    };
    this.tasks = new SqliteTasks(db, live, now);
    this.instances = new SqliteInstances(db, live, now);
    this.events = new SqliteEvents(db, live);
    this.tokens = new SqliteTokens(db, live);
    this.audit = new SqliteAudit(db, live, file);
    this.documents = new SqliteDocuments(db, live);
    this.oauthLogins = new SqliteOAuthLogins(db, live);
    this.hooks = new SqliteHooks(db, live);
    this.scriptRuns = new SqliteScriptRuns(db, live, now);
    this.pingStmt = db.prepare('SELECT 1 AS ok');
  }

  /**
   * Open (creating and migrating when needed) the store at `file`; `':memory:'` for a private in-memory store.
   * `now` is the clock instance leases are measured by (tests move it instead of waiting for a lease to end).
   */
  static open(file: string, { now = readClock }: { now?: StoreClock } = {}): SqliteStore {
    const db = openDatabase(file);
    try {
      configure(db);
      migrate(db, file);
      return new SqliteStore(db, file, now);
    } catch (err) {
      db.close();
      throw err;
    }
  }

  async ping(): Promise<boolean> {
    if (!this.db.open) return false;
    try {
      return (this.pingStmt.get() as { ok: number }).ok === 1;
    } catch {
      return false;
    }
  }

  /** Close the file; further calls fail with UNAVAILABLE. Closing twice is harmless. */
  async close(): Promise<void> {
    if (!this.db.open) return;
    try {
      // Lets SQLite refresh planner statistics for the next run; cheap, and a failure must not block closing.
      this.db.pragma('optimize');
    } catch {
      // ignore
    }
    this.db.close();
  }
}
