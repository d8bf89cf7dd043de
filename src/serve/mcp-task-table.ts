// The tasks of MCP's tasks extension (mcp-tasks.ts), kept in the hub's store beside the work they track: a task's
// state and outcome outlive a dropped connection and a restart until its time is up, and any instance on the same
// Redis answers for it. The call a task stands for runs in the instance that took it (its holder), which keeps what
// cannot be stored — the call's cancellation and the resolvers of the questions it asked — and writes every change
// of state to the store. Another instance reads the store; a cancel or an answer it receives goes to the holder
// over the shared bus (answers through the store, so no answer travels on the bus). A task whose holder is gone (it
// crashed, or stopped) is ended as `failed`, saying so, by whichever instance sees it first. Each change of state,
// once stored, is published on the bus (`mcp_task.changed`): the dashboard re-reads its list (system.mcp_tasks).
// Who holds a task and what a task whose holder is gone becomes: mcp-task-holder.ts. A little over 400 lines: what is
// left is one table whose methods all share its live tasks and their order of writes.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Cancellation } from '../core/cancellation.ts';
import type { BusEvent, Principal, Services } from '../core/context.ts';
import { SwitchboardError } from '../core/errors.ts';
import type { Hub } from '../hub.ts';
import {
  listTasks,
  type StoredTask,
  StoredTaskSchema,
  MCP_TASKS_NAMESPACE as TASKS_NAMESPACE,
  type TaskSubject,
  TERMINAL,
  taskSubject,
} from '../store/records/mcp-tasks.ts';
import { holderGone, holdsLease, orphanEnded, stoppedError } from './mcp-task-holder.ts';

/** Where an answer given at another instance waits for the holder. */
const ANSWERS_NAMESPACE = 'mcp-task-answers';
/** The bus events that ask a task's holder to cancel it, or to collect answers given at another instance. */
export const TASK_CANCEL_EVENT = 'mcp_task.cancel_requested';
export const TASK_ANSWERED_EVENT = 'mcp_task.answered';
/** The bus event that says a task was stored in a new state: `{id, status, principal, tool}` (who may see it: event-view.ts). */
export const TASK_CHANGED_EVENT = 'mcp_task.changed';

/** How long a task and its outcome are kept from its creation (and at least RETAIN_MS after it ends). */
const TTL_MS = 60 * 60_000;
const RETAIN_MS = 10 * 60_000;
/** How often expired tasks are dropped from the store. */
const SWEEP_MS = 60_000;
/** How long a cancel or an answer given at another instance waits for the holder to act on it. */
export const REMOTE_WAIT_MS = 5_000;

/**
 * How a task's call ended: with a result (`failed`: a 2025-11-25 task whose tool result is an error, which that
 * revision calls failed and still answers from tasks/result), or with a JSON-RPC error.
 */
export type TaskEnding =
  | { result: Record<string, unknown>; failed?: boolean }
  | { error: NonNullable<StoredTask['error']> };

/** A task whose call runs in this instance. */
export interface LiveTask {
  record: StoredTask;
  cancellation: Cancellation;
  /** The resolvers of its open questions, by the keys of `record.inputRequests`. */
  waiting: Map<string, { answer: (response: unknown) => void; drop: (why: unknown) => void }>;
  asked: number;
  /** The store writes of this task, in order. */
  saved: Promise<void>;
}

const notFound = (id: string) =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, `Task '${id}' not found (or expired).`);

/** The tasks of one hub: those it runs (live) and, through the store, everyone's. */
export class TaskTable {
  private readonly live = new Map<string, LiveTask>();
  private readonly sweep: NodeJS.Timeout;
  private unsubscribe: (() => void) | undefined;
  /** Whether this instance keeps a lease in the store's instance list (only then can others tell it is gone). */
  private leased: Promise<boolean> | undefined;

  constructor(
    private readonly services: Services,
    private readonly now: () => number = Date.now,
  ) {
    this.sweep = setInterval(() => void this.dropExpired(), SWEEP_MS);
    this.sweep.unref();
  }

  private get store() {
    return this.services.store;
  }

