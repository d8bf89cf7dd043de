// The Store contract: typed parts for all shared state. SQLite (embedded, default) and Redis (scale-out)
// implement it; one contract test suite (test/store/contract.ts) runs against every implementation.
import type { BusEvent } from '../core/context.ts';

export const TASK_STATUSES = ['pending', 'assigned', 'in_progress', 'completed', 'failed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export interface Task {
  id: string;
  text: string;
  priority: number;
  status: TaskStatus;
  type: string | null;
  metadata: Record<string, unknown> | null;
  /** Instance the task is assigned to, while assigned or in progress (kept after completion for history). */
  assignedTo: string | null;
  result: unknown;
  /** Reason given by task.fail. */
  error: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** Incremented on every change; used for compare-and-set updates. */
  version: number;
}

export interface NewTask {
  text: string;
  priority: number;
  type?: string | null;
  metadata?: Record<string, unknown> | null;
}

export type TaskPatch = Partial<
  Pick<Task, 'text' | 'priority' | 'status' | 'type' | 'metadata' | 'assignedTo' | 'result' | 'error' | 'completedAt'>
>;

export interface TaskFilter {
  status?: TaskStatus[];
  assignedTo?: string;
  type?: string;
  /** 1..500, default 50. */
  limit?: number;
  /** Opaque cursor from a previous page's `nextCursor`. */
  cursor?: string;
}

export interface TaskPage {
  tasks: Task[];
  nextCursor: string | null;
}

export type TaskUpdateResult =
  | { ok: true; task: Task }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'conflict'; task: Task };

export interface TaskStore {
  create(task: NewTask): Promise<Task>;
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

/** What a token name may look like: 1..64 characters from `A-Z a-z 0-9 _ . -` (case-sensitive). */
export const TOKEN_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

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

export interface NewToken {
  name: string;
  hash: string;
  roles: string[];
  expiresAt: string | null;
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

export const AUDIT_OUTCOMES = ['ok', 'error'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** Page size of an audit query when none is given, and the largest a caller may ask for. */
export const AUDIT_DEFAULT_LIMIT = 100;
export const AUDIT_MAX_LIMIT = 10_000;

/** One call, as the audit log keeps it. */
export interface AuditRecord {
  /** Assigned by the log on append: increasing, never reused (not even after prune). */
  seq: number;
  /** When the call started, canonical UTC ISO. */
  at: string;
  /** Principal id (token name, `local`, …). */
  principal: string;
  /** How the call arrived: a `TransportKind` (stdio, http, rest, cli, internal). */
  transport: string;
  /** Capability name as asked for (also when it turned out unknown). */
  capability: string;
  /**
   * The call input as already-redacted JSON text, capped by the caller (`redactedJson` in src/observe/redact.ts).
   * Stored verbatim; a capped value is not valid JSON, so readers must not assume it parses.
   */
  input: string;
  outcome: AuditOutcome;
  /** Error code from the error table when outcome is 'error' (required then); null when 'ok'. */
  errorCode: string | null;
  /** Error message when outcome is 'error' (may be null); null when 'ok'. */
  errorMessage: string | null;
  /** Wall time of the call in milliseconds (fractions allowed), ≥ 0. */
  durationMs: number;
  requestId: string;
}

export type NewAuditRecord = Omit<AuditRecord, 'seq'>;

export interface AuditQuery {
  /** Only records at or after this ISO time (inclusive). */
  since?: string;
  /** Only records before this ISO time (exclusive). */
  until?: string;
  /** Exact capability name. */
  capability?: string;
  /** Exact principal id. */
  principal?: string;
  outcome?: AuditOutcome;
  /** 1..{@link AUDIT_MAX_LIMIT}, default {@link AUDIT_DEFAULT_LIMIT}. */
  limit?: number;
}

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

/** A batched writer of trusted audit records; `flush` resolves when everything written before it is stored. */
export interface AuditSink {
  write(records: readonly NewAuditRecord[]): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}

// --- the store ---------------------------------------------------------------------------------------------------

export interface Store {
  readonly kind: 'sqlite' | 'redis' | 'memory';
  readonly tasks: TaskStore;
  readonly instances: InstanceStore;
  readonly events: EventLog;
  readonly tokens: TokenStore;
  readonly audit: AuditLog;
  /** Cheap liveness probe for health checks. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
