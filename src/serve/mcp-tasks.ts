// Long work as MCP Tasks: the `io.modelcontextprotocol/tasks` extension (SEP-2663) of protocol 2026-07-28. A call of
// a capability declared `task` from a client that declared the extension starts like any call; if it has not
// finished within DETACH_MS the client is answered with a task at once (`resultType: "task"`), the call runs on,
// and the client polls `tasks/get` (whose answer carries the result once there is one) or ends it with
// `tasks/cancel`. A call that finishes in time is answered as usual — unless its capability is `required`, when
// the answer is a task born finished. Only the principal that created a task may see or cancel it.
//
// A task's call may ask its client for input (`ctx.client.elicit` / `sample`): the call becomes a task at once, in
// `input_required` with the question in `inputRequests`, and the client answers with `tasks/update`. Tasks are kept
// in memory for now (a hub restart forgets them): docs/tasks.md says what is next.
import { randomBytes } from 'node:crypto';
import { MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { Cancellation, watchSignal } from '../core/cancellation.ts';
import type { ClientChannel, McpCallInfo, Principal } from '../core/context.ts';
import { SwitchboardError } from '../core/errors.ts';
import { TASKS_EXTENSION } from '../core/mcp-tasks-extension.ts';
import type { Outcome } from '../core/pipeline.ts';
import type { Entry } from '../core/registry.ts';
import type { Hub } from '../hub.ts';
import { type Caller, runCall, type ToolCall } from './mcp-edge.ts';
import { toCallToolResult } from './tool-result.ts';

/** How long a task call may take before the client gets a task instead of waiting for the answer. */
const DETACH_MS = 100;
/** How long a task and its outcome are kept from its creation (and at least RETAIN_MS after it ends). */
const TTL_MS = 60 * 60_000;
const RETAIN_MS = 10 * 60_000;
/** How often a client is told to poll. */
const POLL_INTERVAL_MS = 1_000;
/** How often expired tasks are dropped. */
const SWEEP_MS = 60_000;

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

interface TaskRecord {
  id: string;
  /** The principal that created it: the only one that may read or cancel it. */
  principal: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  expiresAt: number;
  /** The CallToolResult of a completed task. */
  result?: Record<string, unknown>;
  /** The JSON-RPC error of a failed one. */
  error?: { code: number; message: string; data?: unknown };
  cancellation: Cancellation;
  /** What the call asked its client and waits for, by key (unique for the task's life): its `inputRequests`. */
  questions: Map<string, Question>;
  asked: number;
}

interface Question {
  method: string;
  params: Record<string, unknown>;
  answer: (response: unknown) => void;
  drop: (why: unknown) => void;
}

/** Whether the client of this call declared the tasks extension (per request, on 2026-07-28). */
export function declaresTasks(mcp: McpCallInfo | undefined): boolean {
  if (mcp?.era !== 'modern') return false;
  const extensions = mcp.clientCapabilities?.extensions as Record<string, unknown> | undefined;
  return typeof extensions === 'object' && extensions !== null && extensions[TASKS_EXTENSION] !== undefined;
}

/** The error a client gets for a `required` capability, or a task method, without having declared the extension. */
export function tasksNotDeclared(what: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${what} needs the ${TASKS_EXTENSION} extension: declare it in the request's clientCapabilities.extensions.`,
  );
}

