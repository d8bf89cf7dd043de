// agent.cancel: stop a session's running turn and every child process it started.
// The session stays and can be resumed; cancelling a session that is not running changes nothing.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import type { AgentRuntime } from '../runtime.ts';
import { SessionName } from '../session-name.ts';

const Input = z.strictObject({ session_name: SessionName });

export function agentCancel(rt: AgentRuntime) {
  return defineCapability({
    name: 'agent.cancel',
    title: 'Cancel an agent turn',
    description:
      "Stop a session's running turn (its model calls and child processes). The session stays and can be resumed; a session that is not running is left as it is.",
    input: Input,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: ({ session_name }) => rt.cancel(session_name),
  });
}
