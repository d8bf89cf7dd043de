// Where a hub keeps its agent sessions: in the store when the store holds them (Redis, shared by instances on
// several machines), otherwise as files in the project (the embedded layout). The runtime and the CLI use this.
import type { Services } from '../../core/context.ts';
import { type AgentSessionStore, sessionMissing } from '../../store/contract.ts';
import { SessionFiles, type SessionMeta } from './session-files.ts';

export type SessionStore = AgentSessionStore<SessionMeta>;

/**
 * The session store of a hub: the store's own part when it has one, else the project's session files.
 *
 * @example
 * const sessions = sessionStoreOf(hub.services); // SessionFiles on SQLite, the Redis part on Redis
 */
export function sessionStoreOf(services: Pick<Services, 'store' | 'projectDir'>): SessionStore {
  // The store part is typed by the record a store needs; the agents room owns the rest of the meta's shape.
  return (services.store.agentSessions as SessionStore | undefined) ?? new SessionFiles(services.projectDir);
}

/** A session's meta, or NOT_FOUND saying how to start or list sessions. */
export async function readSession(sessions: SessionStore, name: string): Promise<SessionMeta> {
  const meta = await sessions.get(name);
  if (!meta) throw sessionMissing(name);
  return meta;
}
