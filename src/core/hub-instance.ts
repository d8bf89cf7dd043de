// How a hub process appears in the shared instance list: its role and its id there. Shared by the scale-out
// presence that registers it and by sources that ask whether another hub is still alive (across machines).

/** Roles of a Switchboard instance in the instance list (agents and workers register with their own). */
export const HUB_ROLE = 'switchboard';

/** The id under which a hub instance registers itself (`system.get_state` lists it). */
export function hubInstanceId(instanceId: string): string {
  return `${HUB_ROLE}:${instanceId}`;
}
