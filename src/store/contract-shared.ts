// The Store contract's shared part (src/store/contract.ts re-exports it): the live state several instances behind
// one address share — MCP session records and mailboxes, rate limits and breakers, the bus stream, cached results,
// dashboard tickets — offered only by a store reached by several instances (Redis).
import type { McpSessionRecord } from './records/mcp-sessions.ts';

// --- shared state for scale-out -----------------------------------------------------------------------------------
// What instances behind one address share beyond the records above: live state with short lives, kept by a store
// that several processes reach (Redis). The hub's logic over it stays in serve/, policy/ and observe/.

export type { McpSessionRecord } from './records/mcp-sessions.ts';

/** A client's message carried from the instance that received it to the instance that waits for it. */
export interface RoutedMessage {
  sessionId: string;
  message: unknown;
}

/**
 * 2025-era MCP sessions (streamable HTTP) shared by instances, so any of them continues a session another opened,
 * and mailboxes that carry a client's answer to a server-to-client request to the instance waiting for it.
 * A malformed record is INVALID_INPUT and nothing is written.
 */
export interface McpSessionPart {
  /** Store (or replace) a session's record; it is gone `idleMs` after the last save or refresh. */
  save(id: string, record: McpSessionRecord, idleMs: number): Promise<void>;
  load(id: string): Promise<McpSessionRecord | undefined>;
  /** Give the record `idleMs` more from now; an unknown session is a no-op. */
  refresh(id: string, idleMs: number): Promise<void>;
  remove(id: string): Promise<void>;
  /** Note that instance `owner` waits for the client's answer to request `requestId` of a session, for `ttlMs`. */
  claim(sessionId: string, requestId: string, owner: string, ttlMs: number): Promise<void>;
  /** Take the claim on a request (read and delete in one step, so one instance gets it): its owner, if any. */
  take(sessionId: string, requestId: string): Promise<string | undefined>;
  /** Put a message in instance `owner`'s mailbox; true when a listener there received it. */
  send(owner: string, message: RoutedMessage): Promise<boolean>;
  /**
   * Hear the messages sent to instance `owner` from now on, on a connection of its own (reconnecting by itself after
   * an outage); returns the function that stops listening and closes that connection.
   */
  listen(owner: string, deliver: (message: RoutedMessage) => void): () => void;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/** A circuit as the shared store last left it. */
export interface CircuitView {
  state: CircuitState;
  /** Consecutive failures. */
  failures: number;
  /** When it last opened (canonical ISO); null: never. */
  openedAt: string | null;
  /** How many times it opened. */
  opens: number;
}

/** A shared admission: a token from the bucket and the circuit's leave, or which of the two refused. */
export type LimitVerdict =
  | {
      ok: true;
      /** Tokens left in the bucket; -1 without a rate limit. */
      remaining: number;
      /** Admitted as one of a half-open circuit's probes (give it back with `record` or `release`). */
      probe: boolean;
      state: CircuitState;
      failures: number;
    }
  | { ok: false; scope: 'rate' | 'breaker'; retryAfterMs: number; state: CircuitState };

/**
 * Rate limits (a token bucket per principal and capability) and circuit breakers (one per capability) shared by
 * instances, so 10 a minute is 10 a minute in total. Times are the store's own clock, the one every instance shares.
 * The rules are the caller's, given with each call: `rate` {limit, windowMs}, `breaker` {threshold, resetMs,
 * halfOpenProbes (default 1)}.
 */
export interface SharedLimitsPart {
  /** Take a token (when there is a rate limit), then ask the breaker, in one atomic step. */
  admit(
    principal: string,
    capability: string,
    rate: { limit: number; windowMs: number } | undefined,
    breaker: { threshold: number; resetMs: number; halfOpenProbes?: number },
  ): Promise<LimitVerdict>;
  /** Record a finished call with the capability's circuit (`probe`: it was admitted as one); the circuit after it. */
  record(capability: string, threshold: number, failed: boolean, probe: boolean): Promise<CircuitView>;
  /** Give back a probe slot without judging the circuit (the call never ran). */
  release(capability: string): Promise<void>;
}

/**
 * The stream under the event bus across instances: every instance appends, and reads what the others appended.
 * Entries are JSON texts (the bus's events); the stream keeps a bounded recent tail, the bus is live, not a record.
 */
export interface BusStreamPart {
  /** Append entries in order, in one round trip. */
  append(entries: readonly string[]): Promise<void>;
  /** The newest `count` entries, newest first. */
  latest(count: number): Promise<string[]>;
  /** A reader on a connection of its own (a read that waits holds its connection); it connects on first use. */
  reader(): BusStreamReader;
}

export interface BusStreamReader {
  /** Where the stream ends now: reading from there gets only what is appended afterwards. */
  end(): Promise<string>;
  /** Entries after position `from`, waiting up to `waitMs` for one; `next` is where to read on from. */
  read(from: string, waitMs: number): Promise<{ entries: string[]; next: string }>;
  close(): void;
}

/**
 * Capability results kept for a while (`policy.cache`), so an identical call on any instance is answered without
 * running again. Values are JSON text; a key is the caller's fingerprint of capability, input and roles.
 */
export interface SharedResultsPart {
  /** The value kept under `key`, if it has not expired. */
  get(key: string): Promise<string | undefined>;
  /** Keep `value` under `key` for `ttlMs` (replacing what was there). */
  put(key: string, value: string, ttlMs: number): Promise<void>;
}

/**
 * Single-use values with a short life (the dashboard's event-stream tickets): put by one instance, taken once by any.
 * Values are text; an id is the caller's random, unguessable name.
 */
export interface SharedTicketsPart {
  /** Keep `value` under `id` for `ttlMs` (the store's clock). */
  put(id: string, value: string, ttlMs: number): Promise<void>;
  /** The value under `id`, deleted in the same step (so one taker gets it); undefined when absent or expired. */
  take(id: string): Promise<string | undefined>;
}

/** The parts a store shared by several instances offers; an embedded store (SQLite) has none. */
export interface SharedState {
  readonly sessions: McpSessionPart;
  readonly limits: SharedLimitsPart;
  readonly bus: BusStreamPart;
  readonly results: SharedResultsPart;
  readonly tickets: SharedTicketsPart;
  /**
   * A 32-byte secret every instance on the store shares (the first to ask creates it): it lives as long as the
   * store's data, so what one instance sealed with it, every instance (and a restarted one) opens.
   */
  secret(name: string): Promise<Uint8Array>;
}
