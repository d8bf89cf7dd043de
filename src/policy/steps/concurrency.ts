// The concurrency step: at most `[policy] max_concurrent_per_principal` calls of one principal in flight on this
// instance. Always local, on Redis too: it bounds this process's work, not a quota (docs/decisions.md).
import type { ConfigAccess } from '../../core/context.ts';
import type { Middleware, Outcome } from '../../core/pipeline.ts';
import { refuse } from './refusal.ts';

export class Concurrency {
  private readonly running = new Map<string, number>();

  constructor(private readonly config: ConfigAccess) {}

  /** Not async: a call admitted here costs no promise of its own, only the one that counts it out. */
  readonly step: Middleware = (state, next) => {
    const max = this.config.get().policy.max_concurrent_per_principal;
    const principalId = state.req.principal.id;
    const now = this.running.get(principalId) ?? 0;
    if (now >= max)
      return refuse(
        'RATE_LIMITED',
        `Too many calls in flight for '${principalId}' (limit ${max}); retry shortly.`,
        100,
        {
          limit: max,
          scope: 'concurrency',
        },
      );
    this.running.set(principalId, now + 1);
    let running: Promise<Outcome>;
    try {
      running = next();
    } catch (err) {
      this.leave(principalId);
      return Promise.reject(err);
    }
    return running.then(
      (outcome) => {
        this.leave(principalId);
        return outcome;
      },
      (err) => {
        this.leave(principalId);
        throw err;
      },
    );
  };

  /** A call of `principalId` ended: one fewer in flight. */
  private leave(principalId: string): void {
    const left = (this.running.get(principalId) ?? 1) - 1;
    if (left <= 0) this.running.delete(principalId);
    else this.running.set(principalId, left);
  }
}
