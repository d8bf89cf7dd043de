// What of the bus a dashboard principal sees. Admins see every event, as GET /v1/events shows them. Others see
// their own calls and the hub events of the parts they may use (a task event needs task.get, an agent event
// session.list, …); hub-wide operator events (configuration, upstream servers, plugins) are for admins.
import type { BusEvent, CallEvent, Principal } from '../../core/context.ts';
import { visible } from '../../core/registry.ts';
import type { Hub } from '../../hub.ts';
import { outwardEvent } from '../../observe/redact.ts';
import { hasRole } from '../../policy/auth.ts';

/** The capability a non-admin must be able to see for each kind of hub event, by the event type's first word. */
const NEEDS: Record<string, string> = {
  task: 'task.get',
  agent: 'session.list',
  script: 'script.status',
  instance: 'system.get_state',
  registry: 'system.capabilities',
};

/** The event as `principal` may see it, or undefined when it may not. */
export function eventFor(hub: Hub, principal: Principal, event: BusEvent): BusEvent | undefined {
  if (hasRole(principal, ['admin'])) return outwardEvent(event);
  const { registry } = hub.services;
  if (event.type === 'call') {
    const call = event as CallEvent;
    if (call.principal !== principal.id) return undefined;
    const entry = registry.get(call.name);
    return !entry || visible(principal, entry.capability) ? outwardEvent(event) : undefined;
  }
  const needs = NEEDS[event.type.split('.')[0]];
  const entry = needs ? registry.get(needs) : undefined;
  return entry && visible(principal, entry.capability) ? event : undefined;
}
