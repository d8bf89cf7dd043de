// The Store contract: typed parts for all shared state. SQLite (embedded, default) and Redis (scale-out)
// implement it; one contract test suite (test/store/contract.ts) runs against every implementation. The live state
// several instances share (`shared`: MCP sessions, limits and breakers, the bus stream) is an optional part only a
// store reached by several instances offers (Redis; test/store/redis-shared.test.ts).
// This file is the page a backend's implementer reads, every part's interface and its rules side by side; the two
// larger optional parts stand beside it (contract-agent-sessions.ts, contract-shared.ts) and are re-exported here.
// The records are in records/, the implementations one file a part in sqlite/, redis/ and files/.
import type { BusEvent } from '../core/context.ts';
import type { IdempotencyClaim, Once } from '../core/idempotency.ts';
import type { AgentSessionStore } from './contract-agent-sessions.ts';
import type { OAuthLoginStore } from './contract-oauth-logins.ts';
import type { SharedState } from './contract-shared.ts';
import type { AuditQuery, NewAuditRecord } from './records/audit.ts';
import type { HookQuery, NewHookRun } from './records/hooks.ts';
import type { NewScriptRun, ScriptRunFilter, ScriptRunStatus } from './records/script-runs.ts';
import type { NewTaskAttachment, TaskAttachment } from './records/task-attachments.ts';
import type {
  FinishedQuery,
  NewTask,
  TaskAssessment,
  TaskComplexity,
  TaskFilter,
  TaskStatus,
} from './records/tasks.ts';
import type { NewToken } from './records/tokens.ts';

export type { IdempotencyClaim, Once } from '../core/idempotency.ts';
export * from './contract-agent-sessions.ts';
export * from './contract-oauth-logins.ts';
export * from './contract-shared.ts';
export type { IdempotencyRecord } from './idempotency.ts';
export type { AttachmentType, NewTaskAttachment, TaskAttachment } from './records/task-attachments.ts';
export type {
  FinishedQuery,
  NewTask,
  TaskAssessment,
  TaskComplexity,
  TaskFilter,
  TaskOutcome,
  TaskStatus,
} from './records/tasks.ts';
export { TASK_COMPLEXITIES, TASK_OUTCOMES, TASK_STATUSES } from './records/tasks.ts';

export interface Task {
  id: string;
  text: string;
  priority: number;
  status: TaskStatus;
  type: string | null;
  metadata: Record<string, unknown> | null;
  estimatedComplexity: TaskComplexity | null;
  /** Recorded by task.complete; null until then (and for tasks completed without one). */
  assessment: TaskAssessment | null;
  /** Instance the task is assigned to, while assigned or in progress (kept after completion for history). */
  assignedTo: string | null;
  /** Principal that created the task (null for tasks created before this was recorded, or by the store directly). */
  createdBy: string | null;
  /** Principal that completed or failed it; null while open. */
  completedBy: string | null;
  result: unknown;
  /** Reason given by task.fail. */
  error: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** Incremented on every change; used for compare-and-set updates. */
  version: number;
}

export type TaskPatch = Partial<
  Pick<
    Task,
    | 'text'
    | 'priority'
    | 'status'
    | 'type'
    | 'metadata'
    | 'assignedTo'
    | 'result'
    | 'error'
    | 'completedAt'
    | 'estimatedComplexity'
    | 'assessment'
    | 'completedBy'
  >
>;

export interface TaskPage {
  tasks: Task[];
  nextCursor: string | null;
}

export type TaskUpdateResult =
  | { ok: true; task: Task }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'conflict'; task: Task };

export type AttachResult =
  | { ok: true; attachment: TaskAttachment }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'full' };

