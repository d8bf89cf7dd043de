// system.servers: the upstream servers as an operator sees them (status, tools, round trip, last error), and what an
// operator does to one: restart it, take it out of service until enabled again, or review and approve the tool
// definitions withheld since they changed (docs/security.md#pinned-tools). Admin only: the views name commands, URLs
// and errors, and the actions affect every caller.
import { z } from 'zod';
import { defineCapability } from '../../core/capability.ts';
import { SwitchboardError } from '../../core/errors.ts';
import { changeDiff } from './pin-diff.ts';
import type { PendingChange } from './pins.ts';
import type { UpstreamView } from './views.ts';

export interface ServerControl {
  views(): UpstreamView[];
  /** Stop the server's connection and start a new one; false when no running server has this name. */
  restart(name: string): Promise<boolean>;
  /** Disable (until enabled again or the hub restarts) or enable a configured server; false for an unknown name. */
  setEnabled(name: string, enabled: boolean): Promise<boolean>;
  /** The server's withheld tool definitions. */
  pending(name: string): PendingChange[];
  /** Approve withheld definitions (`tools`, or all) as `by`; undefined for an unknown server. */
  approve(name: string, tools: readonly string[], by: string): Promise<PendingChange[] | undefined>;
}

const ACTIONS = ['list', 'restart', 'disable', 'enable', 'pending', 'approve'] as const;

// A module constant (why: src/snapshot-tools.ts).
const ServersInput = z.strictObject({
  action: z
    .enum(ACTIONS)
    .default('list')
    .describe('list, restart, disable, enable, pending (withheld tool definitions with a diff) or approve.'),
  name: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe('The server to act on (required except for list, and for pending, which without it shows every server).'),
  tools: z
    .array(z.string().min(1).max(128))
    .max(1000)
    .optional()
    .describe("approve: only these of the server's own tool names (default: every withheld one)."),
});

/** A withheld change as a caller reads it: what changed, both definitions, and the diff as text. */
const shown = (c: PendingChange) => ({ ...c, diff: changeDiff(c) });

export function systemServers(control: ServerControl) {
  return defineCapability({
    name: 'system.servers',
    title: 'Upstream servers',
    description:
      'List the upstream MCP servers with their status (connecting, connected, failed, stopped, disabled, invalid), tool count, withheld tool definitions, round trip, restarts and last error; or act on one: restart (a new connection, its catalog listed again), disable (its tools leave the catalog until enable or a restart of the hub; to keep it off, set enabled = false in the configuration), enable, pending (the tool definitions withheld because they are new or changed since approved, each with a diff) or approve (list them: all withheld, or `tools`). Admin only. Returns the servers after the action.',
    input: ServersInput,
    roles: ['admin'],
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handle: async ({ action, name, tools }, ctx) => {
      if (action === 'pending') {
        const names = name ? [name] : control.views().map((v) => v.name);
        if (name && !control.views().some((v) => v.name === name)) throw unknownServer(name, control);
        return {
          servers: control.views(),
          pending: names
            .map((server) => ({ server, tools: control.pending(server).map(shown) }))
            .filter((p) => p.tools.length),
        };
      }
      if (action === 'approve') {
        if (!name) throw new SwitchboardError('INVALID_INPUT', `action 'approve' needs the server's name (name: "…").`);
        const approved = await control.approve(name, tools ?? [], ctx.principal.id);
        if (!approved) throw unknownServer(name, control);
        return { servers: control.views(), approved: approved.map(shown) };
      }
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
              : unknownServer(name, control).message,
          );
      }
      return { servers: control.views() };
    },
  });
}

function unknownServer(name: string, control: ServerControl): SwitchboardError {
  const known = control.views().map((v) => v.name);
  return new SwitchboardError('NOT_FOUND', `No upstream server '${name}'. Configured: ${known.join(', ') || 'none'}.`);
}
