// session.clean: delete one session's files, or every session's (running sessions are kept).
// Destructive and final: the transcript and meta are removed, the provider's own session files are not.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import type { AgentRuntime } from '../runtime.ts';
import { SessionName } from '../session-name.ts';

const Input = z.strictObject({ session_name: SessionName.optional() });

export function sessionClean(rt: AgentRuntime) {
  return defineCapability({
    name: 'session.clean',
    title: 'Delete agent sessions',
    description:
      'Delete a session (its transcript and meta) with session_name, or every session without it. Running sessions are not deleted: cancel them first. This cannot be undone.',
    input: Input,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handle: async ({ session_name }) => {
      const { removed, skipped } = await rt.clean(session_name);
      return { removed, skipped, total: removed.length };
    },
  });
}
