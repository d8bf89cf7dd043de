// Where a hub keeps its agent sessions: in the store when the store holds them (Redis, shared by instances on
// several machines), otherwise as files in the project (the embedded layout). The runtime and the CLI use this.
import type { Services } from '../../core/context.ts';
import { type AgentSessionStore, sessionMissing } from '../../store/contract.ts';
import { AgentSessionFiles } from '../../store/files/agent-sessions.ts';
import { sessionNameProblem } from './session-name.ts';
import type { SessionMeta } from './session-types.ts';

export type SessionStore = AgentSessionStore<SessionMeta>;

/**
 * The session store of a hub: the store's own part when it has one, else the project's session files.
 *
 * @example
 * const sessions = sessionStoreOf(hub.services); // AgentSessionFiles on SQLite, the Redis part on Redis
 */
export function sessionStoreOf(services: Pick<Services, 'store' | 'projectDir'>): SessionStore {
  // The store part is typed by the record a store needs; the agents room owns the rest of the meta's shape.
  return (
    (services.store.agentSessions as SessionStore | undefined) ??
    new AgentSessionFiles<SessionMeta>(services.projectDir, sessionNameProblem)
  );
}

/** A session's meta, or NOT_FOUND saying how to start or list sessions. */
export async function readSession(sessions: SessionStore, name: string): Promise<SessionMeta> {
  const meta = await sessions.get(name);
  if (!meta) throw sessionMissing(name);
  return meta;
}