export interface TaskStore {
  create(task: NewTask): Promise<Task>;
  /**
   * Create several tasks, all or none: every task is checked first (a bad one is INVALID_INPUT naming
   * `tasks[i].field`), then all are written in one transaction / one MULTI. Answers them in the order given.
   */
  createMany(tasks: readonly NewTask[]): Promise<Task[]>;
  /**
   * Pull model: atomically take the first pending task in list order (priority, then age) and make it
   * in_progress, assigned to `instanceId`. Two concurrent claims never get the same task; undefined when nothing
   * is pending. The caller checks that the instance is live.
   */
  claim(instanceId: string): Promise<Task | undefined>;
  /** Remove a task and its attachments in one step; answers the task as it was, undefined if there was none. */
  delete(id: string): Promise<Task | undefined>;
  /**
   * Keep a named document on a task (the same key replaces it), atomically with the task's existence and the
   * per-task limit. The document is checked and measured first (size limit: INVALID_INPUT).
   */
  attach(attachment: NewTaskAttachment): Promise<AttachResult>;
  /** A task's attachments by key; undefined when the task does not exist. */
  attachments(taskId: string): Promise<TaskAttachment[] | undefined>;
  /**
   * Create under an idempotency key, atomically with the key: the first call with a key creates the task and keeps
   * it as the key's result until the key expires (`claim.ttlMs`); a later call with the same principal, capability,
   * key and fingerprint creates nothing and answers that first task (`replayed: true`); the same key with another
   * fingerprint is CONFLICT. A malformed claim is INVALID_INPUT and nothing is written.
   */
  createOnce(task: NewTask, claim: IdempotencyClaim): Promise<Once<Task>>;
  get(id: string): Promise<Task | undefined>;
  /** Ordered by priority (high first), then creation time, then id; stable under concurrent inserts. */
  list(filter?: TaskFilter): Promise<TaskPage>;
  /**
   * Apply `patch` atomically. With `from`, only when the current status is one of them (compare-and-set);
   * otherwise `conflict` with the current task so the caller can explain why.
   */
  update(id: string, patch: TaskPatch, opts?: { from?: readonly TaskStatus[] }): Promise<TaskUpdateResult>;
  /** Put every assigned / in-progress task of an instance back to pending; returns their ids. */
  releaseInstance(instanceId: string): Promise<string[]>;
  /** Completed and failed tasks finished since `since`, newest first (by completedAt, then id). */
  finished(query: FinishedQuery): Promise<Task[]>;
}

export interface Instance {
  id: string;
  roles: string[];
  registeredAt: string;
  lastSeenAt: string;
  /** Epoch ms after which the instance counts as gone. */
  expiresAt: number;
}

export interface InstanceStore {
  /** Create or refresh an instance (registering again replaces its roles). */
  register(id: string, roles: string[], ttlMs: number): Promise<Instance>;
  /** Extend the lease; undefined when the instance is unknown or already expired. */
  heartbeat(id: string, ttlMs: number): Promise<Instance | undefined>;
  get(id: string): Promise<Instance | undefined>;
  list(): Promise<Instance[]>;
  /** Remove instances whose lease ended before `now`; returns their ids. */
  expire(now: number): Promise<string[]>;
}

export interface StoredEvent {
  seq: number;
  event: BusEvent;
}

export interface EventLog {
  append(event: BusEvent): Promise<void>;
  /** Append several events at once, in order (all or none). */
  appendMany(events: readonly BusEvent[]): Promise<void>;
  /** The most recent `limit` events, oldest first. */
  recent(limit: number): Promise<StoredEvent[]>;
  /** Keep at most `max` events. */
  trim(max: number): Promise<void>;
}

// --- tokens --------------------------------------------------------------------------------------------------------

export type { NewToken } from './records/tokens.ts';
export { TOKEN_NAME_PATTERN } from './records/tokens.ts';

/**
 * A bearer token as stored: never the secret itself, only its SHA-256. Times are canonical UTC ISO strings
 * (`2030-01-01T00:00:00.000Z`); a store normalises any ISO time it is given to that form.
 */
export interface TokenRecord {
  /** Unique, {@link TOKEN_NAME_PATTERN}. The handle for `token revoke` and the audit principal. */
  name: string;
  /** Lowercase hex SHA-256 of the token (64 characters); see `hashToken` in src/policy/tokens.ts. */
  hash: string;
  /** Roles the token grants, as given at creation. */
  roles: string[];
  createdAt: string;
  /** When the token stops being accepted (exclusive: at `expiresAt` it is already expired); null: never. */
  expiresAt: string | null;
  /** Last successful use, as recorded by {@link TokenStore.touch}; null: never used. */
  lastUsedAt: string | null;
  /** The profile (`[profiles.NAME]`) the token is bound to: every request it makes runs under it; null: none. */
  profile: string | null;
}

/**
 * Named API tokens. Every method that takes a name rejects one that breaks {@link TOKEN_NAME_PATTERN} with
 * INVALID_INPUT naming the rule; a malformed hash or time is INVALID_INPUT too.
 */
