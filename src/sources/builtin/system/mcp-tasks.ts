// system.mcp_tasks: the MCP tasks (docs/tasks.md) a caller may see — its own; an admin's call lists everyone's —
// newest first, each with its status and what it works on (a script run, an agent session), for people watching
// long calls (the dashboard's Long calls view). Read from the store, so every instance lists the same tasks; a stored
// task this version cannot read is listed under `problems`, never left out.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { allowed } from '../../../core/registry.ts';
import {
  listTasks,
  MCP_TASK_STATUSES,
  MCP_TASKS_NAMESPACE,
  type StoredTask,
  TaskSubjectSchema,
} from '../../../store/records/mcp-tasks.ts';

/** How much of an error result's text a row carries. */
const ERROR_CHARS = 1_000;

const TaskRow = z.object({
  id: z.string(),
  tool: z.string(),
  status: z.enum(MCP_TASK_STATUSES),
  statusMessage: z.string().optional(),
  principal: z.string(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  expiresAt: z.string(),
  subject: TaskSubjectSchema.nullable(),
  error: z.string().optional(),
});

/**
 * Why a task did not succeed, when it did not: a failed task's JSON-RPC error, or the text of the error result a
 * completed one ended with (a failed tool, a refusal, a timeout).
 */
function errorOf(task: StoredTask): string | undefined {
  if (task.error) return task.error.message;
  if (task.result?.isError !== true) return undefined;
  const content = Array.isArray(task.result.content)
    ? (task.result.content as { type?: unknown; text?: unknown }[])
    : [];
  const text = content
    .filter((c) => c?.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text)
    .join('\n');
  return (text || 'The call answered an error result without text.').slice(0, ERROR_CHARS);
}

function rowOf(task: StoredTask): z.output<typeof TaskRow> {
  const error = errorOf(task);
  return {
    id: task.id,
    tool: task.tool,
    status: task.status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    principal: task.principal,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    expiresAt: new Date(task.expiresAt).toISOString(),
    subject: task.subject ?? null,
    ...(error ? { error } : {}),
  };
}

export const systemMcpTasks = defineCapability({
  name: 'system.mcp_tasks',
  title: 'MCP tasks',
  description:
    "List the MCP tasks (long tool calls a 2026-07-28 client polls with tasks/get) you created — an admin's call lists everyone's — newest first, expired ones left out: id, tool, status (working, input_required, completed, failed, cancelled), principal, times, what the call works on (subject: a script run or an agent session, when its tool says), and why it did not succeed (error: a failed task's error, or the text of an error result). Filter by status and tool (e.g. script__start). total counts the matching tasks beyond limit; problems lists stored tasks this Switchboard cannot read. Read-only: a task's result and cancelling it are for its client (tasks/get, tasks/cancel).",
  input: z.strictObject({
    status: z
      .array(z.enum(MCP_TASK_STATUSES))
      .min(1)
      .max(MCP_TASK_STATUSES.length)
      .optional()
      .describe('Only tasks in these statuses, e.g. ["working", "input_required"].'),
    tool: z
      .array(z.string().min(1).max(200))
      .min(1)
      .max(50)
      .optional()
      .describe('Only tasks of these tools, e.g. ["agent__start", "agent__resume"] (agent.start works too).'),
    limit: z.number().int().min(1).max(500).default(50).describe('At most this many tasks (1-500, default 50).'),
  }),
  output: z.object({
    tasks: z.array(TaskRow),
    total: z.number().int().nonnegative(),
    problems: z.array(z.object({ id: z.string(), principal: z.string().optional(), error: z.string() })),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: async ({ status, tool, limit }, ctx) => {
    const everyone = allowed(ctx.principal, ['admin']);
    const { tasks, problems } = listTasks(await ctx.services.store.documents.list(MCP_TASKS_NAMESPACE), {
      ...(everyone ? {} : { principal: ctx.principal.id }),
      ...(status ? { status } : {}),
      ...(tool ? { tools: tool } : {}),
      now: Date.now(),
    });
    return { tasks: tasks.slice(0, limit).map(rowOf), total: tasks.length, problems };
  },
});
