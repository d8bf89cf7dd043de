// Long work as MCP Tasks: the `io.modelcontextprotocol/tasks` extension (SEP-2663) of protocol 2026-07-28. A call of
// a capability declared `task` from a client that declared the extension starts like any call; if it has not
// finished within DETACH_MS the client is answered with a task at once (`resultType: "task"`), the call runs on,
// and the client polls `tasks/get` (whose answer carries the result once there is one) or ends it with
// `tasks/cancel`. A call that finishes in time is answered as usual — unless its capability is `required`, when
// the answer is a task born finished. Only the principal that created a task may see or cancel it.
//
// A task's call may ask its client for input (`ctx.client.elicit` / `sample`): the call becomes a task at once, in
// `input_required` with the question in `inputRequests`, and the client answers with `tasks/update`. Tasks are kept
// in the store (mcp-task-table.ts): they outlive the connection and a restart, and any instance answers for them.
import { MissingRequiredClientCapabilityError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { Cancellation, watchSignal } from '../core/cancellation.ts';
import type { ClientChannel, McpCallInfo } from '../core/context.ts';
import { declaresTasksExtension, TASKS_EXTENSION } from '../core/mcp-tasks-extension.ts';
import type { Outcome } from '../core/pipeline.ts';
import type { Entry } from '../core/registry.ts';
import type { Hub } from '../hub.ts';
import { type StoredTask, taskSubject } from '../store/records/mcp-tasks.ts';
import { type Caller, runCall, runsAs, type ToolCall } from './mcp-edge.ts';
import { type LiveTask, type TaskEnding, tasksOf } from './mcp-task-table.ts';
import { toCallToolResult } from './tool-result.ts';

/** How long a task call may take before the client gets a task instead of waiting for the answer. */
const DETACH_MS = 100;
/** How often a client is told to poll. */
export const POLL_INTERVAL_MS = 1_000;

/** Whether the client of this call declared the tasks extension (per request, on 2026-07-28). */
export function declaresTasks(mcp: McpCallInfo | undefined): boolean {
  return mcp?.era === 'modern' && declaresTasksExtension(mcp.clientCapabilities);
}

/** The error a client gets for a `required` capability, or a task method, without having declared the extension. */
export function tasksNotDeclared(what: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${what} needs the ${TASKS_EXTENSION} extension: declare it in the request's clientCapabilities.extensions.`,
  );
}

/** A task as `tasks/get` shows it: its state, its open questions, and its result or error once it has one. */
export function taskView(record: StoredTask): Record<string, unknown> {
  return {
    ...taskFields(record),
    ...(record.status === 'input_required' ? { inputRequests: record.inputRequests ?? {} } : {}),
    ...(record.result ? { result: record.result } : {}),
    ...(record.error ? { error: record.error } : {}),
  };
}

/** A CreateTaskResult: the task's fields, flat, with `resultType: "task"`. */
export function createdTask(record: StoredTask): Record<string, unknown> {
  return { resultType: 'task', ...taskFields(record) };
}

function taskFields(record: StoredTask): Record<string, unknown> {
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
export function endingOf(outcome: Outcome): TaskEnding {
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
  // A long tool reached through the catalog (catalog.call) is as long: the tool it forwards to decides.
  const target = caller.mcp?.era === 'modern' ? (entry ?? hub.services.registry.get(call.name)) : undefined;
  const mode = target ? runsAs(hub, target.capability, call).task : undefined;
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
  let created: Promise<LiveTask> | undefined;
  const open = () => {
    created ??= table
      .create(caller.principal, call.name, cancellation, { subject: taskSubject(call.name, call.arguments) })
      .catch((err) => {
        // No task to stand for the call: it must not run on unseen.
        cancellation.abort();
        throw err;
      });
    return created;
  };
  // A question to the client makes the call a task at once: its answer comes through tasks/update.
  let asked!: () => void;
  const firstQuestion = new Promise<undefined>((resolve) => {
    asked = () => resolve(undefined);
  });
  const ask = (method: string) => (params: Record<string, unknown>) => {
    asked();
    return open().then((task) => table.ask(task, method, params));
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
  if (finished && !created && (mode === 'optional' || isInputRequired(finished.outcome))) return finished;
  const task = await open();
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
  if (finished) {
    // Born finished: stored as such before the client hears of it, so any instance answers alike.
    end(finished.outcome);
    await task.saved;
  } else
    running.then(end, (err) =>
      table.finish(task, { error: { code: ProtocolErrorCode.InternalError, message: String(err) } }),
    );
  return { task: createdTask(task.record) };
}
