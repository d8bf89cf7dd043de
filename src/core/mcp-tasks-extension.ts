// The id of MCP's tasks extension (SEP-2663, protocol 2026-07-28), which both sides of Switchboard speak: the server
// answers long calls with tasks (src/serve/mcp-tasks.ts), the upstream client waits for an upstream's tasks
// (src/mcp-client/upstream-task.ts).
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether a client's capabilities (a 2026-07-28 request's `clientCapabilities`) declare the tasks extension. */
export function declaresTasksExtension(clientCapabilities: unknown): boolean {
  const extensions = (clientCapabilities as { extensions?: unknown } | undefined)?.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}
