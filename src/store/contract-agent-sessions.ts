// The Store contract's agent-session part (src/store/contract.ts re-exports it): what a backend keeps of a named
// agent session — its meta, transcript and turn lock — and the errors every implementation words alike.
import { SwitchboardError } from '../core/errors.ts';

// --- agent sessions ----------------------------------------------------------------------------------------------

/** What a store needs to know of an agent session's meta; the agents room owns the rest of its shape. */
export interface AgentSessionRecord {
  schema_version: number;
  session_name: string;
  status: string;
}

/** One transcript event. `type` says what happened; the rest depends on it. `ts` is stamped on append. */
export type AgentTranscriptEvent = { type: string; ts?: string; [key: string]: unknown };

/** Transcript events from a position on, and the position after them (to read on from, as `sessions tail -f`). */
export interface AgentTranscriptPage {
  events: AgentTranscriptEvent[];
  /** Unreadable entries passed over (a line torn by a crash in the file layout). */
  skipped: number;
  /** Where the next read starts; opaque to callers (a byte offset in a file, an index in a Redis list). */
  next: number;
}

/** Who holds a session's turn lock. */
export interface AgentTurnLock {
  /** The owner given to `lock` (a hub's instance id). */
  owner: string;
  /** False when the owner is gone (its process died or its lease ran out): the lock is stale and may be taken. */
  alive: boolean;
  /** The holder in words for messages: `process 4242`, `instance 4242-ab12cd34`. */
  holder: string;
}

/**
 * Agent sessions: a meta record per session, its append-only transcript and a turn lock. The embedded layout is
 * files under the project (`src/store/files/agent-sessions.ts`, readable with `tail -f`); a store shared by several
 * machines (Redis) holds them itself. Names are checked by the agents room (`session-name.ts`) before they get here;
 * a store refuses only what would corrupt it (not a non-empty string: INVALID_INPUT).
 *
 * `holder` on writes is a fence: the write happens only while that owner holds the turn lock (CONFLICT otherwise),
 * so a turn whose lock was taken over after its lease ran out cannot write over the turn that took it.
 */
export interface AgentSessionStore<M extends AgentSessionRecord = AgentSessionRecord> {
  /** Where a session's transcript can be read, in words for messages (a file path, a command). */
  where(name: string): string;
  /** Create a session with no transcript; CONFLICT when the name is taken. */
  create(meta: M): Promise<void>;
  /** The session's meta; undefined when there is none, INTERNAL when it cannot be read. */
  get(name: string): Promise<M | undefined>;
  /**
   * Replace the meta atomically (readers see the old or the new one, never a mix); NOT_FOUND when there is none.
   * With `release`, `holder`'s turn lock goes in the same step: a turn's end is never seen without its result.
   */
  put(meta: M, opts?: { holder?: string; release?: boolean }): Promise<void>;
  /** Append events in order, all or none, each stamped with `ts` unless it has one; NOT_FOUND for no session. */
  append(name: string, events: readonly AgentTranscriptEvent[], opts?: { holder?: string }): Promise<void>;
  /** Transcript events from `from` (default: the start); an unknown session has none. */
  transcript(name: string, from?: number): Promise<AgentTranscriptPage>;
  /** Every session name, sorted. */
  names(): Promise<string[]>;
  /**
   * Take the session's turn lock for `owner` for `ttlMs` (files: as long as the process lives). A live lock is
   * CONFLICT (one turn at a time), whoever holds it; a stale one is taken over.
   */
  lock(name: string, owner: string, ttlMs: number): Promise<void>;
  /** Extend `owner`'s lock by `ttlMs`; false when the lock is no longer theirs (taken over, or removed). */
  renew(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Let go of `owner`'s lock; a lock someone else holds stays. */
  unlock(name: string, owner: string): Promise<void>;
  /** Who holds the turn lock, alive or stale; undefined when nobody does. */
  lockOwner(name: string): Promise<AgentTurnLock | undefined>;
  /** Delete meta, transcript and lock; false when there was no session, CONFLICT while a live turn holds the lock. */
  remove(name: string): Promise<boolean>;
}

/** The NOT_FOUND for a session that does not exist, with what to do instead. */
export function sessionMissing(name: string): SwitchboardError {
  return new SwitchboardError(
    'NOT_FOUND',
    `No session '${name}'. Start it with agent__start, or list sessions with session__list.`,
  );
}

/** The CONFLICT for a session name that is taken (every implementation words it alike). */
export function sessionTaken(name: string): SwitchboardError {
  return new SwitchboardError(
    'CONFLICT',
    `Session '${name}' already exists. Continue it with agent__resume {session_name: '${name}'}, or pick another name.`,
  );
}

/** The CONFLICT for a session whose turn lock is held: one turn at a time. */
export function sessionBusy(name: string): SwitchboardError {
  return new SwitchboardError(
    'CONFLICT',
    `Session '${name}' is running a turn; one session runs one turn at a time. Wait with agent__status {session_name: '${name}', wait_seconds: 60}, or stop it with agent__cancel.`,
  );
}

/** The CONFLICT for deleting a session while its turn runs. */
export function sessionRunning(name: string): SwitchboardError {
  return new SwitchboardError(
    'CONFLICT',
    `Session '${name}' is running a turn; stop it with agent__cancel before cleaning it.`,
  );
}

/** The CONFLICT for a write fenced by a turn lock its writer no longer holds. */
export function sessionLockLost(name: string, holder: string): SwitchboardError {
  return new SwitchboardError(
    'CONFLICT',
    `Session '${name}': this turn (${holder}) no longer holds the session's turn lock — its lease ran out and another turn took the session over. Nothing was written.`,
  );
}