  /**
   * A new task for a call that runs here, stored before anyone is told its id; `subject`: what the call works on,
   * `wire`: made by a 2025-11-25 session (mcp-tasks-2025.ts).
   */
  async create(
    principal: Principal,
    tool: string,
    cancellation: Cancellation,
    made: { subject?: TaskSubject; wire?: StoredTask['wire'] } = {},
  ): Promise<LiveTask> {
    const at = this.now();
    this.leased ??= holdsLease(this.store, this.services.instanceId);
    const record: StoredTask = {
      id: randomBytes(16).toString('base64url'),
      principal: principal.id,
      tool,
      ...(made.subject ? { subject: made.subject } : {}),
      ...(made.wire ? { wire: made.wire } : {}),
      status: 'working',
      createdAt: new Date(at).toISOString(),
      lastUpdatedAt: new Date(at).toISOString(),
      ttlMs: TTL_MS,
      expiresAt: at + TTL_MS,
      holder: { instance: this.services.instanceId, pid: process.pid, host: hostname(), leased: await this.leased },
    };
    const task: LiveTask = { record, cancellation, waiting: new Map(), asked: 0, saved: Promise.resolve() };
    await this.store.documents.put(TASKS_NAMESPACE, record.id, record);
    this.live.set(record.id, task);
    this.follow();
    this.published(record);
    return task;
  }

  /**
   * Task `id` as `principal` may see it: another principal's task is as unknown as one that never was. A task
   * left running by an instance that is gone is ended here (`failed`, saying so).
   */
  async get(id: string, principal: Principal): Promise<StoredTask> {
    const mine = this.live.get(id)?.record;
    const record = mine ?? (await this.read(id));
    if (!record || record.principal !== principal.id || record.expiresAt <= this.now()) throw notFound(id);
    if (
      mine ||
      TERMINAL.has(record.status) ||
      !(await holderGone(record, {
        here: this.services.instanceId,
        running: (id) => this.live.has(id),
        store: this.store,
        now: this.now(),
      }))
    )
      return record;
    return this.endOrphan(record);
  }

  /** The call asks its client (`elicitation/create`, `sampling/createMessage`); resolves with the client's answer. */
  ask(task: LiveTask, method: string, params: Record<string, unknown>): Promise<unknown> {
    const { record } = task;
    if (TERMINAL.has(record.status))
      return Promise.reject(new SwitchboardError('CANCELLED', `Task '${record.id}' has ended: nothing to ask for.`));
    const key = `input-${++task.asked}`;
    const asked = new Promise((answer, drop) => task.waiting.set(key, { answer, drop }));
    record.inputRequests = { ...record.inputRequests, [key]: { method, params } };
    record.status = 'input_required';
    this.changed(task);
    return asked;
  }

  /**
   * The client's answers (`tasks/update`): each one for a question still open is handed to the call; others are
   * ignored, as the extension says. At another instance they wait in the store for the holder to collect them.
   */
  async answer(id: string, principal: Principal, responses: Record<string, unknown>): Promise<void> {
    const record = await this.get(id, principal);
    const task = this.live.get(id);
    if (task) {
      this.deliver(task, responses);
      // Acknowledged once stored: a tasks/get that follows at another instance reads the store (conformance's
      // tasks-mrtr-partial-fulfillment on two instances caught the answered key still shown there).
      return task.saved;
    }
    const open = Object.keys(responses).filter((key) => record.inputRequests?.[key]);
    if (open.length === 0) return;
    for (const key of open) await this.store.documents.put(ANSWERS_NAMESPACE, `${id}/${key}`, responses[key] ?? null);
    this.services.bus.publish({ type: TASK_ANSWERED_EVENT, task: id, at: new Date().toISOString() });
    // Answered once the holder took the answers: the next tasks/get, wherever it goes, no longer asks them.
    await this.awaitHolder(
      id,
      principal,
      (seen) => TERMINAL.has(seen.status) || !open.some((k) => seen.inputRequests?.[k]),
      'take the answers to',
    );
  }

