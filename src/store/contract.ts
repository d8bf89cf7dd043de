// The Store contract: typed parts for all shared state. SQLite (embedded, default) and Redis (scale-out)
// implement it; one contract test suite (test/store/contract.ts) runs against every implementation. The live state
// several instances share (`shared`: MCP sessions, limits and breakers, the bus stream) is an optional part only a
// store reached by several instances offers (Redis; test/store/redis-shared.test.ts).
// One file above ~400 lines on purpose: it is the page a backend's implementer reads, every part's interface and its
// documented rules side by side, with no code of its own to speak of; the records are in records/, the parts'
// implementations one file each in sqlite/ and redis/ (and files/, the agent sessions of the embedded layout).
import type { BusEvent } from '../core/context.ts';
import { SwitchboardError } from '../core/errors.ts';
import type { IdempotencyClaim, Once } from './idempotency.ts';
import type { AuditQuery, NewAuditRecord } from './records/audit.ts';
import type { HookQuery, NewHookRun } from './records/hooks.ts';
import type { McpSessionRecord } from './records/mcp-sessions.ts';
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

export type { IdempotencyClaim, IdempotencyRecord, Once } from './idempotency.ts';
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

// --- agent sessions ----------------------------------------------------------------------------------------------

/** What a store needs to know of an agent session's meta; the agents room owns the rest of its shape. */
export interface AgentSessionRecord {
  schema_version: number;
  session_name: string;
  status: string;
}

/** One transcript event. `type` says what happened; the rest depends on it. `ts` is stamped on append. */
export type AgentTranscriptEvent = { type: string; ts?: string; [key: string]: unknown };

/** Transcript events from a position on, and the position after them (to read on from, as `sessions tail -f`). */
export interface AgentTranscriptPage {
  events: AgentTranscriptEvent[];
  /** Unreadable entries passed over (a line torn by a crash in the file layout). */
  skipped: number;
  /** Where the next read starts; opaque to callers (a byte offset in a file, an index in a Redis list). */
  next: number;
}

/** Who holds a session's turn lock. */
export interface AgentTurnLock {
  /** The owner given to `lock` (a hub's instance id). */
  owner: string;
  /** False when the owner is gone (its process died or its lease ran out): the lock is stale and may be taken. */
  alive: boolean;
  /** The holder in words for messages: `process 4242`, `instance 4242-ab12cd34`. */
  holder: string;
}

/**
 * Agent sessions: a meta record per session, its append-only transcript and a turn lock. The embedded layout is
 * files under the project (`src/store/files/agent-sessions.ts`, readable with `tail -f`); a store shared by several
 * machines (Redis) holds them itself. Names are checked by the agents room (`session-name.ts`) before they get here;
 * a store refuses only what would corrupt it (not a non-empty string: INVALID_INPUT).
 *
 * `holder` on writes is a fence: the write happens only while that owner holds the turn lock (CONFLICT otherwise),
 * so a turn whose lock was taken over after its lease ran out cannot write over the turn that took it.
 */
