// hook.todo_write (ClaudeBench's hook__todo_write): the agent wrote its todo list (Claude Code's TodoWrite tool) —
// the plugins' PostToolUse hooks for TodoWrite decide, as for any other tool.
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import { AfterToolOutput } from './post-tool.ts';
import { agentEvent, HOOK_CALLER_FIELDS, HOOK_TOOL_POLICY, type HookDeciders, pluginVerdict } from './shared.ts';

// An item is data the agent wrote, passed on as it is: other keys (older Claude Code's `id`, `priority`) are kept.
const Todo = z.looseObject({
  content: z.string().min(1),
  status: z.enum(['pending', 'in_progress', 'completed']),
  activeForm: z.string().min(1).optional(),
});

// Module constants (why: src/snapshot-tools.ts).
const TodoWriteInput = z.strictObject({
  todos: z.array(Todo).describe('The list as written: content, status (pending, in_progress, completed), activeForm.'),
  previousTodos: z.array(Todo).optional().describe("The list before, for the caller's records."),
  ...HOOK_CALLER_FIELDS,
});

export function hookTodoWrite(deciders: HookDeciders) {
  return defineCapability({
    name: 'hook.todo_write',
    title: 'Check a todo list update',
    description:
      "Report that the agent wrote its todo list (Claude Code's TodoWrite) and run the project's plugin hooks for it (PostToolUse:TodoWrite): answers {processed, allow, reason}; allow is false when a check failed. Todos are not turned into tasks: use task__batch_create for that.",
    input: TodoWriteInput,
    output: AfterToolOutput,
    policy: HOOK_TOOL_POLICY,
    reachesOthers: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ todos, sessionId }, ctx) => {
      const event = agentEvent(deciders, 'PostToolUse', {
        sessionId,
        tool: 'TodoWrite',
        params: { todos },
        result: {},
      });
      return { processed: true as const, ...(await pluginVerdict(deciders, event, ctx)) };
    },
  });
}
