// An upstream server that answers a call with a task (MCP's tasks extension, protocol 2026-07-28: Switchboard
// declares the extension to every upstream): the call waits for the task here, polling `tasks/get` at the pace the
// server asks for, so every Switchboard door, policy, audit and timeout stays as for any call. The questions a task
// asks while it runs go to the calling client's own channel (an elicitation on its session), and the answers back
// with `tasks/update`; the call's end (the caller cancelled, the timeout) cancels the task with `tasks/cancel`.
import type { Client, JSONRPCMessage, MessageExtraInfo, Transport } from '@modelcontextprotocol/client';
import type { CancelWatch } from '../core/cancellation.ts';
import type { ClientChannel } from '../core/context.ts';
import { SwitchboardError } from '../core/errors.ts';
import { UNCHECKED_RESULT } from './call-result.ts';

/** The pace a server may ask for, bounded: not a busy loop, not a minute between looks. */
const MIN_POLL_MS = 100;
const MAX_POLL_MS = 5_000;

interface UpstreamTask {
  taskId: string;
  status?: string;
  statusMessage?: string;
  pollIntervalMs?: number;
  inputRequests?: Record<string, { method?: string; params?: Record<string, unknown> }>;
  result?: Record<string, unknown>;
  error?: { code?: number; message?: string };
}

/** The `_meta` key a task answer travels under once `foldTaskAnswers` has made it a plain result. */
const TASK_META = 'switchboard/upstream-task';

/**
 * The SDK client (2.4.0) has no Tasks runtime: its 2026 codec refuses a `tools/call` answer whose resultType is
 * "task" before the caller sees it, and offers no seam for it. So the transport under the client is wrapped: such an
 * answer reaches the client as an empty complete result carrying the task in `_meta` (TASK_META), which
 * `upstreamTaskOf` reads. Nothing else is touched.
 */
export function foldTaskAnswers<T extends Transport>(transport: T): T {
  let deliver: Transport['onmessage'];
  const fold = ((message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    const result = (message as { result?: { resultType?: unknown; taskId?: unknown } }).result;
    const folded =
      result?.resultType === 'task' && typeof result.taskId === 'string'
        ? ({
            ...message,
            result: { resultType: 'complete', content: [], _meta: { [TASK_META]: result } },
          } as JSONRPCMessage)
        : message;
    deliver?.(folded, extra);
  }) as NonNullable<Transport['onmessage']>;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => (deliver ? fold : undefined),
    set: (handler: Transport['onmessage']) => {
      deliver = handler;
    },
  });
  return transport;
}

/** The task a `tools/call` was answered with (a CreateTaskResult folded by the transport), if it was. */
export function upstreamTaskOf(result: unknown): UpstreamTask | undefined {
  const task = (result as { _meta?: Record<string, unknown> } | null)?._meta?.[TASK_META] as UpstreamTask | undefined;
  return typeof task?.taskId === 'string' ? task : undefined;
}

/** Wait for an upstream task to end; resolves with its CallToolResult, or throws what it ended in. */
export async function awaitUpstreamTask(
  client: Client,
  created: UpstreamTask,
  opts: { server: string; tool: string; cancel: CancelWatch; channel?: ClientChannel; timeoutMs: number },
): Promise<Record<string, unknown>> {
  const { taskId } = created;
  const what = `${opts.server}'s task ${taskId} for '${opts.tool}'`;
  const request = (method: string, params: Record<string, unknown>) =>
    client.request({ method, params: { taskId, ...params } } as never, UNCHECKED_RESULT as never, {
      signal: opts.cancel.signal,
      timeout: opts.timeoutMs,
    }) as Promise<UpstreamTask>;
  const stopCancelling = opts.cancel.onAbort(() => {
    // Best effort: the server may have ended it already, or be gone.
    void client
      .request({ method: 'tasks/cancel', params: { taskId } } as never, UNCHECKED_RESULT as never, {
        timeout: opts.timeoutMs,
      })
      .catch(() => {});
  });
  const asked = new Set<string>();
  try {
    let task = created;
    for (;;) {
      switch (task.status) {
        case 'completed':
          if (typeof task.result !== 'object' || task.result === null)
            throw new SwitchboardError('UPSTREAM', `${what} completed without a result.`, { server: opts.server });
          return task.result;
        case 'failed':
          throw new SwitchboardError('UPSTREAM', `${what} failed: ${task.error?.message ?? 'no reason given'}.`, {
            server: opts.server,
            ...(task.error?.code !== undefined ? { code: task.error.code } : {}),
          });
        case 'cancelled':
          throw new SwitchboardError('UPSTREAM', `${what} was cancelled by the server.`, { server: opts.server });
        case 'input_required': {
          const answers = await answerQuestions(task, asked, opts.channel, what);
          if (Object.keys(answers).length) await request('tasks/update', { inputResponses: answers });
          break;
        }
      }
      await pause(task.pollIntervalMs ?? created.pollIntervalMs, opts.cancel);
      task = { ...(await request('tasks/get', {})), taskId };
    }
  } finally {
    stopCancelling();
  }
}

/** Ask the calling client each question not asked yet; a caller without a way to answer declines. */
async function answerQuestions(
  task: UpstreamTask,
  asked: Set<string>,
  channel: ClientChannel | undefined,
  what: string,
): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const [key, question] of Object.entries(task.inputRequests ?? {})) {
    if (asked.has(key)) continue;
    asked.add(key);
    const params = question?.params ?? {};
    if (question?.method === 'elicitation/create')
      answers[key] = channel?.elicit ? await channel.elicit(params) : { action: 'decline' };
    else if (question?.method === 'sampling/createMessage' && channel?.sample)
      answers[key] = await channel.sample(params);
    else
      throw new SwitchboardError(
        'UPSTREAM',
        `${what} asks for ${question?.method ?? 'input'}, which the calling client cannot answer.`,
      );
  }
  return answers;
}

function pause(asked: number | undefined, cancel: CancelWatch): Promise<void> {
  const ms = Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, typeof asked === 'number' ? asked : 1_000));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      resolve();
    }, ms);
    const stop = cancel.onAbort((reason) => {
      clearTimeout(timer);
      reject(reason);
    });
  });
}
