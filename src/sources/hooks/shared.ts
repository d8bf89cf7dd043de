// What the hook tools share: the fields every ClaudeBench hook input carries, the Claude Code hook event a tool's
// input stands for, and the plugins' verdict on it. The decisions themselves are the ones `switchboard hook …`
// makes for Claude Code (src/sources/plugins/dispatch.ts, src/sources/scripts/hooks.ts); this only translates.
import { z } from 'zod';
import type { Principal } from '../../core/context.ts';
import type { DispatchResult, HookEvent } from '../plugins/dispatch.ts';

/** What a hook tool needs of the hub: the project, the environment, and the plugins' dispatch. */
export interface HookDeciders {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  /** Run the plugin hooks an event matches that `mayRun` allows (the plugins source's `dispatch`). */
  dispatch(event: HookEvent, signal: AbortSignal, mayRun: (capability: string) => boolean): Promise<DispatchResult>;
  /** Whether `principal` could call the hook `capability` directly (`mayCallThrough`, docs/security.md rule 2). */
  mayCall(principal: Principal, capability: string): boolean;
}

/**
 * The hook tools' time limit: each plugin hook they run is bounded by its own `timeout` (30 s unless its manifest
 * says otherwise) and they run one after another, as `hook dispatch` runs them, so the call waits up to 10 minutes
 * rather than the 30 s default (`[policy.capabilities."hook.pre_tool"] timeout_ms` changes it).
 */
export const HOOK_TOOL_POLICY = { timeoutMs: 600_000 } as const;

/** The fields ClaudeBench's hook inputs carry besides their own (accepted; the session names the event's session). */
export const HOOK_CALLER_FIELDS = {
  sessionId: z
    .string()
    .min(1)
    .optional()
    .describe("The agent session the event belongs to (Claude Code's session_id)."),
  instanceId: z.string().min(1).optional().describe("The instance asking, for the caller's own records."),
  timestamp: z
    .number()
    .optional()
    .describe("When the event happened (ms since the epoch), for the caller's own records."),
};

/** A decision: may the agent go on, and if not (or if a check had something to say), why. */
export const Verdict = {
  allow: z.boolean().describe('false: do not go on (PreToolUse: do not run the tool; after a tool: fix first).'),
  reason: z
    .string()
    .optional()
    .describe("Why, with the failing checks' output; also set for a failure that does not block."),
};

/** The Claude Code hook event a tool's input stands for, about this hub's project. */
export function agentEvent(
  deciders: HookDeciders,
  name: 'PreToolUse' | 'PostToolUse' | 'UserPromptSubmit',
  fields: { sessionId?: string; tool?: string; params?: unknown; result?: unknown; prompt?: string },
): HookEvent {
  return {
    hook_event_name: name,
    cwd: deciders.projectDir,
    ...(fields.sessionId !== undefined ? { session_id: fields.sessionId } : {}),
    ...(fields.tool !== undefined ? { tool_name: fields.tool, tool_input: fields.params } : {}),
    ...(fields.result !== undefined ? { tool_response: fields.result } : {}),
    ...(fields.prompt !== undefined ? { prompt: fields.prompt } : {}),
  };
}

/**
 * The plugins' verdict on an event, in the tools' terms: a PreToolUse hook that exits 2 denies, a failing check after
 * a tool blocks (Claude Code's `decision: "block"`), and a failure that cannot block is passed on as the reason. Only
 * the hooks the caller could call directly run: a hook its profile hides is not reached through a hook tool.
 */
export async function pluginVerdict(
  deciders: HookDeciders,
  event: HookEvent,
  ctx: { signal: AbortSignal; principal: Principal },
): Promise<{ allow: boolean; reason?: string }> {
  const { output, message } = await deciders.dispatch(event, ctx.signal, (capability) =>
    deciders.mayCall(ctx.principal, capability),
  );
  if (output && 'hookSpecificOutput' in output)
    return { allow: false, reason: output.hookSpecificOutput.permissionDecisionReason };
  if (output) return { allow: false, reason: output.reason };
  return message ? { allow: true, reason: message } : { allow: true };
}