  /** Wait (bounded) until the stored task shows the holder acted on what was asked of it through another instance. */
  private async awaitHolder(
    id: string,
    principal: Principal,
    done: (seen: StoredTask) => boolean,
    what: string,
  ): Promise<void> {
    const until = this.now() + REMOTE_WAIT_MS;
    for (let seen = await this.get(id, principal); !done(seen); seen = await this.get(id, principal)) {
      if (this.now() >= until)
        throw new SwitchboardError(
          'UNAVAILABLE',
          `Asked the Switchboard instance running task '${id}' (${seen.holder.instance}) to ${what} it, but it had not after ${REMOTE_WAIT_MS / 1000} s. Check that instance is connected to the store, and retry.`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private deliver(task: LiveTask, responses: Record<string, unknown>): void {
    const { record } = task;
    let answered = 0;
    for (const [key, response] of Object.entries(responses)) {
      const waiting = task.waiting.get(key);
      if (!waiting) continue;
      task.waiting.delete(key);
      delete record.inputRequests?.[key];
      waiting.answer(response);
      answered++;
    }
    if (answered === 0) return;
    if (record.status === 'input_required' && task.waiting.size === 0) {
      record.status = 'working';
      delete record.inputRequests;
    }
    this.changed(task);
  }

  /** The call ended: completed with its result, or failed with a JSON-RPC error; a cancelled task stays cancelled. */
  finish(task: LiveTask, ending: TaskEnding): void {
    const { record } = task;
    if (TERMINAL.has(record.status)) return;
    this.dropQuestions(task, 'the call ended');
    if ('result' in ending) {
      record.status = ending.failed ? 'failed' : 'completed';
      record.result = ending.result;
      const subject = taskSubject(record.tool, ending.result.structuredContent) ?? record.subject;
      if (subject) record.subject = subject;
    } else {
      record.status = 'failed';
      record.error = ending.error;
    }
    this.changed(task);
  }

  /**
   * Cancel a task that is still running (its call is aborted); a finished one is left as it is. A task running at
   * another instance is cancelled there: asked over the bus, this waits (bounded) until the store says it ended.
   */
  async cancel(id: string, principal: Principal): Promise<void> {
    const record = await this.get(id, principal);
    const task = this.live.get(id);
    if (task) {
      this.cancelHere(task, 'Cancelled by the client (tasks/cancel).');
      return task.saved;
    }
    if (TERMINAL.has(record.status)) return;
    this.services.bus.publish({ type: TASK_CANCEL_EVENT, task: id, at: new Date().toISOString() });
    await this.awaitHolder(id, principal, (seen) => TERMINAL.has(seen.status), 'cancel');
  }

  private cancelHere(task: LiveTask, why: string): void {
    const { record } = task;
    if (TERMINAL.has(record.status)) return;
    record.status = 'cancelled';
    record.statusMessage = why;
    this.dropQuestions(task, 'the task was cancelled');
    task.cancellation.abort();
    this.changed(task);
  }

  private dropQuestions(task: LiveTask, why: string): void {
    for (const waiting of task.waiting.values())
      waiting.drop(new SwitchboardError('CANCELLED', `No answer will come: ${why}.`));
    task.waiting.clear();
    delete task.record.inputRequests;
  }

  /**
   * This instance stops: every task still running here ends `failed` (its call is aborted), written to the store so
   * a client polling through any instance, or after a restart, learns what happened.
   */
  async close(): Promise<void> {
    clearInterval(this.sweep);
    this.unfollow();
    for (const task of this.live.values()) {
      if (!TERMINAL.has(task.record.status)) {
        this.finish(task, { error: stoppedError(task.record, 'it stopped') });
        task.cancellation.abort();
      }
    }
    await Promise.all([...this.live.values()].map((t) => t.saved));
    this.live.clear();
  }

  /** Write the task's new state (in order, after the previous write); forget a finished task once written. */
  private changed(task: LiveTask): void {
    const { record } = task;
    const at = this.now();
    record.lastUpdatedAt = new Date(at).toISOString();
    if (TERMINAL.has(record.status)) {
      record.expiresAt = Math.max(record.expiresAt, at + RETAIN_MS);
      record.ttlMs = record.expiresAt - Date.parse(record.createdAt);
    }
    const snapshot = structuredClone(record);
    task.saved = task.saved
      .then(() => this.write(snapshot))
      .then(() => {
        if (TERMINAL.has(snapshot.status) && this.live.get(record.id) === task) {
          this.live.delete(record.id);
          if (this.live.size === 0) this.unfollow();
        }
        this.published(snapshot);
      });
  }

  /** Say on the bus that a task was stored in a new state. */
  private published(record: StoredTask): void {
    const { id, status, principal, tool } = record;
    this.services.bus.publish({ type: TASK_CHANGED_EVENT, id, status, principal, tool, at: record.lastUpdatedAt });
  }

  /** Store a task; a result too large to keep fails the task instead, saying why (never a task that stays working). */
  private async write(record: StoredTask): Promise<void> {
    try {
      await this.store.documents.put(TASKS_NAMESPACE, record.id, record);
    } catch (err) {
      if (!record.result || !(err instanceof SwitchboardError) || err.code !== 'INVALID_INPUT') {
        this.services.logger.warn({ err, task: record.id }, 'could not store an MCP task');
        return;
      }
      const { result: _dropped, ...rest } = record;
      const failed: StoredTask = {
        ...rest,
        status: 'failed',
        error: {
          code: ProtocolErrorCode.InternalError,
          message: `The task's result could not be kept: ${err.message}`,
        },
      };
      await this.store.documents
        .put(TASKS_NAMESPACE, record.id, failed)
        .catch((e) => this.services.logger.warn({ err: e, task: record.id }, 'could not store an MCP task'));
    }
  }

  private async read(id: string): Promise<StoredTask | undefined> {
    if (id.length < 1 || id.length > 200) return undefined;
    const doc = await this.store.documents.get(TASKS_NAMESPACE, id);
    if (!doc) return undefined;
    const parsed = StoredTaskSchema.safeParse(doc.value);
    if (!parsed.success)
      throw new SwitchboardError(
        'INTERNAL',
        `Task '${id}' is stored in a shape this Switchboard cannot read (${parsed.error.issues[0]?.message}); it was written by another version.`,
      );
    return parsed.data;
  }

  /**
   * Every task `principal` may see (undefined: everyone's), newest first, as this instance knows them (a task running
   * here as it is now, before its last write lands), and the stored documents it cannot read. The dashboard reads the
   * store alone, through the same listTasks (system.mcp_tasks).
   */
  async list(principal: Principal | undefined): Promise<ReturnType<typeof listTasks>> {
    const docs = await this.store.documents.list(TASKS_NAMESPACE);
    const listed = listTasks(docs, { ...(principal ? { principal: principal.id } : {}), now: this.now() });
    return { ...listed, tasks: listed.tasks.map((t) => this.live.get(t.id)?.record ?? t) };
  }

  /** End a task whose holder is gone, in the store, and say so on the bus. */
  private async endOrphan(record: StoredTask): Promise<StoredTask> {
    const ended = orphanEnded(record, this.now(), RETAIN_MS);
    await this.store.documents.put(TASKS_NAMESPACE, record.id, ended);
    this.published(ended);
    return ended;
  }

  /**
   * Hear cancels and answers for tasks running here that reach other instances (instances on one Redis), while any
   * runs here: the bus reads the shared stream only while someone follows it.
   */
  private follow(): void {
    if (this.unsubscribe || this.store.kind !== 'redis') return;
    this.unsubscribe = this.services.bus.subscribe((event) => void this.heard(event));
  }

  private unfollow(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private async heard(event: BusEvent): Promise<void> {
    const id = (event as { task?: unknown }).task;
    const task = typeof id === 'string' ? this.live.get(id) : undefined;
    if (!task) return;
    if (event.type === TASK_CANCEL_EVENT)
      this.cancelHere(task, 'Cancelled by the client (tasks/cancel, through another instance).');
    if (event.type !== TASK_ANSWERED_EVENT) return;
    const responses: Record<string, unknown> = {};
    for (const key of task.waiting.keys()) {
      const doc = await this.store.documents.get(ANSWERS_NAMESPACE, `${task.record.id}/${key}`).catch(() => undefined);
      if (!doc) continue;
      responses[key] = doc.value;
      await this.store.documents.delete(ANSWERS_NAMESPACE, doc.key).catch(() => false);
    }
    this.deliver(task, responses);
  }

  private async dropExpired(): Promise<void> {
    const at = this.now();
    try {
      for (const doc of await this.store.documents.list<{ expiresAt?: unknown; id?: unknown }>(TASKS_NAMESPACE)) {
        const expiresAt = doc.value.expiresAt;
        if (typeof expiresAt === 'number' && expiresAt <= at && !this.live.has(doc.key))
          await this.store.documents.delete(TASKS_NAMESPACE, doc.key);
      }
    } catch (err) {
      this.services.logger.warn({ err }, 'could not drop expired MCP tasks');
    }
  }
}

const tables = new WeakMap<Hub, TaskTable>();

/** The hub's task table, made with its first use. */
export function tasksOf(hub: Hub): TaskTable {
  let table = tables.get(hub);
  if (!table) {
    table = new TaskTable(hub.services);
    tables.set(hub, table);
  }
  return table;
}

/** The transport serving tasks is closing: tasks still running here end (stored as such), and the table goes. */
export async function closeTasks(hub: Hub): Promise<void> {
  const table = tables.get(hub);
  tables.delete(hub);
  await table?.close();
}
