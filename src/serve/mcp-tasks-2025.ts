// Tasks on 2025-11-25 sessions: the experimental `tasks` capability of that revision, which the 2026-07-28 extension
// (mcp-tasks.ts) replaced but 2025 clients still speak. The client chooses: a `tools/call` with a `task` param is
// answered at once with the task (CreateTaskResult), for a tool whose `execution.taskSupport` allows it;
// `tasks/get` and `tasks/list` show tasks, `tasks/result` waits for the outcome — and carries the questions the
// call asks meanwhile (elicitation, sampling) to the client, related to the task — and `tasks/cancel` ends one.
// The tasks are the same store-kept tasks as the extension's (mcp-task-table.ts), shown in this revision's shape.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { Cancellation } from '../core/cancellation.ts';
import type { ClientChannel, Principal } from '../core/context.ts';
import type { Entry } from '../core/registry.ts';
import type { Hub } from '../hub.ts';
import { type StoredTask, TERMINAL, taskSubject } from '../store/records/mcp-tasks.ts';
import { type Caller, runCall, runsAs, type ToolCall } from './mcp-edge.ts';
import { type TaskTable, tasksOf } from './mcp-task-table.ts';
import { endingOf, POLL_INTERVAL_MS } from './mcp-tasks.ts';

/** The `_meta` key that relates a message to its task (2025-11-25). */
export const RELATED_TASK = 'io.modelcontextprotocol/related-task';
/** How often a waiting `tasks/result` looks at its task. */
const RESULT_POLL_MS = 100;
/** Tasks a `tasks/list` page holds. */
const LIST_PAGE = 100;

/** A task as 2025-11-25 shows it (`Task`): `ttl` and `pollInterval`, a failure's message as its status message. */
export function draftTask(record: StoredTask): Record<string, unknown> {
  const statusMessage = record.statusMessage ?? record.error?.message;
  return {
    taskId: record.id,
    status: record.status,
    ...(statusMessage ? { statusMessage } : {}),
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttl: record.ttlMs,
    pollInterval: POLL_INTERVAL_MS,
  };
}

/**
 * A 2025 session's `tools/call`: a task-augmented one (`task` in its params) starts a task and is answered with it at
 * once; one without runs as usual. The tool's `task` decides what is allowed, as its `execution.taskSupport` says:
 * none (forbidden) refuses a task, `required` refuses a call without one from a client that declared `tasks` — both
 * as an unknown method, as the revision asks.
 */
export async function callOnSession(
  hub: Hub,
  call: ToolCall,
  caller: Caller,
  entry: Entry | undefined,
  task: { ttl?: number } | undefined,
): Promise<{ task: Record<string, unknown> } | undefined> {
  if (!task) {
    // Only a client that speaks 2025's tasks (it declared `tasks`) is held to a `required` tool's rule; any other is
    // answered on the request, as it always was (one lookup less for every call of such a client).
    if (caller.mcp?.clientCapabilities?.tasks === undefined) return undefined;
    const target = entry ?? hub.services.registry.get(call.name);
    if (target && runsAs(hub, target.capability, call).task === 'required')
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        `Tool '${call.name}' runs only as a task (execution.taskSupport "required"): call it with "task": {} in its params.`,
      );
    return undefined;
  }
  const target = entry ?? hub.services.registry.get(call.name);
  if (!target) return undefined; // An unknown tool: answered as usual, saying so.
  const mode = runsAs(hub, target.capability, call).task;
  if (!mode)
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      `Tool '${call.name}' cannot run as a task (execution.taskSupport "forbidden"): call it without "task".`,
    );
  const table = tasksOf(hub);
  const cancellation = new Cancellation();
  const live = await table.create(caller.principal, call.name, cancellation, {
    subject: taskSubject(call.name, call.arguments),
    wire: '2025-11-25',
  });
  // The call asks through its task: the question waits in the task (input_required) for tasks/result to carry it.
  const ask = (method: string) => (params: Record<string, unknown>) => table.ask(live, method, params);
  const client: ClientChannel = { elicit: ask('elicitation/create'), sample: ask('sampling/createMessage') };
  runCall(hub, call, { ...caller, signal: undefined, cancellation, client }, entry).then(
    (outcome) => {
      const ending = endingOf(outcome);
      // 2025-11-25 calls a tool result that is an error a failed task (tasks/result still answers with it).
      table.finish(live, 'result' in ending ? { ...ending, failed: ending.result.isError === true } : ending);
    },
    (err) => table.finish(live, { error: { code: ProtocolErrorCode.InternalError, message: String(err) } }),
  );
  return { task: draftTask(live.record) };
}

