// MCP tasks (the tasks extension's, docs/tasks.md) as the store keeps them: store documents under one namespace, a
// task id a key, read by every instance with this schema (src/serve/mcp-task-table.ts writes them).
import { z } from 'zod';

/** The document namespace of MCP tasks. */
export const MCP_TASKS_NAMESPACE = 'mcp-tasks';

const TaskStatusSchema = z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;
/** The statuses a task ends in. */
export const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

const JsonObject = z.record(z.string(), z.unknown());
const TaskError = z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });

/** A task as the store keeps it (every instance reads it with this schema). */
export const StoredTaskSchema = z.object({
  id: z.string().min(1),
  /** The principal that created it: the only one that may read or cancel it. */
  principal: z.string().min(1),
  /** The tool whose call it stands for. */
  tool: z.string(),
  status: TaskStatusSchema,
  statusMessage: z.string().optional(),
  createdAt: z.iso.datetime(),
  lastUpdatedAt: z.iso.datetime(),
  ttlMs: z.number().int().positive(),
  /** Epoch ms after which it is gone. */
  expiresAt: z.number().int(),
  /** Where its call runs: the hub instance, its process and machine, and whether the instance keeps a lease. */
  holder: z.object({ instance: z.string(), pid: z.number().int(), host: z.string(), leased: z.boolean() }),
  /** What the call asked its client and waits for, by key: the extension's `inputRequests`. */
  inputRequests: z.record(z.string(), z.object({ method: z.string(), params: JsonObject })).optional(),
  /** The CallToolResult of a completed task. */
  result: JsonObject.optional(),
  /** The JSON-RPC error of a failed one. */
  error: TaskError.optional(),
});
export type StoredTask = z.infer<typeof StoredTaskSchema>;
