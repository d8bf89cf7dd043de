// session.list: every session of the project with its agent, provider, status and provider session id.
// A session left running by a crashed process is listed (and saved) as interrupted.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import type { AgentRuntime } from '../runtime.ts';
import { ResponseFormat } from './shared.ts';

const Input = z.strictObject({ response_format: ResponseFormat });

export function sessionList(rt: AgentRuntime) {
  return defineCapability({
    name: 'session.list',
    title: 'List agent sessions',
    description:
      'List the sub-agent sessions (.switchboard/sessions/ of the project, or the shared store on Redis): name, agent, provider, model, status (running, completed, pending_tool_call, failed, cancelled, interrupted), provider session id, turns and token usage.',
    input: Input,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ response_format }) => {
      const sessions = (await rt.list()).sessions.map((m) =>
        'error' in m
          ? m
          : {
              session_name: m.session_name,
              agent: m.agent,
              provider: m.provider,
              model: m.model,
              status: m.status,
              provider_session_id: m.provider_session_id,
              project_dir: m.project_dir,
              created_at: m.created_at,
              last_resumed_at: m.last_resumed_at,
              turns: m.turns,
              tool_calls: m.tool_calls,
              usage: m.usage,
            },
      );
      if (response_format === 'json') return { total: sessions.length, sessions };
      if (!sessions.length) return 'No sessions yet. Start one with agent__start.';
      const lines = ['# Sessions', ''];
      for (const s of sessions) {
        if ('error' in s) lines.push(`- **${s.session_name}**: unreadable — ${s.error}`);
        else
          lines.push(
            `- **${s.session_name}** — ${s.status} — ${s.agent ?? '(no agent)'} on ${s.provider}${s.model ? ` (${s.model})` : ''} — ${s.turns} turns, ${s.usage.input_tokens}/${s.usage.output_tokens} tokens${s.provider_session_id ? ` — provider session ${s.provider_session_id}` : ''}`,
          );
      }
      return lines.join('\n');
    },
  });
}
