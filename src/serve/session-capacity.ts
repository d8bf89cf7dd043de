// How many 2025-era MCP sessions this instance keeps, and which one ends when a new one needs room. A session lives
// in memory until its client deletes it, so clients that crash or are killed leave theirs behind; a fixed cap that
// refused new sessions would then lock every user out until the idle timeout. Instead each principal has a share,
// and a session that needs room ends an idle one — the principal's own when it holds its share, else anyone's:
// first one with no client connected (a live client keeps a GET stream open; a dead one has none), of those one
// never used after initialize, then the one idle longest. A session answering a request is never ended for room;
// only when every candidate is does the new session get refused.
import type { Config } from '../config/schema.ts';

export interface SessionLimits {
  /** Sessions open at once on this instance (`[server] max_sessions`). */
  max: number;
  /** Sessions one principal may hold at once (`[server] max_sessions_per_principal`). */
  perPrincipal: number;
  /** A session without a request for this long ends (`[server] session_idle_timeout_ms`). */
  idleMs: number;
}

export function sessionLimitsOf(server: Config['server']): SessionLimits {
  return {
    max: server.max_sessions,
    perPrincipal: server.max_sessions_per_principal,
    idleMs: server.session_idle_timeout_ms,
  };
}

/** Why a session is ended: to make room for another (`evicted`), or after the idle timeout (`idle`). */
export type SessionEnd = 'evicted' | 'idle';

/** A new session's place, or why there is none: `429` when the principal's share is busy, `503` when the instance's is. */
export type Admission = { ok: true } | { ok: false; status: 429 | 503; message: string };

interface Slot<S> {
  readonly principalId: string;
  /** Set once the session's initialize succeeded; until then the place is held and never given to another. */
  session?: S;
  end?: (why: SessionEnd) => void;
  /** When the last request started or finished. */
  lastActive: number;
  /** Whether a request other than initialize reached it: a session never used is the first to end. */
  used: boolean;
  /** POSTs (and DELETEs) being answered now: such a session is never ended for room or for idling. */
  inFlight: number;
  /** GET streams open now: a connected client, so ended for room only after every session without one. */
  streams: number;
}

/**
 * The open sessions of one instance, by id, under {@link SessionLimits} (read on every admission, so a changed
 * configuration applies to the next initialize).
 *
 * @example
 * const table = new SessionTable<Session>(() => sessionLimitsOf(hub.config.get().server));
 * const admission = table.admit(id, principal.id); // may end idle sessions to make room
 * if (admission.ok) table.open(id, session, (why) => session.close(why));
 */
export class SessionTable<S> {
  private readonly slots = new Map<string, Slot<S>>();
  private readonly heldBy = new Map<string, number>();

