// 2025-era MCP sessions shared by every instance: the session record (who opened it, the initialize request it
// began with) lives in Redis, so any instance can take a session over, and a client's answer to a server-to-client
// request (sampling, elicitation) that lands on another instance is routed to the one waiting for it.
import type { RedisStore } from '../store/redis/index.ts';

/** What any instance needs to continue a session it did not open. */
export interface SessionRecord {
  principal: { id: string; roles: string[] };
  /** The client's initialize request, replayed into a fresh protocol server to restore its capabilities. */
  initialize: unknown;
  createdAt: string;
}

/** A client's message routed from the instance that received it to the instance that waits for it. */
export interface RoutedMessage {
  sessionId: string;
  message: unknown;
}

/** How long a pending server-to-client request stays routable (an elicitation may wait for a human). */
const PENDING_TTL_S = 3600;

/**
 * The shared directory of sessions. Records expire after `idleMs` without use; a refresh is written at most once a
 * minute per session, so a busy session costs no extra Redis write per request.
 *
 * @example
 * const dir = new SessionDirectory(store, instanceId, 3_600_000);
 * await dir.save(id, { principal, initialize, createdAt });
 * const rec = await dir.load(id); // on any instance
 */
export class SessionDirectory {
  private readonly touched = new Map<string, number>();
  private readonly sub: ReturnType<typeof RedisStore.connect>;
  private readonly handlers = new Set<(msg: RoutedMessage) => void>();
  private readonly ready: Promise<void>;

  constructor(
    private readonly store: RedisStore,
    private readonly instanceId: string,
    private readonly idleMs: number,
    connect: typeof RedisStore.connect,
  ) {
    // A subscribed connection can do nothing else, so routed messages arrive on one of their own.
    this.sub = connect(store.url, { lazy: true });
    this.sub.on('message', (_channel: string, text: string) => {
      let msg: RoutedMessage;
      try {
        msg = JSON.parse(text) as RoutedMessage;
      } catch {
        return;
      }
      for (const h of this.handlers) h(msg);
    });
    this.ready = this.sub
      .connect()
      .then(() => this.sub.subscribe(this.channel(instanceId)))
      .then(() => {});
    // A subscriber that reconnects after an outage subscribes again by itself (ioredis autoResubscribe).
    this.ready.catch(() => {});
  }

  private key(id: string): string {
    return `${this.store.prefix}mcp-session:${id}`;
  }

  private channel(instanceId: string): string {
    return `${this.store.prefix}mcp-route:${instanceId}`;
  }

  async save(id: string, record: SessionRecord): Promise<void> {
    await this.store.io(() => this.store.client.set(this.key(id), JSON.stringify(record), 'PX', this.idleMs));
    this.touched.set(id, Date.now());
  }

  async load(id: string): Promise<SessionRecord | undefined> {
    const text = await this.store.io(() => this.store.client.get(this.key(id)));
    return text ? (JSON.parse(text) as SessionRecord) : undefined;
  }

  /** Keep a session alive while it is used (at most one write a minute). */
  touch(id: string): void {
    const last = this.touched.get(id) ?? 0;
    if (Date.now() - last < 60_000) return;
    this.touched.set(id, Date.now());
    void this.store.io(() => this.store.client.pexpire(this.key(id), this.idleMs)).catch(() => {});
  }

  /** End a session everywhere (DELETE /mcp). */
  async remove(id: string): Promise<void> {
    this.touched.delete(id);
    await this.store.io(() => this.store.client.del(this.key(id)));
  }

  /** Forget a session locally (it was closed here; the record stays for the other instances). */
  forget(id: string): void {
    this.touched.delete(id);
  }

  /** Note that this instance waits for the client's answer to request `requestId` of session `sessionId`. */
  async claim(sessionId: string, requestId: string | number): Promise<void> {
    await this.store.io(() =>
      this.store.client.set(
        `${this.store.prefix}mcp-pending:${sessionId}:${String(requestId)}`,
        this.instanceId,
        'EX',
        PENDING_TTL_S,
      ),
    );
  }

  /**
   * Route a client's answer to the instance waiting for it. True when it went elsewhere; false when this
   * instance should handle it (it waits for it itself, or nobody claimed it).
   */
  async route(sessionId: string, message: { id?: unknown }): Promise<boolean> {
    const key = `${this.store.prefix}mcp-pending:${sessionId}:${String(message.id)}`;
    const owner = await this.store.io(() => this.store.client.getdel(key));
    if (!owner || owner === this.instanceId) return false;
    const delivered = await this.store.io(() =>
      this.store.client.publish(this.channel(owner), JSON.stringify({ sessionId, message } satisfies RoutedMessage)),
    );
    return delivered > 0;
  }

  onRouted(handler: (msg: RoutedMessage) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.sub.disconnect();
  }
}
