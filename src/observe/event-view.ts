// What of the hub's events a principal may see, one rule wherever events leave for a caller: the dashboard's stream,
// `switchboard://events` and `system.get_state`. A call of a capability the principal may not see is hidden, as the
// capability is. Admins see every other event. Anyone else sees their own calls and the hub events of the parts they
// may use (a task event needs task.get, an agent event session.list, …) — of events about one principal's own things
// (its MCP tasks), only those that name it —: never another principal's calls or MCP tasks, nor hub-wide operator
// events (configuration, upstream servers, plugins).
import type { BusEvent, CallEvent, Principal } from '../core/context.ts';
import { type Registry, visible } from '../core/registry.ts';
import { hasRole } from '../policy/auth.ts';
import { outwardEvent } from './redact.ts';

/** The capability a non-admin must be able to see for each kind of hub event, by the event type's first word. */
const NEEDS: Record<string, string> = {
  task: 'task.get',
  agent: 'session.list',
  script: 'script.status',
  instance: 'system.get_state',
  registry: 'system.capabilities',
};

/**
 * Events about things one principal owns, and the capability a non-admin must be able to see for them: it sees those
 * that name it as `principal` only (an MCP task is its creator's alone: docs/tasks.md).
 */
const OWNED: Record<string, string> = {
  mcp_task: 'system.mcp_tasks',
};

/** Whether `principal` may see `event` (raw or already outward: only its type, name and principal are read). */
export function maySeeEvent(registry: Registry, principal: Principal, event: BusEvent): boolean {
  const admin = hasRole(principal, ['admin']);
  if (event.type === 'call') {
    const call = event as CallEvent;
    if (!admin && call.principal !== principal.id) return false;
    const entry = registry.get(call.name);
    return !entry || visible(principal, entry.capability);
  }
  if (admin) return true;
  const kind = event.type.split('.')[0] ?? '';
  const owned = OWNED[kind];
  if (owned !== undefined && event.principal !== principal.id) return false;
  const needs = owned ?? NEEDS[kind];
  const entry = needs ? registry.get(needs) : undefined;
  return entry !== undefined && visible(principal, entry.capability);
}

/** The event as `principal` may see it on a stream (redacted), or undefined when it may not. */
export function eventFor(registry: Registry, principal: Principal, event: BusEvent): BusEvent | undefined {
  return maySeeEvent(registry, principal, event) ? outwardEvent(event) : undefined;
}
