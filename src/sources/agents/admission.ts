import type { Services } from '../../core/context.ts';
import { SwitchboardError } from '../../core/errors.ts';
import { sessionBusy } from '../../store/contract.ts';
import type { SessionStore } from './session-store.ts';
import type { TurnResult } from './session-types.ts';

/** A turn running in this process: how to stop it, and its result once it has recorded its end. */
export interface Run {
  controller: AbortController;
  done: Promise<TurnResult>;
}

export class TurnAdmission {
  private readonly running = new Map<string, Run>();
  /** Turns admitted here whose lock is being taken: they count toward max_running before they run. */
  private readonly admitted = new Set<string>();
  private stopped = false;

  /** `owner` is the turn lock's holder for turns run here: this hub's instance id, the one its lease uses. */
  constructor(
    private readonly services: Services,
    private readonly sessions: SessionStore,
    readonly owner: string,
  ) {}

  /** The turn of `name` running in this process, if one does. */
  run(name: string): Run | undefined {
    return this.running.get(name);
  }

  isRunning(name: string): boolean {
    return this.running.has(name);
  }

  /** How many turns run in this process now. */
  get runningCount(): number {
    return this.running.size;
  }

  /**
   * How long a turn lock lives without renewal: the instance lease (`[system] instance_ttl_ms`), so a turn of an
   * instance that died is freed as soon as the instance itself counts as gone. Renewed at a third of it while the
   * turn runs; files ignore it (a lock file lives as long as its process).
   */
  lockTtlMs(): number {
    return this.services.config.get().system?.instance_ttl_ms ?? 30_000;
  }

  /**
   * Admit a turn in this process and take the session's lock; the admission holds its place among `max_running`
   * while the lock (and a new session's create) are awaited, until `started` counts it as running.
   */
  async admit(name: string, prepare: () => Promise<void>): Promise<void> {
    if (this.stopped) throw new SwitchboardError('UNAVAILABLE', 'Switchboard is stopping; no new turns start.');
    if (this.running.has(name) || this.admitted.has(name)) throw sessionBusy(name);
    const max = this.services.config.get().agents.max_running;
    const busyHere = this.running.size + this.admitted.size;
    if (busyHere >= max)
      throw new SwitchboardError(
        'RATE_LIMITED',
        `${busyHere} turns are running, the most this process runs at once ([agents] max_running = ${max}). Retry when one finishes.`,
        { retryAfterMs: 5000 },
      );
    this.admitted.add(name);
    try {
      await this.sessions.lock(name, this.owner, this.lockTtlMs());
      await prepare().catch(async (err) => {
        await this.unlock(name);
        throw err;
      });
    } catch (err) {
      this.admitted.delete(name);
      throw err;
    }
  }

  /** An admitted turn runs now. */
  started(name: string, run: Run): void {
    this.running.set(name, run);
    this.admitted.delete(name);
  }

  /** A turn has recorded its end. */
  ended(name: string): void {
    this.running.delete(name);
  }

  /**
   * Renew the session's lock while its turn runs; a renewal that finds the lock taken over (this instance was gone
   * longer than a lease, and another resumed the session) stops the turn, and its fenced writes change nothing any
   * more. Returns what stops the renewals.
   */
  renewWhileRunning(name: string, controller: AbortController): () => void {
    const ttl = this.lockTtlMs();
    const renewal = setInterval(
      () => {
        this.sessions.renew(name, this.owner, ttl).then(
          (held) => {
            if (!held)
              controller.abort(
                new SwitchboardError(
                  'UNAVAILABLE',
                  `Session '${name}' was taken over by another turn: this instance lost its turn lock (its lease ran out).`,
                ),
              );
          },
          (err) => this.services.logger.warn({ err, session: name }, 'could not renew a turn lock'),
        );
      },
      Math.max(50, Math.floor(ttl / 3)),
    );
    renewal.unref();
    return () => clearInterval(renewal);
  }

  /** Let go of this hub's lock on a session; a store that is away only delays it (the lease runs out). */
  async unlock(name: string): Promise<void> {
    await this.sessions
      .unlock(name, this.owner)
      .catch((err) => this.services.logger.warn({ err, session: name }, 'could not release a turn lock'));
  }

  /** Admit no more turns, abort every running one (the hub is stopping) and wait for them to record it. */
  async stop(): Promise<void> {
    this.stopped = true;
    const runs = [...this.running.values()];
    for (const r of runs)
      r.controller.abort(new SwitchboardError('UNAVAILABLE', 'Switchboard stopped during the turn.'));
    await Promise.all(runs.map((r) => r.done.catch(() => {})));
  }
}
