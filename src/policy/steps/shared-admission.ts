// With a Redis store, the rate limit and the breaker of a call are asked in one round trip (one Lua script,
// docs/decisions.md "Admit in one round trip"). The first of the two steps to need the answer sends the question;
// the other reads the same answer. `undefined` means Redis is away: both steps then use this instance's own state.
import type { Logger } from 'pino';
import type { CallState } from '../../core/pipeline.ts';
import type { LimitsCache } from '../limits.ts';
import { isUnavailable, type SharedAdmission, type SharedPolicy } from '../shared-policy.ts';

export class SharedAdmissions {
  private readonly asked = new WeakMap<CallState, Promise<SharedAdmission | undefined>>();

  constructor(
    readonly shared: SharedPolicy,
    private readonly limits: LimitsCache,
    readonly logger: Logger,
  ) {}

  of(state: CallState): Promise<SharedAdmission | undefined> {
    let answer = this.asked.get(state);
    if (!answer) {
      answer = this.ask(state);
      this.asked.set(state, answer);
    }
    return answer;
  }

  private async ask(state: CallState): Promise<SharedAdmission | undefined> {
    const { limits } = this.limits.of(state);
    try {
      return await this.shared.admit(
        state.req.principal.id,
        state.entry.capability.name,
        limits.rateLimit,
        limits.breaker,
      );
    } catch (err) {
      // Redis away: this instance's own limits apply until it returns (logged at debug; health says degraded).
      if (!isUnavailable(err)) throw err;
      this.logger.debug({ err: (err as Error).message }, 'shared policy unavailable; local limits apply');
      return undefined;
    }
  }
}
