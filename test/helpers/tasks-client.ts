// Test helper: a 2026-07-28 client built on the official MCP SDK that declares the tasks extension, the way
// Switchboard's own upstream client does (the SDK has no Tasks runtime: the transport folds a task answer into a
// result, src/mcp-client/upstream-task.ts). `to.url` picks the instance each request goes to.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { TASKS_EXTENSION } from '../../src/core/mcp-tasks-extension.ts';
import { UNCHECKED_RESULT } from '../../src/mcp-client/call-result.ts';
import { foldTaskAnswers, upstreamTaskOf } from '../../src/mcp-client/upstream-task.ts';
import { type UntilOptions, until } from './until.ts';

export interface TasksClient {
  /** Where the next request goes (an instance's base URL). */
  to: { url: string };
  /** `tools/call`: the task it became, or the result it was answered with. */
  call(name: string, args: Record<string, unknown>): Promise<{ task?: any; result?: any }>;
  /** `tasks/get`, `tasks/update` or `tasks/cancel` for a task id. */
  task(method: string, taskId: string, params?: Record<string, unknown>): Promise<any>;
  /** Poll `tasks/get` (bounded, as `until`) until the task has `status`; answers the task then. */
  reaches(taskId: string, status: string, opts?: UntilOptions): Promise<any>;
  close(): Promise<void>;
}

export async function tasksClient(first: string, headers: Record<string, string> = {}): Promise<TasksClient> {
  const to = { url: first };
  const fetchVia = (input: string | URL | Request, init?: RequestInit) => {
    const target = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    target.host = new URL(to.url).host;
    return fetch(target, init);
  };
  const client = new Client(
    { name: 'tasks-e2e', version: '1.0.0' },
    { capabilities: { extensions: { [TASKS_EXTENSION]: {} } }, versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    foldTaskAnswers(
      new StreamableHTTPClientTransport(new URL(`${first}/mcp`), { fetch: fetchVia, requestInit: { headers } }),
    ),
  );
  const task = (method: string, taskId: string, params: Record<string, unknown> = {}) =>
    client.request({ method, params: { taskId, ...params } } as never, UNCHECKED_RESULT as never) as Promise<any>;
  return {
    to,
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      const task = upstreamTaskOf(result);
      return task ? { task } : { result };
    },
    task,
    reaches: (taskId, status, opts = {}) =>
      until(
        async () => {
          const seen = await task('tasks/get', taskId);
          return seen.status === status ? seen : undefined;
        },
        { what: `task ${taskId} to be ${status}`, ...opts },
      ),
    close: () => client.close(),
  };
}