export interface TokenStore {
  /**
   * Store a new token (createdAt: now, lastUsedAt: null). A taken name is CONFLICT
   * ("Token 'x' already exists; revoke it first with: switchboard token revoke x"); so is a hash that is
   * already stored, since a hash must identify exactly one token.
   */
  create(token: NewToken): Promise<TokenRecord>;
  /** Every token, expired ones included, sorted by name. */
  list(): Promise<TokenRecord[]>;
  get(name: string): Promise<TokenRecord | undefined>;
  /** The token with this hash, expired or not — the caller checks `expiresAt` (see `verifyInSet` in src/policy/tokens.ts). */
  findByHash(hash: string): Promise<TokenRecord | undefined>;
  /** Delete the token; true when it existed. */
  revoke(name: string): Promise<boolean>;
  /**
   * Record a use at `atIso`. Never moves lastUsedAt backwards (concurrent calls may finish out of order);
   * an unknown name is a no-op.
   */
  touch(name: string, atIso: string): Promise<void>;
  /** How many tokens exist, expired ones included. */
  count(): Promise<number>;
  /**
   * A mark that changes whenever tokens may have changed (created or revoked, by this process or another), so
   * a verifier can cache the token set and still see a revocation on the very next request. It may also change
   * for unrelated writes; it must never stay the same across a token change.
   */
  version(): Promise<string>;
}

// --- audit -------------------------------------------------------------------------------------------------------

export type { AuditOutcome, AuditQuery, NewAuditRecord } from './records/audit.ts';
export { AUDIT_DEFAULT_LIMIT, AUDIT_MAX_LIMIT, AUDIT_OUTCOMES } from './records/audit.ts';

/** One call, as the audit log keeps it: the checked record (`records/audit.ts`) and its `seq`. */
export type AuditRecord = NewAuditRecord & {
  /** Assigned by the log on append: increasing, never reused (not even after prune). */
  seq: number;
};

/**
 * The audit log: one record per call, append-only — there is no way to change a record, only to drop old ones
 * for retention. Malformed records and queries (unknown query keys included) are INVALID_INPUT.
 */
export interface AuditLog {
  /** Append one record; on every call's path, so implementations keep it to a single cheap write. */
  append(record: NewAuditRecord): Promise<void>;
  /** Append several records in order, all or none. */
  appendMany(records: readonly NewAuditRecord[]): Promise<void>;
  /** Matching records, newest first (by `at`, then by `seq` for equal times), at most `limit`. */
  query(query?: AuditQuery): Promise<AuditRecord[]>;
  /** Retention: delete every record with `at` before `before` (exclusive); returns how many were deleted. */
  prune(before: string): Promise<number>;
  /**
   * Optional: a writer for the hub's own records that keeps the work off the event loop (a worker thread, a
   * pipelined connection). Records it gets are built by the hub and are not validated again.
   */
  openSink?(onError: (message: string) => void): AuditSink | undefined;
}

/**
 * A batched writer of trusted audit records: the hub hands over plain records, and only the store knows how it keeps
 * them; `flush` resolves when everything written before it is stored.
 */