/** The context of a `tasks/result` request: the way to put a task's questions to the client on its stream. */
export interface ResultRequest {
  principal: Principal;
  signal: AbortSignal;
  /** Send `method` to the client, related to the `tasks/result` request; resolves with the client's answer. */
  ask(method: string, params: Record<string, unknown>): Promise<unknown>;
}

/**
 * `tasks/result`: wait for the task to end, then answer exactly what its call would have — the result (with the
 * task related in `_meta`), or the JSON-RPC error. While it waits, each question the task asks goes to the client
 * on this request's stream, related to the task, and the answer back to the call.
 */
export async function taskResult(table: TaskTable, taskId: string, request: ResultRequest): Promise<unknown> {
  const carried = new Set<string>();
  for (;;) {
    const record = await table.get(taskId, request.principal);
    if (TERMINAL.has(record.status)) return outcomeOf(record);
    for (const [key, question] of Object.entries(record.inputRequests ?? {})) {
      if (carried.has(key)) continue;
      carried.add(key);
      const params = {
        ...question.params,
        _meta: { ...(question.params._meta as object), [RELATED_TASK]: { taskId } },
      };
      void request.ask(question.method, params).then(
        (answer) => table.answer(taskId, request.principal, { [key]: answer }),
        // The client could not answer (it declined to take the request, or went away): the call hears a decline.
        () => table.answer(taskId, request.principal, { [key]: { action: 'decline' } }),
      );
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, RESULT_POLL_MS);
      request.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(request.signal.reason);
        },
        { once: true },
      );
    });
  }
}

function outcomeOf(record: StoredTask): unknown {
  const related = { [RELATED_TASK]: { taskId: record.id } };
  if (record.result) {
    const { resultType: _era, ...result } = record.result;
    return { ...result, _meta: { ...(result._meta as object), ...related } };
  }
  if (record.error) throw new ProtocolError(record.error.code, record.error.message, record.error.data);
  throw new ProtocolError(
    ProtocolErrorCode.InternalError,
    `Task '${record.id}' was cancelled before it ended${record.statusMessage ? ` (${record.statusMessage})` : ''}: it has no result.`,
  );
}

/** `tasks/list`: the caller's tasks, newest first, a page at a time (the cursor is the last id of the page before). */
export async function listTasks(
  table: TaskTable,
  principal: Principal,
  cursor: string | undefined,
): Promise<Record<string, unknown>> {
  const { tasks } = await table.list(principal);
  let from = 0;
  if (cursor !== undefined) {
    const at = tasks.findIndex((t) => t.id === cursor);
    if (at < 0)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'tasks/list: the cursor names no task of yours any more; list again without a cursor.',
      );
    from = at + 1;
  }
  const page = tasks.slice(from, from + LIST_PAGE);
  const more = from + LIST_PAGE < tasks.length;
  return { tasks: page.map(draftTask), ...(more ? { nextCursor: page.at(-1)?.id } : {}) };
}

/** `tasks/cancel` (2025-11-25): a task that has ended is refused (invalid params); the answer is the cancelled task. */
export async function cancelTask(table: TaskTable, taskId: string, principal: Principal): Promise<unknown> {
  const record = await table.get(taskId, principal);
  if (TERMINAL.has(record.status))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Task '${taskId}' has already ended (${record.status}): there is nothing to cancel.`,
    );
  await table.cancel(taskId, principal);
  return draftTask(await table.get(taskId, principal));
}
