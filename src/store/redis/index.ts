// The scale-out Store: every part of the Store contract on one Redis server, under a key prefix, so several
// Switchboard instances share tasks, instances, events, tokens, the audit log, documents, hook runs, script runs,
// agent sessions and the live shared state (MCP sessions, limits and breakers, the event bus: shared.ts). Each part
// is its own file in this folder, its Lua scripts .lua files beside it; every write that touches more than one key
// is one Lua script (atomic on the server): nothing is ever half-written. This file assembles the parts on one
// connection (connection.ts: how it is made and what its failures mean).
import type { Redis } from 'ioredis';
import { SwitchboardError } from '../../core/errors.ts';
import type {
  AgentSessionStore,
  AuditLog,
  DocumentStore,
  EventLog,
  HookStore,
  InstanceStore,
  OAuthLoginStore,
  ScriptRunStore,
  SharedState,
  Store,
  TaskStore,
  TokenStore,
} from '../contract.ts';
import { readClock, type StoreClock } from '../records/clock.ts';
import { describe, invalid } from '../records/common.ts';
import { AUDIT_SCRIPTS, type AuditScripts, RedisAudit } from './audit.ts';
import { newRedisClient, RedisGuard, safeRedisUrl } from './connection.ts';
import { RedisDocuments } from './documents.ts';
import { EVENT_SCRIPTS, type EventScripts, RedisEvents } from './events.ts';
import { HOOK_SCRIPTS, type HookScripts, RedisHooks } from './hooks.ts';
import { INSTANCE_SCRIPTS, type InstanceScripts, RedisInstances } from './instances.ts';
import { LIMIT_SCRIPTS, type LimitScripts } from './limits.ts';
import { RedisOAuthLogins } from './oauth-logins.ts';
import { RedisScriptRuns, SCRIPT_RUN_SCRIPTS, type ScriptRunScripts } from './script-runs.ts';
import { defineScripts } from './scripts.ts';
import { RedisAgentSessions, SESSION_SCRIPTS, type SessionScripts } from './sessions.ts';
import { RedisShared } from './shared.ts';
import { RedisTasks, TASK_SCRIPTS, type TaskScripts } from './tasks.ts';
import { RedisTokens, TOKEN_SCRIPTS, type TokenScripts } from './tokens.ts';

export { REDIS_COMMAND_TIMEOUT_MS, safeRedisUrl, unavailable } from './connection.ts';

/** A connection with every script of the store defined on it. */
type Client = Redis &
  TaskScripts &
  InstanceScripts &
  EventScripts &
  TokenScripts &
  AuditScripts &
  HookScripts &
  ScriptRunScripts &
  SessionScripts &
  LimitScripts;

const SCRIPTS = [
  ...TASK_SCRIPTS,
  ...INSTANCE_SCRIPTS,
  ...EVENT_SCRIPTS,
  ...TOKEN_SCRIPTS,
  ...AUDIT_SCRIPTS,
  ...HOOK_SCRIPTS,
  ...SCRIPT_RUN_SCRIPTS,
  ...SESSION_SCRIPTS,
  ...LIMIT_SCRIPTS,
];

export interface RedisStoreOptions {
  /** `redis://[user:password@]host:port[/db]`. */
  url: string;
  /** Prepended to every key, so several hubs (or test runs) share one server without meeting. */
  prefix: string;
  /** How long to wait for the first connection before giving up (ms). */
  connectTimeoutMs?: number;
  /** The clock instance leases are measured by (default Date.now; tests move it instead of waiting). */
  now?: StoreClock;
}

/**
 * The Redis {@link Store}. Commands never queue while Redis is away: they fail at once (or after
 * {@link REDIS_COMMAND_TIMEOUT_MS} when Redis stops answering) with UNAVAILABLE, and the client reconnects by
 * itself, so the instance recovers when Redis comes back.
 *
 * @example
 * const store = await RedisStore.open({ url: 'redis://127.0.0.1:6379', prefix: 'switchboard:' });
 * await store.tasks.create({ text: 'Write the README', priority: 50 });
 * await store.close();
 */