  constructor(
    private readonly limits: () => SessionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Sessions open, and places held by an initialize in progress. */
  get size(): number {
    return this.slots.size;
  }

  /** How many sessions (and places held) `principalId` has. */
  countOf(principalId: string): number {
    return this.heldBy.get(principalId) ?? 0;
  }

  /**
   * Hold a place for session `id` of `principalId`, ending idle sessions to make room: the principal's own while it
   * holds its share, then anyone's while the instance is full.
   */
  admit(id: string, principalId: string): Admission {
    const { max, perPrincipal } = this.limits();
    if (this.countOf(principalId) >= perPrincipal || this.slots.size >= max) this.sweep();
    while (this.countOf(principalId) >= perPrincipal) {
      const idlest = this.idlest(principalId);
      if (!idlest)
        return {
          ok: false,
          status: 429,
          message: `Too many open sessions for '${principalId}' (${perPrincipal}, [server] max_sessions_per_principal), each answering a request; close one (DELETE /mcp), retry when one is done, or use protocol 2026-07-28, which needs none.`,
        };
      this.end(idlest, 'evicted');
    }
    while (this.slots.size >= max) {
      const idlest = this.idlest();
      if (!idlest)
        return {
          ok: false,
          status: 503,
          message: `Too many open sessions (${max}, [server] max_sessions), each answering a request; retry shortly, or use protocol 2026-07-28, which needs none.`,
        };
      this.end(idlest, 'evicted');
    }
    this.slots.set(id, { principalId, lastActive: this.now(), used: false, inFlight: 0, streams: 0 });
    this.heldBy.set(principalId, this.countOf(principalId) + 1);
    return { ok: true };
  }

  /** The initialize of session `id` succeeded: it is open, and `end` is how it is ended by this table. */
  open(id: string, session: S, end: (why: SessionEnd) => void): void {
    const slot = this.slots.get(id);
    if (!slot) return;
    slot.session = session;
    slot.end = end;
    slot.lastActive = this.now();
  }

  /**
   * Forget session `id` (closed, deleted, or its initialize failed). With `session`, only when that is the one held
   * under the id (a session ended here may be closing while its id is opened again).
   */
  remove(id: string, session?: S): void {
    const slot = this.slots.get(id);
    if (!slot || (session !== undefined && slot.session !== session)) return;
    this.forget(id, slot);
  }

  /** The open session `id`; one idle past the timeout ends now and reads as unknown. */
  get(id: string): S | undefined {
    const slot = this.slots.get(id);
    if (!slot?.session) return undefined;
    if (this.idleTooLong(slot, this.now(), this.limits().idleMs)) {
      this.end(id, 'idle');
      return undefined;
    }
    return slot.session;
  }

  /** Whether session `id` is open (its initialize succeeded and it has not ended). */
  isOpen(id: string): boolean {
    return this.slots.get(id)?.session !== undefined;
  }

  /**
   * An HTTP request reached session `id`: a GET `stream`, or a POST or DELETE (`request` when it carries a JSON-RPC
   * request). It counts as activity, and as open until the returned function is called (when its response closes).
   */
  started(id: string, what: { stream: boolean; request: boolean }): () => void {
    const slot = this.slots.get(id);
    if (!slot) return () => {};
    if (what.stream) slot.streams++;
    else slot.inFlight++;
    slot.used ||= what.request;
    slot.lastActive = this.now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (what.stream) slot.streams--;
      else slot.inFlight--;
      slot.lastActive = this.now();
    };
  }

  /** End every session idle past the timeout. */
  sweep(): void {
    const now = this.now();
    const { idleMs } = this.limits();
    for (const [id, slot] of this.slots) if (this.idleTooLong(slot, now, idleMs)) this.end(id, 'idle');
  }

  /** The open sessions. */
  *sessions(): IterableIterator<S> {
    for (const slot of this.slots.values()) if (slot.session) yield slot.session;
  }

  private idleTooLong(slot: Slot<S>, now: number, idleMs: number): boolean {
    return slot.session !== undefined && slot.inFlight === 0 && now - slot.lastActive > idleMs;
  }

  /**
   * The session to end first (of `principalId`, or of anyone), never one answering a request: those without a
   * client connected before those with a GET stream open, of those first one never used after its initialize, then
   * the one idle longest.
   */
  private idlest(principalId?: string): string | undefined {
    let best: { id: string; slot: Slot<S>; rank: number } | undefined;
    for (const [id, slot] of this.slots) {
      if (!slot.session || slot.inFlight > 0 || (principalId !== undefined && slot.principalId !== principalId))
        continue;
      const rank = slot.streams > 0 ? 2 : slot.used ? 1 : 0;
      if (!best || rank < best.rank || (rank === best.rank && slot.lastActive < best.slot.lastActive))
        best = { id, slot, rank };
    }
    return best?.id;
  }

  /** Free the place at once (the room is needed now), then close the session, which may take a while. */
  private end(id: string, why: SessionEnd): void {
    const slot = this.slots.get(id);
    if (!slot) return;
    this.forget(id, slot);
    slot.end?.(why);
  }

  private forget(id: string, slot: Slot<S>): void {
    this.slots.delete(id);
    const held = this.countOf(slot.principalId) - 1;
    if (held > 0) this.heldBy.set(slot.principalId, held);
    else this.heldBy.delete(slot.principalId);
  }
}
