// system.servers: the upstream servers as an operator sees them (status, tools, round trip, last error), and the
// two things an operator does to one: restart it, or take it out of service until enabled again. Admin only: the
// views name commands, URLs and errors, and the actions affect every caller.
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { UpstreamView } from './views.ts';

export interface ServerControl {
  views(): UpstreamView[];
  /** Stop the server's connection and start a new one; false when no running server has this name. */
  restart(name: string): Promise<boolean>;
  /** Disable (until enabled again or the hub restarts) or enable a configured server; false for an unknown name. */
  setEnabled(name: string, enabled: boolean): Promise<boolean>;
}

const ACTIONS = ['list', 'restart', 'disable', 'enable'] as const;

// A module constant (why: src/snapshot-tools.ts).
const ServersInput = z.strictObject({
  action: z.enum(ACTIONS).default('list').describe('list, restart, disable or enable.'),
  name: z.string().min(1).max(128).optional().describe('The server to act on (required except for list).'),
});

export function systemServers(control: ServerControl) {
  return defineCapability({
    name: 'system.servers',
    title: 'Upstream servers',
    description:
      'List the upstream MCP servers with their status (connecting, connected, failed, stopped, disabled, invalid), tool count, round trip, restarts and last error; or act on one: restart (a new connection, its catalog listed again), disable (its tools leave the catalog until enable or a restart of the hub; to keep it off, set enabled = false in the configuration) or enable. Admin only. Returns the servers after the action.',
    input: ServersInput,
    roles: ['admin'],
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ action, name }) => {
      if (action !== 'list') {
        if (!name)
          throw new SwitchboardError('INVALID_INPUT', `action '${action}' needs the server's name (name: "…").`);
        const known = control.views().map((v) => v.name);
        const done =
          action === 'restart' ? await control.restart(name) : await control.setEnabled(name, action === 'enable');
        if (!done)
          throw new SwitchboardError(
            'NOT_FOUND',
            action === 'restart' && known.includes(name)
              ? `Server '${name}' is not running (it is disabled or invalid); enable it or fix its configuration first.`
              : `No upstream server '${name}'. Configured: ${known.join(', ') || 'none'}.`,
          );
      }
      return { servers: control.views() };
    },
  });
}
