// 2025-era MCP sessions shared by every instance on one Redis: a session's record is one string key that expires
// when the session idles; a claim on a server-to-client request is a key naming the instance that waits for the
// answer; each instance's mailbox is a pub/sub channel, heard on a connection of its own.
import type { Redis } from 'ioredis';
import type { McpSessionPart, McpSessionRecord, RoutedMessage } from '../contract.ts';
import { mcpSessionJson } from '../records/mcp-sessions.ts';
import { newRedisClient } from './connection.ts';
import type { Io } from './scripts.ts';

export class RedisMcpSessions implements McpSessionPart {
  constructor(
    private readonly r: Redis,
    private readonly url: string,
    private readonly P: string,
    private readonly io: Io,
  ) {}

  private key(id: string): string {
    return `${this.P}mcp-session:${id}`;
  }

  private pending(sessionId: string, requestId: string): string {
    return `${this.P}mcp-pending:${sessionId}:${requestId}`;
  }

  private channel(owner: string): string {
    return `${this.P}mcp-route:${owner}`;
  }

  async save(id: string, record: McpSessionRecord, idleMs: number): Promise<void> {
    const json = mcpSessionJson(record);
    await this.io(() => this.r.set(this.key(id), json, 'PX', idleMs));
  }

  async load(id: string): Promise<McpSessionRecord | undefined> {
    const text = await this.io(() => this.r.get(this.key(id)));
    return text ? (JSON.parse(text) as McpSessionRecord) : undefined;
  }

  async refresh(id: string, idleMs: number): Promise<void> {
    await this.io(() => this.r.pexpire(this.key(id), idleMs));
  }

  async remove(id: string): Promise<void> {
    await this.io(() => this.r.del(this.key(id)));
  }

  async claim(sessionId: string, requestId: string, owner: string, ttlMs: number): Promise<void> {
    await this.io(() => this.r.set(this.pending(sessionId, requestId), owner, 'PX', ttlMs));
  }

  async take(sessionId: string, requestId: string): Promise<string | undefined> {
    return (await this.io(() => this.r.getdel(this.pending(sessionId, requestId)))) ?? undefined;
  }

  async send(owner: string, message: RoutedMessage): Promise<boolean> {
    return (await this.io(() => this.r.publish(this.channel(owner), JSON.stringify(message)))) > 0;
  }

  listen(owner: string, deliver: (message: RoutedMessage) => void): () => void {
    // A subscribed connection can do nothing else, so a mailbox is heard on one of its own.
    const sub = newRedisClient(this.url, { lazy: true });
    sub.on('message', (_channel: string, text: string) => {
      let message: RoutedMessage;
      try {
        message = JSON.parse(text) as RoutedMessage;
      } catch {
        return;
      }
      deliver(message);
    });
    // A subscriber that reconnects after an outage subscribes again by itself (ioredis autoResubscribe).
    sub
      .connect()
      .then(() => sub.subscribe(this.channel(owner)))
      .catch(() => {});
    return () => sub.disconnect();
  }
}
