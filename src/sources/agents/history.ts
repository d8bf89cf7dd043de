// The conversation of an API-provider session, rebuilt from the transcript's `message` events.
// Repairs what a crash or cancel leaves behind so the next model call is always a well-formed conversation.
import type { Block, Message } from './providers/provider.ts';
import type { TranscriptEvent } from './session-types.ts';

const INTERRUPTED = 'The turn was interrupted before this tool returned a result.';

/** The `message` events of a transcript, in order. */
export function historyOf(events: TranscriptEvent[]): Message[] {
  const out: Message[] = [];
  for (const e of events) {
    if (e.type !== 'message' || (e.role !== 'user' && e.role !== 'assistant') || !Array.isArray(e.content)) continue;
    out.push({ role: e.role, content: e.content as Block[] });
  }
  return out;
}

/**
 * Make a conversation valid for the model APIs: consecutive messages of one role are merged (a turn that failed
 * after its user message), and every tool_use gets a tool_result in the next user message (a turn that crashed
 * or was cancelled while a tool ran) — an error result saying it was interrupted.
 *
 * @example
 * repairHistory([{ role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'x', input: {} }] }]);
 * // → adds { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true, … }] }
 */
export function repairHistory(messages: Message[]): Message[] {
  const merged: Message[] = [];
  for (const m of messages) {
    const last = merged.at(-1);
    if (last && last.role === m.role) last.content = [...last.content, ...m.content];
    else merged.push({ role: m.role, content: [...m.content] });
  }
  // Never start with an assistant message.
  while (merged[0]?.role === 'assistant') merged.shift();
  const out: Message[] = [];
  for (let i = 0; i < merged.length; i++) {
    const m = merged[i];
    out.push(m);
    if (m.role !== 'assistant') continue;
    const uses = m.content.filter((b) => b.type === 'tool_use') as Extract<Block, { type: 'tool_use' }>[];
    if (!uses.length) continue;
    let next = merged[i + 1];
    if (next?.role !== 'user') {
      next = { role: 'user', content: [] };
      merged.splice(i + 1, 0, next);
    }
    const answered = new Set(
      next.content.filter((b) => b.type === 'tool_result').map((b) => (b as { tool_use_id: string }).tool_use_id),
    );
    const missing = uses
      .filter((u) => !answered.has(u.id))
      .map((u) => ({ type: 'tool_result' as const, tool_use_id: u.id, content: INTERRUPTED, is_error: true }));
    // Tool results come first in a user message (both APIs expect them right after the tool calls).
    if (missing.length) next.content = [...missing, ...next.content];
    next.content = [
      ...next.content.filter((b) => b.type === 'tool_result'),
      ...next.content.filter((b) => b.type !== 'tool_result'),
    ];
  }
  return out;
}
