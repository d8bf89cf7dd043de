// MCP tasks (the tasks extension's, docs/tasks.md) as the store keeps them: store documents under one namespace, a
// task id a key, read by every instance with this schema (src/serve/mcp-task-table.ts writes them), and listed for
// people by one function (`listTasks`: src/serve/mcp-task-table.ts, and system.mcp_tasks for the dashboard).
import { z } from 'zod';

/** The document namespace of MCP tasks. */
export const MCP_TASKS_NAMESPACE = 'mcp-tasks';

/** A task's statuses, in the order it may pass through them. */
export const MCP_TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
const TaskStatusSchema = z.enum(MCP_TASK_STATUSES);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;
/** The statuses a task ends in. */
export const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);

const JsonObject = z.record(z.string(), z.unknown());
const TaskError = z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() });

/** What a task's call works on, where its tool says: a script run (`#/scripts/ID`) or an agent session. */
export const TaskSubjectSchema = z.object({
  kind: z.enum(['script_run', 'agent_session']),
  id: z.string().min(1).max(200),
});
export type TaskSubject = z.infer<typeof TaskSubjectSchema>;

/** A task as the store keeps it (every instance reads it with this schema). */
export const StoredTaskSchema = z.object({
  id: z.string().min(1),
  /** The principal that created it: the only one that may read or cancel it. */
  principal: z.string().min(1),
  /** The tool whose call it stands for. */
  tool: z.string(),
  /** What the call works on, once known: from its arguments when it starts, else from its result (`taskSubject`). */
  subject: TaskSubjectSchema.optional(),
  /**
   * Made by a 2025-11-25 session's task-augmented call (the experimental `tasks` capability, docs/tasks.md), shown
   * in that revision's shape; absent: made under the 2026-07-28 extension.
   */
  wire: z.literal('2025-11-25').optional(),
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

/** The fields that name a task's subject, per domain of its tool (`script__start` → `script`). */
const SUBJECT_FIELDS: Record<string, { kind: TaskSubject['kind']; fields: string[] }> = {
  script: { kind: 'script_run', fields: ['run_id'] },
  agent: { kind: 'agent_session', fields: ['session_name', 'session_id'] },
};

/**
 * What a call of `tool` works on, read from `fields` — its arguments, or its result's structuredContent: a script
 * tool's `run_id`, an agent tool's `session_name` (`session_id` in a turn result). Undefined for any other tool.
 *
 * @example
 * taskSubject('agent__start', { session_name: 'review', prompt: '…' }) // { kind: 'agent_session', id: 'review' }
 */
export function taskSubject(tool: string, fields: unknown): TaskSubject | undefined {
  const domain = SUBJECT_FIELDS[tool.split(/__|\./)[0] ?? ''];
  if (!domain || typeof fields !== 'object' || fields === null) return undefined;
  for (const field of domain.fields) {
    const id = (fields as Record<string, unknown>)[field];
    if (typeof id === 'string' && id.length > 0 && id.length <= 200) return { kind: domain.kind, id };
  }
  return undefined;
}

/** A stored document this Switchboard cannot read as a task: listed, never skipped. */
export interface TaskProblem {
  id: string;
  /** Its `principal` field, when it has a readable one. */
  principal?: string;
  error: string;
}

export interface TaskQuery {
  /** Only this principal's tasks; undefined: everyone's (an admin's view). */
  principal?: string;
  /** Only tasks in these statuses. */
  status?: readonly TaskStatus[];
  /** Only tasks of these tools (tool or capability names: `script__start`, `script.start`). */
  tools?: readonly string[];
  /** Epoch ms now: tasks that expired by then are left out. */
  now: number;
}

const toolKey = (tool: string) => tool.replaceAll('.', '__');

/**
 * The tasks of `documents` (the namespace's) that `query` asks for, newest first, and those documents in it that are
 * not tasks this version can read (`problems`: a non-admin's query sees only those that name it as principal).
 */
export function listTasks(
  documents: readonly { key: string; value: unknown }[],
  query: TaskQuery,
): { tasks: StoredTask[]; problems: TaskProblem[] } {
  const tools = query.tools && new Set(query.tools.map(toolKey));
  const status = query.status && new Set(query.status);
  const tasks: StoredTask[] = [];
  const problems: TaskProblem[] = [];
  for (const doc of documents) {
    const parsed = StoredTaskSchema.safeParse(doc.value);
    if (!parsed.success) {
      const raw = (typeof doc.value === 'object' && doc.value !== null ? doc.value : {}) as Record<string, unknown>;
      const principal = typeof raw.principal === 'string' ? raw.principal : undefined;
      if (typeof raw.expiresAt === 'number' && raw.expiresAt <= query.now) continue;
      if (query.principal !== undefined && principal !== query.principal) continue;
      const issue = parsed.error.issues[0];
      problems.push({
        id: doc.key,
        ...(principal ? { principal } : {}),
        error: `Task '${doc.key}' is stored in a shape this Switchboard cannot read (${issue?.path.join('.') || 'the task'}: ${issue?.message}): written by another version of Switchboard, or changed by hand in the store (namespace '${MCP_TASKS_NAMESPACE}').`,
      });
      continue;
    }
    const task = parsed.data;
    if (task.expiresAt <= query.now) continue;
    if (query.principal !== undefined && task.principal !== query.principal) continue;
    if (status && !status.has(task.status)) continue;
    if (tools && !tools.has(toolKey(task.tool))) continue;
    tasks.push(task);
  }
  tasks.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  return { tasks, problems };
}
