// 2025-era MCP sessions shared by every instance: the session record (who opened it, the initialize request it
// began with) lives in the shared store, so any instance can take a session over, and a client's answer to a
// server-to-client request (sampling, elicitation) that lands on another instance is routed to the one waiting for it.
import type { McpSessionPart, McpSessionRecord, RoutedMessage } from '../store/contract.ts';

/** How long a pending server-to-client request stays routable (an elicitation may wait for a human). */
const PENDING_TTL_MS = 3_600_000;

/** A record is refreshed at most this often per session, so a busy session costs no extra write per request. */
const TOUCH_EVERY_MS = 60_000;

/**
 * The shared directory of sessions, for the streamable HTTP transport (mcp-http.ts). Records expire after `idleMs()`
 * (`[server] session_idle_timeout_ms`) without use; a refresh is written at most once a minute per session.
 *
 * @example
 * const dir = new SessionDirectory(store.shared.sessions, instanceId, () => 3_600_000);
 * await dir.save(id, { principal, initialize, createdAt });
 * const rec = await dir.load(id); // on any instance
 */
export class SessionDirectory {
  private readonly touched = new Map<string, number>();
  private readonly handlers = new Set<(msg: RoutedMessage) => void>();
  private readonly stopListening: () => void;

  constructor(
    private readonly part: McpSessionPart,
    private readonly instanceId: string,
    private readonly idleMs: () => number,
  ) {
    this.stopListening = part.listen(instanceId, (msg) => {
      for (const h of this.handlers) h(msg);
    });
  }

  async save(id: string, record: McpSessionRecord): Promise<void> {
    await this.part.save(id, record, this.idleMs());
    this.touched.set(id, Date.now());
  }

  load(id: string): Promise<McpSessionRecord | undefined> {
    return this.part.load(id);
  }

  /** Keep a session alive while it is used (at most one write a minute). */
  touch(id: string): void {
    const last = this.touched.get(id) ?? 0;
    if (Date.now() - last < TOUCH_EVERY_MS) return;
    this.touched.set(id, Date.now());
    void this.part.refresh(id, this.idleMs()).catch(() => {});
  }

  /** End a session everywhere (DELETE /mcp). */
  async remove(id: string): Promise<void> {
    this.touched.delete(id);
    await this.part.remove(id);
  }

  /** Forget a session locally (it was closed here; the record stays for the other instances). */
  forget(id: string): void {
    this.touched.delete(id);
  }

  /** Note that this instance waits for the client's answer to request `requestId` of session `sessionId`. */
  async claim(sessionId: string, requestId: string | number): Promise<void> {
    await this.part.claim(sessionId, String(requestId), this.instanceId, PENDING_TTL_MS);
  }

  /**
   * Route a client's answer to the instance waiting for it. True when it went elsewhere; false when this
   * instance should handle it (it waits for it itself, or nobody claimed it).
   */
  async route(sessionId: string, message: { id?: unknown }): Promise<boolean> {
    const owner = await this.part.take(sessionId, String(message.id));
    if (!owner || owner === this.instanceId) return false;
    return this.part.send(owner, { sessionId, message });
  }

  onRouted(handler: (msg: RoutedMessage) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.stopListening();
  }
}