/** The tasks of one hub, in memory. */
export class TaskTable {
  private readonly tasks = new Map<string, TaskRecord>();
  private readonly sweep: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    this.sweep = setInterval(() => this.dropExpired(), SWEEP_MS);
    this.sweep.unref();
  }

  create(principal: Principal, cancellation: Cancellation): TaskRecord {
    const at = this.now();
    const record: TaskRecord = {
      id: randomBytes(16).toString('base64url'),
      principal: principal.id,
      status: 'working',
      createdAt: new Date(at).toISOString(),
      lastUpdatedAt: new Date(at).toISOString(),
      ttlMs: TTL_MS,
      expiresAt: at + TTL_MS,
      cancellation,
      questions: new Map(),
      asked: 0,
    };
    this.tasks.set(record.id, record);
    return record;
  }

  /** Task `id` as `principal` may see it: another principal's task is as unknown as one that never was. */
  get(id: string, principal: Principal): TaskRecord {
    const record = this.tasks.get(id);
    if (!record || record.principal !== principal.id || record.expiresAt <= this.now())
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task '${id}' not found (or expired).`);
    return record;
  }

  /** The call asks its client (`elicitation/create`, `sampling/createMessage`); resolves with the client's answer. */
  ask(record: TaskRecord, method: string, params: Record<string, unknown>): Promise<unknown> {
    if (TERMINAL.has(record.status))
      return Promise.reject(new SwitchboardError('CANCELLED', `Task '${record.id}' has ended: nothing to ask for.`));
    const key = `input-${++record.asked}`;
    const asked = new Promise((answer, drop) => record.questions.set(key, { method, params, answer, drop }));
    record.status = 'input_required';
    this.touched(record);
    return asked;
  }

  /**
   * The client's answers (`tasks/update`): each one for a question still open is handed to the call; others are
   * ignored, as the extension says. When no question is left open the task is working again.
   */
  answer(record: TaskRecord, responses: Record<string, unknown>): void {
    for (const [key, response] of Object.entries(responses)) {
      const question = record.questions.get(key);
      if (!question) continue;
      record.questions.delete(key);
      question.answer(response);
    }
    if (record.status === 'input_required' && record.questions.size === 0) {
      record.status = 'working';
      this.touched(record);
    }
  }

  /** The call ended: completed with its result, or failed with a JSON-RPC error; a cancelled task stays cancelled. */
  finish(record: TaskRecord, ended: { result: Record<string, unknown> } | { error: TaskRecord['error'] }): void {
    if (TERMINAL.has(record.status)) return;
    this.dropQuestions(record, 'the call ended');
    if ('result' in ended) {
      record.status = 'completed';
      record.result = ended.result;
    } else {
      record.status = 'failed';
      record.error = ended.error;
    }
    this.touched(record);
  }

  /** Cancel a task that is still running (its call is aborted); a finished one is left as it is. */
  cancel(record: TaskRecord): void {
    if (TERMINAL.has(record.status)) return;
    record.status = 'cancelled';
    record.statusMessage = 'Cancelled by the client (tasks/cancel).';
    this.dropQuestions(record, 'the task was cancelled');
    record.cancellation.abort();
    this.touched(record);
  }

  private dropQuestions(record: TaskRecord, why: string): void {
    for (const question of record.questions.values())
      question.drop(new SwitchboardError('CANCELLED', `No answer will come: ${why}.`));
    record.questions.clear();
  }

  close(): void {
    clearInterval(this.sweep);
    for (const record of this.tasks.values()) this.cancel(record);
    this.tasks.clear();
  }

  private touched(record: TaskRecord): void {
    const at = this.now();
    record.lastUpdatedAt = new Date(at).toISOString();
    if (TERMINAL.has(record.status)) {
      record.expiresAt = Math.max(record.expiresAt, at + RETAIN_MS);
      record.ttlMs = record.expiresAt - Date.parse(record.createdAt);
    }
  }

  private dropExpired(): void {
    const at = this.now();
    for (const [id, record] of this.tasks) if (record.expiresAt <= at) this.tasks.delete(id);
  }
}

const tables = new WeakMap<Hub, TaskTable>();

/** The hub's task table, made with its first task. */
export function tasksOf(hub: Hub): TaskTable {
  let table = tables.get(hub);
  if (!table) {
    table = new TaskTable();
    tables.set(hub, table);
  }
  return table;
}

/** The transport serving tasks is closing: every task still running is cancelled, and the table forgotten. */
export function closeTasks(hub: Hub): void {
  tables.get(hub)?.close();
  tables.delete(hub);
}

/** A task as `tasks/get` shows it: its state, its open questions, and its result or error once it has one. */
export function taskView(record: TaskRecord): Record<string, unknown> {
  return {
    ...taskFields(record),
    ...(record.status === 'input_required' ? { inputRequests: inputRequestsOf(record) } : {}),
    ...(record.result ? { result: record.result } : {}),
    ...(record.error ? { error: record.error } : {}),
  };
}

/** The open questions as the extension shows them: `{key: {method, params}}`. */
function inputRequestsOf(record: TaskRecord): Record<string, { method: string; params: Record<string, unknown> }> {
  const out: Record<string, { method: string; params: Record<string, unknown> }> = {};
  for (const [key, { method, params }] of record.questions) out[key] = { method, params };
  return out;
}

/** A CreateTaskResult: the task's fields, flat, with `resultType: "task"`. */
export function createdTask(record: TaskRecord): Record<string, unknown> {
  return { resultType: 'task', ...taskFields(record) };
}

function taskFields(record: TaskRecord): Record<string, unknown> {
  return {
    taskId: record.id,
    status: record.status,
    ...(record.statusMessage ? { statusMessage: record.statusMessage } : {}),
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: record.ttlMs,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
}

/**
 * How a task ends, from the call's outcome: a failure of the capability itself (INTERNAL) fails the task with
 * JSON-RPC's internal error, as the extension reserves `failed` for protocol-level errors; anything else — results,
 * isError results, refusals, timeouts — completes it with the CallToolResult the call would have answered with.
 */
function endingOf(outcome: Outcome): { result: Record<string, unknown> } | { error: TaskRecord['error'] } {
  if (!outcome.ok && outcome.error.code === 'INTERNAL')
    return { error: { code: ProtocolErrorCode.InternalError, message: outcome.error.message } };
  return { result: { ...toCallToolResult(outcome), resultType: 'complete' } };
}

const isInputRequired = (outcome: Outcome) => outcome.ok && outcome.raw?.mcp?.resultType === 'input_required';

/** What a `tools/call` is answered with: the call's outcome, or a task that stands for it. */
export type CallAnswer = { outcome: Outcome } | { task: Record<string, unknown> };

/**
 * Run a 2026-07-28 `tools/call`, as a task when its capability says it may be one and its client declared the
 * extension (see the file's head). `entry` is the edge's lookup, when it made one.
 */
export async function callOrTask(hub: Hub, call: ToolCall, caller: Caller, entry?: Entry): Promise<CallAnswer> {
  // Tasks exist on 2026-07-28 only; a 2025 session (or stdio) holds the request open instead, as before.
  const mode =
    caller.mcp?.era === 'modern' ? (entry ?? hub.services.registry.get(call.name))?.capability.task : undefined;
  if (!mode) return { outcome: await runCall(hub, call, caller, entry) };
  if (!declaresTasks(caller.mcp)) {
    if (mode === 'required') throw tasksNotDeclared(`Tool '${call.name}'`);
    return { outcome: await runCall(hub, call, caller, entry) };
  }
  // The task's own cancellation: the request's end cancels the call only while the client still waits for it.
  const cancellation = new Cancellation();
  const attached = caller.cancellation ?? (caller.signal ? watchSignal(caller.signal) : undefined);
  const detach = attached?.onAbort(() => cancellation.abort()) ?? (() => {});
  const table = tasksOf(hub);
  let record: TaskRecord | undefined;
  const open = () => {
    record ??= table.create(caller.principal, cancellation);
    return record;
  };
  // A question to the client makes the call a task at once: its answer comes through tasks/update.
  let asked!: () => void;
  const firstQuestion = new Promise<undefined>((resolve) => {
    asked = () => resolve(undefined);
  });
  const ask = (method: string) => (params: Record<string, unknown>) => {
    const task = open();
    asked();
    return table.ask(task, method, params);
  };
  const client: ClientChannel = { elicit: ask('elicitation/create'), sample: ask('sampling/createMessage') };
  const running = runCall(hub, call, { ...caller, signal: undefined, cancellation, client }, entry);
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    running.then((outcome) => ({ outcome })),
    firstQuestion,
    new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), DETACH_MS);
    }),
  ]);
  clearTimeout(timer);
  detach();
  // Input asked before the work starts is answered on the request itself (multi-round-trip, then a task).
  if (finished && !record && (mode === 'optional' || isInputRequired(finished.outcome))) return finished;
  const task = open();
  const end = (outcome: Outcome) =>
    table.finish(
      task,
      isInputRequired(outcome)
        ? {
            error: {
              code: ProtocolErrorCode.InternalError,
              message: `${call.name} answered inputRequired after it became a task; inside a task, ask with ctx.client.elicit or sample.`,
            },
          }
        : endingOf(outcome),
    );
  if (finished) end(finished.outcome);
  else
    running.then(end, (err) =>
      table.finish(task, { error: { code: ProtocolErrorCode.InternalError, message: String(err) } }),
    );
  return { task: createdTask(task) };
}
