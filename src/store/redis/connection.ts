// The Redis connection and what its failures mean: how a client is made (fail fast, never queue, reconnect by
// itself), and how every operation's failure becomes UNAVAILABLE saying whether the request was carried out —
// `not_carried_out` (never sent, or refused) or `unknown` (sent, no answer) — so a caller knows what a retry risks.
import { type ChainableCommander, Redis } from 'ioredis';
import { type Deadline, deadlines } from '../../core/deadlines.ts';
import { SwitchboardError } from '../../core/errors.ts';

/** How long a command may wait for Redis before the call fails with UNAVAILABLE (fail fast, never hang). */
export const REDIS_COMMAND_TIMEOUT_MS = 2_000;

/** ioredis's error for a command that got no answer within {@link REDIS_COMMAND_TIMEOUT_MS}. */
const COMMAND_TIMED_OUT = 'Command timed out';

/** How often a Redis that stopped answering is asked again (at most). */
const STALL_PROBE_MS = 250;

/** Hide a password in a URL before it reaches a message or a log. */
export function safeRedisUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

/** A new connection with the store's fail-fast settings (the store's own, and subscribers' and blocking reads'). */
export function newRedisClient(url: string, opts: { lazy?: boolean; autoPipelining?: boolean } = {}): Redis {
  const client = new Redis(url, {
    lazyConnect: opts.lazy ?? true,
    // Commands issued in one event-loop turn go out in one socket write: under concurrent calls a socket write per
    // command was the largest single item of an instance's CPU profile (A/B: 113 → 106 µs per call, median of 3).
    enableAutoPipelining: opts.autoPipelining ?? false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // Reconnect forever, at most every second: the instance recovers on its own when Redis returns.
    retryStrategy: (times) => Math.min(50 * times, 1_000),
  });
  // Errors surface per command; the connection's own error events would otherwise be unhandled.
  client.on('error', () => {});
  return client;
}

/**
 * Runs the store's operations on one connection. Commands never queue while Redis is away: they fail at once (or
 * after {@link REDIS_COMMAND_TIMEOUT_MS} when Redis stops answering) with UNAVAILABLE.
 */
export class RedisGuard {
  closed = false;
  /** Set while Redis is known to have stopped answering (see {@link RedisGuard.io}); ends when it answers again. */
  private stalled: Promise<void> | undefined;

  constructor(
    private readonly client: Redis,
    private readonly url: string,
  ) {}

  /**
   * Run one Redis operation, turning a failure into UNAVAILABLE that names the server and says honestly whether the
   * request may have been carried out. A request is not sent at all while the connection is down or while Redis is
   * known to have stopped answering (a command timed out and no answer came since): it then fails at once, certainly
   * not carried out, and a call that makes several round trips waits for at most one command timeout, counted from
   * when the operation began.
   */
  async io<T>(fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new SwitchboardError('UNAVAILABLE', `The Redis store ${safeRedisUrl(this.url)} is closed.`);
    if (this.client.status !== 'ready') throw unavailable(this.url, new NotSent(`connection ${this.client.status}`));
    if (this.stalled) throw unavailable(this.url, new NotSent('it stopped answering'));
    let deadline: Deadline | undefined;
    try {
      const work = fn();
      // The command timeout counts from here, not from when ioredis writes the command: an auto-pipelined command
      // waits for the batch before it to be answered, so a stall would otherwise hold it for two timeouts.
      return await new Promise<T>((resolve, reject) => {
        deadline = deadlines.arm(REDIS_COMMAND_TIMEOUT_MS, () => reject(new Error(COMMAND_TIMED_OUT)));
        work.then(resolve, reject);
      });
    } catch (err) {
      if (err instanceof SwitchboardError) throw err;
      if (err instanceof Error && err.message === COMMAND_TIMED_OUT) this.watchStall();
      throw unavailable(this.url, err);
    } finally {
      deadline?.cancel();
    }
  }

  /**
   * Redis stopped answering: hold back further commands until it answers a PING again (a stopped server answers
   * everything it was sent when it resumes, so every command held back is one that certainly did not happen).
   */
  private watchStall(): void {
    if (this.stalled) return;
    this.stalled = (async () => {
      while (!this.closed) {
        const asked = Date.now();
        const answered = await this.client.ping().catch(() => undefined);
        if (answered !== undefined) break;
        // A ping refused at once (the connection is down) is asked again after a pause, not in a busy loop.
        const rest = STALL_PROBE_MS - (Date.now() - asked);
        if (rest > 0) await new Promise((r) => setTimeout(r, rest).unref());
      }
      this.stalled = undefined;
    })();
  }
}

/**
 * The replies of a pipeline or transaction, or the first command's error thrown: ioredis resolves `exec()` with an
 * error per command (a timeout among them), which must fail inside {@link RedisGuard.io} like a single command's.
 *
 * @example
 * const rows = await io(() => replies(client.pipeline().hgetall('a').hgetall('b')));
 */
export async function replies(batch: ChainableCommander): Promise<unknown[]> {
  const rows = (await batch.exec()) ?? [];
  return rows.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

/** ioredis's error for a command it did not send because the connection was not writable. */
const NOT_SENT = /enableOfflineQueue options is false/;

/** Why the store did not send a request at all. */
class NotSent extends Error {}

/**
 * The error every Redis failure becomes, with `details.outcome` saying what a retry risks: `not_carried_out` when
 * the request certainly did not reach Redis (it was never sent, or Redis refused it), `unknown` when it was sent and
 * no answer came (a timeout, a connection lost mid-way): Redis may have run it, or may still run it when it resumes.
 */
export function unavailable(url: string, err: unknown): SwitchboardError {
  const why = err instanceof Error ? err.message : String(err);
  const where = `Redis at ${safeRedisUrl(url)}`;
  // A reply error is Redis answering "no" (out of memory under noeviction, a read-only replica), not silence.
  if (err instanceof Error && err.name === 'ReplyError')
    return new SwitchboardError(
      'UNAVAILABLE',
      `${where} refused the request (${why}); it was not carried out. Check the Redis server (memory, role).`,
      { store: 'refused', outcome: 'not_carried_out' },
    );
  if (err instanceof NotSent || NOT_SENT.test(why))
    return new SwitchboardError(
      'UNAVAILABLE',
      `${where} is unreachable (${why}); the request was not carried out. Retry when Redis is back.`,
      { store: 'unreachable', outcome: 'not_carried_out' },
    );
  return new SwitchboardError(
    'UNAVAILABLE',
    `${where} is unreachable (${why}) after the request was sent, so it may or may not have been carried out (Redis may still run it when it resumes). Check the outcome before repeating a write.`,
    { store: 'unreachable', outcome: 'unknown' },
  );
}
