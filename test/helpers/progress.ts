import type { Client } from '@modelcontextprotocol/client';

export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * Call a tool asking for progress, and collect every progress notification the server sends for it.
 *
 * The SDK client's own `onprogress` drops a notification that arrives in the same read as the result: it handles
 * notifications a microtask late, after the result has already removed the call's progress handler. Switchboard
 * leaves a short gap between a notification and the result to make that rare, but on a loaded machine the client
 * can still read both at once. What the server sent is what these tests assert, so progress is routed here by token.
 */
export async function callWithProgress(client: Client, name: string, args: Record<string, unknown>) {
  const token = `p-${Math.random().toString(36).slice(2)}`;
  const seen: Progress[] = [];
  client.setNotificationHandler('notifications/progress', (n) => {
    if (n.params.progressToken !== token) return;
    const { progress, total, message } = n.params;
    seen.push({ progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) });
  });
  const result = await client.callTool({ name, arguments: args, _meta: { progressToken: token } });
  // Notifications read together with the result are handled a microtask later.
  await new Promise((r) => setImmediate(r));
  return { result, seen, steps: seen.map((p) => p.progress) };
}
