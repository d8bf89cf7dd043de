// One line of text for a transcript event: what progress notifications, logs and the CLI's live view show.
// Returns undefined for events not worth a line (a user's own message, bookkeeping events).
import type { TranscriptEvent } from './session-types.ts';

function short(value: unknown, max = 120): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const one = (text ?? '').replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/**
 * @example
 * describeEvent({ type: 'tool_call', name: 'task__create', args: { text: 'x' } }) // → 'tool task__create {"text":"x"}'
 */
export function describeEvent(e: TranscriptEvent): string | undefined {
  switch (e.type) {
    case 'turn_start':
      return `turn started${e.prompt ? `: ${short(e.prompt, 80)}` : ''}`;
    case 'tool_call':
      return `tool ${e.name} ${short(e.args, 100)}`;
    case 'tool_result':
      return `tool result${e.is_error ? ' (error)' : ''}: ${short(e.content, 100)}`;
    case 'message': {
      if (e.role !== 'assistant') return undefined;
      const text = (e.content as { type: string; text?: string }[])
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('');
      const usage = e.usage as { input_tokens?: number; output_tokens?: number } | undefined;
      const tokens = usage ? ` [${usage.input_tokens ?? 0} in / ${usage.output_tokens ?? 0} out tokens]` : '';
      return text ? `assistant: ${short(text)}${tokens}` : tokens ? `assistant${tokens}` : undefined;
    }
    case 'claude': {
      const ev = e.event as {
        type?: string;
        subtype?: string;
        message?: { content?: any[] };
        usage?: any;
        result?: string;
      };
      if (ev.type === 'system' && ev.subtype === 'init') return 'claude started';
      if (ev.type === 'assistant') {
        const parts = (ev.message?.content ?? []).map((b: any) =>
          b.type === 'tool_use'
            ? `tool ${b.name} ${short(b.input, 100)}`
            : b.type === 'text'
              ? `assistant: ${short(b.text)}`
              : undefined,
        );
        return parts.filter(Boolean).join('; ') || undefined;
      }
      if (ev.type === 'user') {
        const r = (ev.message?.content ?? []).find((b: any) => b.type === 'tool_result');
        return r ? `tool result${r.is_error ? ' (error)' : ''}: ${short(r.content, 100)}` : undefined;
      }
      if (ev.type === 'result')
        return `claude finished (${ev.subtype}) [${ev.usage?.input_tokens ?? 0} in / ${ev.usage?.output_tokens ?? 0} out tokens]`;
      return undefined;
    }
    case 'structured_retry':
      return `output did not match the schema (attempt ${e.attempt}): ${short(e.problems, 150)}`;
    case 'turn_end':
      return `turn ${e.status}${e.error ? `: ${short(e.error, 150)}` : ''}`;
    case 'mcp_unavailable':
      return `MCP server ${e.server} unavailable: ${short(e.error, 100)}`;
    default:
      return undefined;
  }
}
