// What the agent and session tools share: the response format option, how a turn result becomes a tool result
// (long texts cut with a note, failures as isError), and the markdown views.
import { z } from 'zod';
import { type RawResult, rawResult } from '../../../core/capability.ts';
import type { CallContext } from '../../../core/context.ts';
import type { AgentRuntime } from '../runtime.ts';
import type { TurnResult } from '../session-types.ts';
import type { CallHooks } from '../turn.ts';

export const ResponseFormat = z
  .enum(['markdown', 'json'])
  .default('markdown')
  .describe('markdown for people, json for programs');

/** Statuses after which a turn's result counts as a failure (isError) for the caller. */
const FAILED = new Set(['failed', 'cancelled', 'interrupted']);

/**
 * A turn result as a tool result: the text cut at `[agents] max_output_chars` with a note naming the transcript,
 * and `isError: true` when the turn failed so the caller's model sees it ran and did not succeed.
 */
export function present(rt: AgentRuntime, result: TurnResult): TurnResult | RawResult {
  const max = rt.config().max_output_chars;
  let out: TurnResult & { truncated?: boolean; note?: string } = result;
  if (result.content.length > max) {
    out = {
      ...result,
      content: `${result.content.slice(0, max)}\n[… cut: ${result.content.length - max} more characters. The whole answer is in ${rt.sessions.where(result.session_id)}]`,
      truncated: true,
    };
  }
  if (result.status === 'pending_tool_call')
    out = {
      ...out,
      note: `The agent called tools you provide. Run them and answer with agent__resume {session_name: '${result.session_id}', tool_results: [{tool_use_id, content, is_error?}]} for every id in pending_tool_calls.`,
    };
  if (result.status === 'running')
    out = {
      ...out,
      note: `Running in the background. Poll with agent__status {session_name: '${result.session_id}', wait_seconds: 30}, then read agent__result.`,
    };
  if (FAILED.has(result.status)) {
    const text = `Session '${result.session_id}' turn ${result.status}: ${result.error ?? 'no answer'}. Resume it with agent__resume once the cause is fixed.`;
    return rawResult([{ type: 'text', text }], {
      structuredContent: out as unknown as Record<string, unknown>,
      isError: true,
    });
  }
  return out;
}

/**
 * How a turn relates to its call: the caller bounds the agent's built-in tools; a synchronous turn reports to it. Progress goes wherever the caller listens (an MCP progressToken,
 * the CLI's live view). Log notifications go out only when the MCP client asked for live updates with a
 * progressToken: a client that did not gets the result alone, without a notification stream it never asked for
 * (and the stdio transport's pause between a notification and the response that follows it). `stream` (Meerkat's
 * key) asks for them too.
 */
export function liveHooks(ctx: CallContext, stream = false): CallHooks {
  const live = stream || ctx.meta?.progressToken !== undefined;
  return {
    caller: ctx.principal,
    signal: ctx.signal,
    progress: ctx.progress,
    ...(live ? { log: ctx.log } : {}),
    ...(ctx.trace ? { trace: ctx.trace } : {}),
  };
}