export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  readonly tasks: TaskStore;
  readonly instances: InstanceStore;
  readonly events: EventLog;
  readonly tokens: TokenStore;
  readonly audit: AuditLog;
  readonly documents: DocumentStore;
  readonly oauthLogins: OAuthLoginStore;
  readonly hooks: HookStore;
  readonly scriptRuns: ScriptRunStore;
  readonly agentSessions: AgentSessionStore;
  readonly shared: SharedState;
  /** Runs every operation of the store (see {@link RedisStore.io}). */
  private readonly guard: RedisGuard;

  private constructor(
    /** The connection (subscribers and blocking reads open their own with the same settings). */
    readonly client: Client,
    readonly url: string,
    readonly prefix: string,
    now: StoreClock,
  ) {
    this.guard = new RedisGuard(client, url);
    const io = <T>(fn: () => Promise<T>) => this.guard.io(fn);
    this.tasks = new RedisTasks(client, prefix, io, now);
    this.instances = new RedisInstances(client, prefix, io, now);
    this.events = new RedisEvents(client, prefix, io);
    this.tokens = new RedisTokens(client, prefix, io);
    this.audit = new RedisAudit(client, prefix, io);
    this.documents = new RedisDocuments(client, prefix, io);
    this.oauthLogins = new RedisOAuthLogins(client, prefix, io);
    this.hooks = new RedisHooks(client, prefix, io);
    this.scriptRuns = new RedisScriptRuns(client, prefix, io, now);
    this.agentSessions = new RedisAgentSessions(client, prefix, io);
    this.shared = new RedisShared(client, url, prefix, io);
  }

  /** A new connection with the store's fail-fast settings and every script defined on it (the store's own). */
  static connect(url: string, opts: { lazy?: boolean; autoPipelining?: boolean } = {}): Client {
    const client = newRedisClient(url, opts) as Client;
    defineScripts(client, SCRIPTS);
    return client;
  }

  /** Connect (failing with UNAVAILABLE when Redis does not answer) and return the store. */
  static async open(opts: RedisStoreOptions): Promise<RedisStore> {
    if (typeof opts.prefix !== 'string' || opts.prefix.length === 0 || opts.prefix.length > 100)
      invalid(`store prefix must be a string of 1-100 characters, got ${describe(opts.prefix)}.`);
    const client = RedisStore.connect(opts.url, { autoPipelining: true });
    // The socket's own error (ECONNREFUSED, a DNS failure) says more than the "Connection is closed." connect gives.
    let socketError: Error | undefined;
    const onError = (err: Error) => {
      socketError ??= err;
    };
    client.on('error', onError);
    try {
      await client.connect();
    } catch (err) {
      client.disconnect();
      // Nothing was sent yet: this is a server that does not answer, not a write whose outcome is unknown.
      const why = (socketError ?? (err as Error)).message;
      throw new SwitchboardError(
        'UNAVAILABLE',
        `Redis is not answering at ${safeRedisUrl(opts.url)} (${why}). Start Redis there, or name the one to use: serve --store redis://HOST:PORT, or [store] url in .switchboard/config.toml.`,
        { store: 'unreachable', outcome: 'not_carried_out' },
      );
    } finally {
      client.off('error', onError);
    }
    return new RedisStore(client, opts.url, opts.prefix, opts.now ?? readClock);
  }

  /**
   * Run one Redis operation, turning a failure into UNAVAILABLE that names the server and says whether the request
   * may have been carried out ({@link RedisGuard.io}).
   */
  io<T>(fn: () => Promise<T>): Promise<T> {
    return this.guard.io(fn);
  }

  async ping(): Promise<boolean> {
    if (this.guard.closed) return false;
    try {
      return (await this.client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  /** Delete every key under this store's prefix (tests and `prefix` teardown); SCAN + UNLINK, never KEYS. */
  async dropAll(): Promise<number> {
    let cursor = '0';
    let n = 0;
    do {
      const [next, keys] = await this.io(() =>
        this.client.scan(cursor, 'MATCH', `${escapeGlob(this.prefix)}*`, 'COUNT', 500),
      );
      cursor = next;
      if (keys.length) n += await this.io(() => this.client.unlink(...keys));
    } while (cursor !== '0');
    return n;
  }

  async close(): Promise<void> {
    if (this.guard.closed) return;
    this.guard.closed = true;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}

function escapeGlob(s: string): string {
  return s.replace(/[*?[\]\\]/g, '\\$&');
}
