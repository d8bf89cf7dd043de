// The breaker step: a circuit per capability, asked before the call and told how it went after. Its strategy is
// chosen once: this instance's circuits (`Breakers`), or on Redis the circuits every instance shares, with this
// instance's own while Redis is away.
import type { ErrorCode } from '../../core/errors.ts';
import type { CallState, Middleware, Outcome } from '../../core/pipeline.ts';
import type { Admission, BreakerPolicy, Breakers } from '../breaker.ts';
import type { LimitsCache } from '../limits.ts';
import type { SharedAdmission } from '../shared-policy.ts';
import { isPending, refuse } from './refusal.ts';
import type { SharedAdmissions } from './shared-admission.ts';

/** Error codes that mean the capability itself failed to execute; only these trip a circuit breaker. */
const EXECUTION_FAILURES: ReadonlySet<ErrorCode> = new Set(['INTERNAL', 'UPSTREAM', 'TIMEOUT', 'UNAVAILABLE']);

/** How a finished call counts for its breaker. */
export type Verdict = 'release' | 'failed' | 'succeeded';

type Admitted = Extract<Admission, { ok: true }>;

export interface BreakerStrategy {
  admit(state: CallState, policy: BreakerPolicy): Admission | Promise<Admission>;
  /** Tell the circuit how the admitted call went. Never throws; a lost shared write only delays a breaker. */
  settle(state: CallState, policy: BreakerPolicy, admission: Admitted, verdict: Verdict): void;
}

export function breakerStep(limits: LimitsCache, strategy: BreakerStrategy): Middleware {
  const run = (state: CallState, next: () => Promise<Outcome>, policy: BreakerPolicy, admission: Admission) => {
    if (!admission.ok)
      return refuse(
        'UNAVAILABLE',
        `${state.entry.tool.name} is failing and its circuit is open; retry in ${admission.retryAfterMs} ms.`,
        admission.retryAfterMs,
        { breaker: 'open' },
      );
    let running: Promise<Outcome>;
    try {
      running = next();
    } catch (err) {
      strategy.settle(state, policy, admission, 'release');
      return Promise.reject(err);
    }
    return running.then(
      (outcome) => {
        strategy.settle(state, policy, admission, judgement(outcome));
        return outcome;
      },
      (err) => {
        strategy.settle(state, policy, admission, 'release');
        throw err;
      },
    );
  };
  return (state, next) => {
    const policy = limits.of(state).limits.breaker;
    const admission = strategy.admit(state, policy);
    if (isPending(admission)) return admission.then((a) => run(state, next, policy, a));
    return run(state, next, policy, admission);
  };
}

/**
 * How a finished call counts for its breaker: execution failures count; invalid input, cancels and a call that
 * never finished give the probe back without a verdict.
 */
function judgement(outcome: Outcome): Verdict {
  if (!outcome.ok && (outcome.error.code === 'CANCELLED' || outcome.error.code === 'INVALID_INPUT')) return 'release';
  // An error that carries `details.breaker` is itself an availability refusal (this circuit, or an upstream
  // server that is down and being restarted): the call never ran, so it is not a failure of the capability.
  // Likewise `details.store`: the shared store was unreachable, which says nothing about the capability.
  const failed =
    !outcome.ok &&
    EXECUTION_FAILURES.has(outcome.error.code) &&
    outcome.error.details?.breaker === undefined &&
    outcome.error.details?.store === undefined;
  return failed ? 'failed' : 'succeeded';
}

/** This instance's circuits: synchronous, no I/O. */
export function localBreaker(breakers: Breakers): BreakerStrategy {
  return {
    admit: (state, policy) => breakers.admit(state.entry.capability.name, policy),
    settle: (state, policy, admission, verdict) => {
      const name = state.entry.capability.name;
      if (verdict === 'release') breakers.release(name, admission.probe);
      else breakers.record(name, policy, verdict === 'failed', admission.probe);
    },
  };
}

/** Admitted by the shared circuit (not by this instance's own while Redis was away). */
function isShared(admission: Admitted): admission is Extract<SharedAdmission, { ok: true }> {
  return 'clean' in admission;
}

/** The circuits every instance on the Redis prefix shares; this instance's own while Redis is away. */
export function sharedBreaker(admissions: SharedAdmissions, breakers: Breakers): BreakerStrategy {
  const local = localBreaker(breakers);
  return {
    admit: async (state, policy) => {
      const shared = await admissions.of(state);
      if (!shared) return local.admit(state, policy);
      // A rate refusal was the rate-limit step's to give; only a breaker one reaches here.
      return shared.ok ? shared : { ok: false, retryAfterMs: shared.retryAfterMs };
    },
    settle: (state, policy, admission, verdict) => {
      if (!isShared(admission)) return local.settle(state, policy, admission, verdict);
      const name = state.entry.capability.name;
      const written =
        verdict === 'release'
          ? admissions.shared.release(name, admission.probe)
          : admissions.shared.record(name, policy, verdict === 'failed', admission);
      // The call's answer does not wait for the bookkeeping; a lost write only delays a breaker by one call.
      written.catch((err) => admissions.logger.debug({ err: (err as Error).message }, 'shared breaker write failed'));
    },
  };
}