export interface AuditSink {
  /** Takes the batch over (it may be read later, on another thread): the caller must not change it afterwards. */
  write(records: readonly NewAuditRecord[]): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

// --- documents ----------------------------------------------------------------------------------------------------

/** A small JSON document kept under a namespace and key (a source's cache: an upstream server's tool list). */
export interface StoredDocument<T = unknown> {
  namespace: string;
  key: string;
  value: T;
  /** ISO time of the last put. */
  updatedAt: string;
}

/**
 * Small JSON documents by namespace and key, for state a source wants to survive a restart without a table of its
 * own. Namespaces and keys are 1-200 characters; a value must be JSON (no undefined, functions or cycles) and at
 * most {@link DOCUMENT_MAX_BYTES} when serialised — anything else is INVALID_INPUT and nothing is written.
 */
export interface DocumentStore {
  get<T = unknown>(namespace: string, key: string): Promise<StoredDocument<T> | undefined>;
  /** Insert or replace. */
  put(namespace: string, key: string, value: unknown): Promise<StoredDocument>;
  /** True when something was deleted. */
  delete(namespace: string, key: string): Promise<boolean>;
  /** Every document of a namespace, by key. */
  list<T = unknown>(namespace: string): Promise<StoredDocument<T>[]>;
}

export { checkDocumentId, DOCUMENT_MAX_BYTES, documentJson } from './records/documents.ts';

// --- plugin hook runs --------------------------------------------------------------------------------------------

export type { NewHookRun } from './records/hooks.ts';

/** One run of a plugin hook in one directory, kept for task outcome metrics and diagnostics. */
export type HookRun = NewHookRun & {
  /** Assigned by the store on record: increasing. */
  seq: number;
};

/**
 * Plugin hook state: the run record (what passed and failed, when) and the `if_changed` fingerprints of the last
 * successful run per hook and directory. Malformed records are INVALID_INPUT.
 */
export interface HookStore {
  record(run: NewHookRun): Promise<HookRun>;
  /** Runs with `at` in [since, until), oldest first, at most `limit` (1..10 000, default 10 000). */
  runs(query: HookQuery): Promise<HookRun[]>;
  /**
   * The mark stored under `key`, if any: the `if_changed` fingerprint of a hook in a directory, or another small
   * per-key value of the plugin layer (the consecutive stop blocks of an agent session).
   */
  fingerprint(key: string): Promise<string | undefined>;
  /** Store a mark; null forgets it. */
  setFingerprint(key: string, fingerprint: string | null): Promise<void>;
  /** Delete runs before `before` (retention); returns how many went. */
  prune(before: string): Promise<number>;
}

// --- script runs -------------------------------------------------------------------------------------------------

export type { NewScriptRun, ScriptRunFilter, ScriptRunStatus } from './records/script-runs.ts';
export { SCRIPT_RUN_ID_PATTERN, SCRIPT_RUN_STATUSES } from './records/script-runs.ts';

/**
 * One script run (a stack of script frames driven by one client). Its journal is an ordered list of JSON entries
 * (the executor's inputs and each auto step's result) from which a restarted hub rebuilds the run.
 */
export interface ScriptRun {
  /** `SCRIPT_RUN_ID_PATTERN`; handed to the client as `run_id`. */
  id: string;
  /** Which client drives it (`stdio`, `session:<id>`, `run:<id>`); changes when another client adopts the run. */
  clientKey: string;
  /** Principal id that started it; only that principal may drive it. */
  principal: string;
  /** Display name of the first script started (`test:nested`). */
  name: string;
  status: ScriptRunStatus;
  /** Canonical UTC ISO times; `updatedAt` moves on every append and update. */
  createdAt: string;
  updatedAt: string;
  /** How many journal entries it has. */
  entries: number;
}

/**
 * Script runs and their journals. A malformed id, entry or filter is INVALID_INPUT; journal entries must be JSON
 * objects.
 */
export interface ScriptRunStore {
  /** Store a new run (status `running`, no entries). A taken id is CONFLICT. */
  create(run: NewScriptRun): Promise<ScriptRun>;
  get(id: string): Promise<ScriptRun | undefined>;
  /** Append journal entries in order, all or none. An unknown run is NOT_FOUND. */
  append(id: string, entries: readonly Record<string, unknown>[]): Promise<void>;
  /** Every journal entry of a run, in append order; an unknown run gives an empty list. */
  journal(id: string): Promise<Record<string, unknown>[]>;
  /** Change the status or the driving client; undefined when the run is unknown. */
  update(id: string, patch: { status?: ScriptRunStatus; clientKey?: string }): Promise<ScriptRun | undefined>;
  /** Matching runs, most recently updated first. */
  list(filter?: ScriptRunFilter): Promise<ScriptRun[]>;
  /** Delete a run and its journal; true when it existed. */
  remove(id: string): Promise<boolean>;
  /** Retention: delete every finished run (and its journal) last updated before `before`; returns how many. */
  prune(before: string): Promise<number>;
}

// --- the store ---------------------------------------------------------------------------------------------------

export interface Store {
  readonly kind: 'sqlite' | 'redis' | 'memory';
  readonly tasks: TaskStore;
  readonly instances: InstanceStore;
  readonly events: EventLog;
  readonly tokens: TokenStore;
  readonly audit: AuditLog;
  readonly documents: DocumentStore;
  readonly hooks: HookStore;
  readonly scriptRuns: ScriptRunStore;
  /** OAuth logins to upstream servers, credentials sealed (docs/oauth.md#upstream-servers). */
  readonly oauthLogins: OAuthLoginStore;
  /**
   * Agent sessions kept by the store itself (Redis: instances on several machines share them). Absent on an
   * embedded store: sessions are then files in the project (`.switchboard/sessions/`), as users `tail -f` them.
   */
  readonly agentSessions?: AgentSessionStore;
  /** What several instances behind one address share (docs/scale-out.md); absent on a single-instance store. */
  readonly shared?: SharedState;
  /** Cheap liveness probe for health checks. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

// Registers the Store contract as the hub's shared state (`ctx.services.store`): core/ imports nothing above it
// (docs/decisions.md, "A kernel at the ground floor").
declare module '../core/context.ts' {
  interface HubTypes {
    store: Store;
  }
}
