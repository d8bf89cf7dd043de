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
  /** The most recent `limit` events, oldest first. */
  recent(limit: number): Promise<StoredEvent[]>;
  /** Keep at most `max` events. */
  trim(max: number): Promise<void>;
}

export interface Store {
  readonly kind: 'sqlite' | 'redis' | 'memory';
  readonly tasks: TaskStore;
  readonly instances: InstanceStore;
  readonly events: EventLog;
  /** Cheap liveness probe for health checks. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