export interface AgentSessionStore<M extends AgentSessionRecord = AgentSessionRecord> {
  /** Where a session's transcript can be read, in words for messages (a file path, a command). */
  where(name: string): string;
  /** Create a session with no transcript; CONFLICT when the name is taken. */
  create(meta: M): Promise<void>;
  /** The session's meta; undefined when there is none, INTERNAL when it cannot be read. */
  get(name: string): Promise<M | undefined>;
  /**
   * Replace the meta atomically (readers see the old or the new one, never a mix); NOT_FOUND when there is none.
   * With `release`, `holder`'s turn lock goes in the same step: a turn's end is never seen without its result.
   */
  put(meta: M, opts?: { holder?: string; release?: boolean }): Promise<void>;
  /** Append events in order, all or none, each stamped with `ts` unless it has one; NOT_FOUND for no session. */
  append(name: string, events: readonly AgentTranscriptEvent[], opts?: { holder?: string }): Promise<void>;
  /** Transcript events from `from` (default: the start); an unknown session has none. */
  transcript(name: string, from?: number): Promise<AgentTranscriptPage>;
  /** Every session name, sorted. */
  names(): Promise<string[]>;
  /**
   * Take the session's turn lock for `owner` for `ttlMs` (files: as long as the process lives). A live lock is
   * CONFLICT (one turn at a time), whoever holds it; a stale one is taken over.
   */
  lock(name: string, owner: string, ttlMs: number): Promise<void>;
  /** Extend `owner`'s lock by `ttlMs`; false when the lock is no longer theirs (taken over, or removed). */
  renew(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Let go of `owner`'s lock; a lock someone else holds stays. */
  unlock(name: string, owner: string): Promise<void>;
  /** Who holds the turn lock, alive or stale; undefined when nobody does. */
  lockOwner(name: string): Promise<AgentTurnLock | undefined>;
  /** Delete meta, transcript and lock; false when there was no session, CONFLICT while a live turn holds the lock. */
  remove(name: string): Promise<boolean>;
}

/** The NOT_FOUND for a session that does not exist, with what to do instead. */
export function sessionMissing(name: string): SwitchboardError {
  return new SwitchboardError(
    'NOT_FOUND',
    `No session '${name}'. Start it with agent__start, or list sessions with session__list.`,
  );
}

/** The CONFLICT for a session name that is taken (every implementation words it alike). */
export function sessionTaken(name: string): SwitchboardError {
  return new SwitchboardError(
    'CONFLICT',
    `Session '${name}' already exists. Continue it with agent__resume {session_name: '${name}'}, or pick another name.`,
  );
}

/** The CONFLICT for a session whose turn lock is held: one turn at a time. */
export function sessionBusy(name: string): SwitchboardError {
  return new SwitchboardError(
    'CONFLICT',
    `Session '${name}' is running a turn; one session runs one turn at a time. Wait with agent__status {session_name: '${name}', wait_seconds: 60}, or stop it with agent__cancel.`,
  );
}

/** The CONFLICT for deleting a session while its turn runs. */
export function sessionRunning(name: string): SwitchboardError {
  return new SwitchboardError(
    'CONFLICT',
    `Session '${name}' is running a turn; stop it with agent__cancel before cleaning it.`,
  );
}

/** The CONFLICT for a write fenced by a turn lock its writer no longer holds. */
export function sessionLockLost(name: string, holder: string): SwitchboardError {
  return new SwitchboardError(
    'CONFLICT',
    `Session '${name}': this turn (${holder}) no longer holds the session's turn lock — its lease ran out and another turn took the session over. Nothing was written.`,
  );
}

// --- shared state for scale-out -----------------------------------------------------------------------------------
// What instances behind one address share beyond the records above: live state with short lives, kept by a store
// that several processes reach (Redis). The hub's logic over it stays in serve/, policy/ and observe/.

export type { McpSessionRecord } from './records/mcp-sessions.ts';

/** A client's message carried from the instance that received it to the instance that waits for it. */
export interface RoutedMessage {
  sessionId: string;
  message: unknown;
}

/**
 * 2025-era MCP sessions (streamable HTTP) shared by instances, so any of them continues a session another opened,
 * and mailboxes that carry a client's answer to a server-to-client request to the instance waiting for it.
 * A malformed record is INVALID_INPUT and nothing is written.
 */
export interface McpSessionPart {
  /** Store (or replace) a session's record; it is gone `idleMs` after the last save or refresh. */
  save(id: string, record: McpSessionRecord, idleMs: number): Promise<void>;
  load(id: string): Promise<McpSessionRecord | undefined>;
  /** Give the record `idleMs` more from now; an unknown session is a no-op. */
  refresh(id: string, idleMs: number): Promise<void>;
  remove(id: string): Promise<void>;
  /** Note that instance `owner` waits for the client's answer to request `requestId` of a session, for `ttlMs`. */
  claim(sessionId: string, requestId: string, owner: string, ttlMs: number): Promise<void>;
  /** Take the claim on a request (read and delete in one step, so one instance gets it): its owner, if any. */
  take(sessionId: string, requestId: string): Promise<string | undefined>;
  /** Put a message in instance `owner`'s mailbox; true when a listener there received it. */
  send(owner: string, message: RoutedMessage): Promise<boolean>;
  /**
   * Hear the messages sent to instance `owner` from now on, on a connection of its own (reconnecting by itself after
   * an outage); returns the function that stops listening and closes that connection.
   */
  listen(owner: string, deliver: (message: RoutedMessage) => void): () => void;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/** A circuit as the shared store last left it. */
export interface CircuitView {
  state: CircuitState;
  /** Consecutive failures. */
  failures: number;
  /** When it last opened (canonical ISO); null: never. */
  openedAt: string | null;
  /** How many times it opened. */
  opens: number;
}

/** A shared admission: a token from the bucket and the circuit's leave, or which of the two refused. */
export type LimitVerdict =
  | {
      ok: true;
      /** Tokens left in the bucket; -1 without a rate limit. */
      remaining: number;
      /** Admitted as one of a half-open circuit's probes (give it back with `record` or `release`). */
      probe: boolean;
      state: CircuitState;
      failures: number;
    }
  | { ok: false; scope: 'rate' | 'breaker'; retryAfterMs: number; state: CircuitState };

/**
 * Rate limits (a token bucket per principal and capability) and circuit breakers (one per capability) shared by
 * instances, so 10 a minute is 10 a minute in total. Times are the store's own clock, the one every instance shares.
 * The rules are the caller's, given with each call: `rate` {limit, windowMs}, `breaker` {threshold, resetMs,
 * halfOpenProbes (default 1)}.
 */
export interface SharedLimitsPart {
  /** Take a token (when there is a rate limit), then ask the breaker, in one atomic step. */
  admit(
    principal: string,
    capability: string,
    rate: { limit: number; windowMs: number } | undefined,
    breaker: { threshold: number; resetMs: number; halfOpenProbes?: number },
  ): Promise<LimitVerdict>;
  /** Record a finished call with the capability's circuit (`probe`: it was admitted as one); the circuit after it. */
  record(capability: string, threshold: number, failed: boolean, probe: boolean): Promise<CircuitView>;
  /** Give back a probe slot without judging the circuit (the call never ran). */
  release(capability: string): Promise<void>;
}

/**
 * The stream under the event bus across instances: every instance appends, and reads what the others appended.
 * Entries are JSON texts (the bus's events); the stream keeps a bounded recent tail, the bus is live, not a record.
 */
export interface BusStreamPart {
  /** Append entries in order, in one round trip. */
  append(entries: readonly string[]): Promise<void>;
  /** The newest `count` entries, newest first. */
  latest(count: number): Promise<string[]>;
  /** A reader on a connection of its own (a read that waits holds its connection); it connects on first use. */
  reader(): BusStreamReader;
}

export interface BusStreamReader {
  /** Where the stream ends now: reading from there gets only what is appended afterwards. */
  end(): Promise<string>;
  /** Entries after position `from`, waiting up to `waitMs` for one; `next` is where to read on from. */
  read(from: string, waitMs: number): Promise<{ entries: string[]; next: string }>;
  close(): void;
}

/** The parts a store shared by several instances offers; an embedded store (SQLite) has none. */
export interface SharedState {
  readonly sessions: McpSessionPart;
  readonly limits: SharedLimitsPart;
  readonly bus: BusStreamPart;
  /**
   * A 32-byte secret every instance on the store shares (the first to ask creates it): it lives as long as the
   * store's data, so what one instance sealed with it, every instance (and a restarted one) opens.
   */
  secret(name: string): Promise<Uint8Array>;
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
