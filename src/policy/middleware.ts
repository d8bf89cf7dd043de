// The policy step of the pipeline: concurrency per principal, rate limits, circuit breakers and per-call
// timeouts — written once here, so stdio, HTTP, REST and the CLI all get the same behaviour.

import type { Config } from '../config/schema.ts';
import type { Principal, Services } from '../core/context.ts';
import type { ErrorCode } from '../core/errors.ts';
import type { CallState, Middleware, Outcome } from '../core/pipeline.ts';
import type { Entry } from '../core/registry.ts';
import { Breakers, type BreakerView } from './breaker.ts';
import { type CallLimits, limitsFor } from './limits.ts';
import { RateLimiter } from './rate-limit.ts';
import { isUnavailable, type SharedAdmission, type SharedPolicy } from './shared-policy.ts';

/** Error codes that mean the capability itself failed to execute; only these trip a circuit breaker. */
const EXECUTION_FAILURES: ReadonlySet<ErrorCode> = new Set(['INTERNAL', 'UPSTREAM', 'TIMEOUT', 'UNAVAILABLE']);

export class PolicyEngine {
  readonly limiter = new RateLimiter();
  readonly breakers = new Breakers();
  private readonly running = new Map<string, number>();
  /**
   * Limits and rate-limit key per principal × capability, under the configuration they were resolved for (a new
   * one after every reload): resolving them and building the key on every call cost more than the checks.
   */
  private resolved = new WeakMap<Principal, WeakMap<Entry, { limits: CallLimits; rateKey: string }>>();
  private resolvedFor: Config | undefined;

  /**
   * With a Redis store, limits and breakers are shared by every instance (`SharedPolicy`); the in-memory limiter and
   * breakers above then serve only while Redis is unreachable. Without one, nothing here is touched.
   */
  constructor(
    private readonly services: Services,
    readonly shared?: SharedPolicy,
  ) {}

  /** Every circuit this instance knows: the shared ones as last seen, then local ones (used while Redis was away). */
  breakerViews(): Record<string, BreakerView> {
    return this.shared ? { ...this.breakers.all(), ...this.shared.all() } : this.breakers.all();
  }

  /** The pipeline middleware. Not async on the local path: a call admitted here costs no promise of its own. */
  readonly middleware: Middleware = (state, next) => {
    const config = this.services.config.get();
    const principal = state.req.principal;
    const { limits, rateKey } = this.resolve(config, principal, state.entry);
    state.timeoutMs = limits.timeoutMs;

    const max = config.policy.max_concurrent_per_principal;
    const now = this.running.get(principal.id) ?? 0;
    if (now >= max) {
      return refuse(
        'RATE_LIMITED',
        `Too many calls in flight for '${principal.id}' (limit ${max}); retry shortly.`,
        100,
        {
          limit: max,
          scope: 'concurrency',
        },
      );
    }
    if (this.shared) return this.admitShared(state, next, limits, rateKey, now);
    return this.admitLocal(state, next, limits, rateKey, now);
  };

  /** With a Redis store: the shared limits and breaker decide; this instance's own ones while Redis is away. */
  private async admitShared(
    state: CallState,
    next: () => Promise<Outcome>,
    limits: CallLimits,
    rateKey: string,
    now: number,
  ): Promise<Outcome> {
    const principal = state.req.principal;
    let shared: SharedAdmission | undefined;
    try {
      shared = await this.shared!.admit(principal.id, state.entry.capability.name, limits.rateLimit, limits.breaker);
    } catch (err) {
      // Redis away: this instance's own limits apply until it returns (logged at debug; health says degraded).
      if (!isUnavailable(err)) throw err;
      this.services.logger.debug({ err: (err as Error).message }, 'shared policy unavailable; local limits apply');
    }
    if (shared && !shared.ok) {
      if (shared.scope === 'rate' && limits.rateLimit)
        return refuse(
          'RATE_LIMITED',
          `Rate limit for ${state.entry.tool.name}: ${limits.rateLimit.limit} calls per ${limits.rateLimit.windowMs} ms (across all instances); retry in ${shared.retryAfterMs} ms.`,
          shared.retryAfterMs,
          { limit: limits.rateLimit.limit, windowMs: limits.rateLimit.windowMs, scope: 'rate' },
        );
      return refuse(
        'UNAVAILABLE',
        `${state.entry.tool.name} is failing and its circuit is open; retry in ${shared.retryAfterMs} ms.`,
        shared.retryAfterMs,
        { breaker: 'open' },
      );
    }
    if (shared?.ok) return this.run(state, next, principal.id, now, limits.breaker, shared);
    return this.admitLocal(state, next, limits, rateKey, now);
  }

  /** This instance's rate limit and breaker; the call runs counted in flight and is judged when it ends. */
  private admitLocal(
    state: CallState,
    next: () => Promise<Outcome>,
    limits: CallLimits,
    rateKey: string,
    now: number,
  ): Promise<Outcome> {
    const principalId = state.req.principal.id;
    if (limits.rateLimit) {
      const taken = this.limiter.take(rateKey, limits.rateLimit);
      if (!taken.ok) {
        return refuse(
          'RATE_LIMITED',
          `Rate limit for ${state.entry.tool.name}: ${limits.rateLimit.limit} calls per ${limits.rateLimit.windowMs} ms; retry in ${taken.retryAfterMs} ms.`,
          taken.retryAfterMs,
          { limit: limits.rateLimit.limit, windowMs: limits.rateLimit.windowMs, scope: 'rate' },
        );
      }
    }
    const admission = this.breakers.admit(state.entry.capability.name, limits.breaker);
    if (!admission.ok) {
      return refuse(
        'UNAVAILABLE',
        `${state.entry.tool.name} is failing and its circuit is open; retry in ${admission.retryAfterMs} ms.`,
        admission.retryAfterMs,
        { breaker: 'open' },
      );
    }
    this.running.set(principalId, now + 1);
    const done = (outcome: Outcome | undefined) => {
      this.leave(principalId);
      this.judge(state, limits.breaker, admission.probe, outcome);
    };
    let running: Promise<Outcome>;
    try {
      running = next();
    } catch (err) {
      done(undefined);
      return Promise.reject(err);
    }
    return running.then(
      (outcome) => {
        done(outcome);
        return outcome;
      },
      (err) => {
        done(undefined);
        throw err;
      },
    );
  }

  /** A call of `principalId` ended: one fewer in flight. */
  private leave(principalId: string): void {
    const left = (this.running.get(principalId) ?? 1) - 1;
    if (left <= 0) this.running.delete(principalId);
    else this.running.set(principalId, left);
  }

  private resolve(config: Config, principal: Principal, entry: Entry): { limits: CallLimits; rateKey: string } {
    if (config !== this.resolvedFor) {
      this.resolved = new WeakMap();
      this.resolvedFor = config;
    }
    let byEntry = this.resolved.get(principal);
    if (!byEntry) {
      byEntry = new WeakMap();
      this.resolved.set(principal, byEntry);
    }
    let r = byEntry.get(entry);
    if (!r) {
      r = {
        limits: limitsFor(config, entry.capability, principal, entry.tool.name),
        rateKey: `${principal.id}|${entry.capability.name}`,
      };
      byEntry.set(entry, r);
    }
    return r;
  }

  /** The shared path after admission: count the call in flight, run it, record it with the shared breaker. */
  private async run(
    state: CallState,
    next: () => Promise<Outcome>,
    principalId: string,
    now: number,
    policy: ReturnType<typeof limitsFor>['breaker'],
    admission: Extract<SharedAdmission, { ok: true }>,
  ): Promise<Outcome> {
    this.running.set(principalId, now + 1);
    let outcome: Outcome | undefined;
    try {
      outcome = await next();
      return outcome;
    } finally {
      this.leave(principalId);
      const name = state.entry.capability.name;
      const verdict = judgement(outcome);
      const done =
        verdict === 'release'
          ? this.shared!.release(name, admission.probe)
          : this.shared!.record(name, policy, verdict === 'failed', admission);
      // The call's answer does not wait for the bookkeeping; a lost write only delays a breaker by one call.
      done.catch((err) => this.services.logger.debug({ err: (err as Error).message }, 'shared breaker write failed'));
    }
  }

  /** Record the call with the breaker: execution failures count; invalid input, refusals and cancels do not. */
  private judge(
    state: CallState,
    policy: ReturnType<typeof limitsFor>['breaker'],
    probe: boolean,
    outcome?: Outcome,
  ): void {
    const name = state.entry.capability.name;
    const verdict = judgement(outcome);
    if (verdict === 'release') {
      this.breakers.release(name, probe);
      return;
    }
    const failed = verdict === 'failed';
    this.breakers.record(name, policy, failed, probe);
  }
}

/**
 * How a finished call counts for its breaker: execution failures count; invalid input, cancels and a call that
 * never finished give the probe back without a verdict.
 */
function judgement(outcome: Outcome | undefined): 'release' | 'failed' | 'succeeded' {
  if (!outcome || (!outcome.ok && (outcome.error.code === 'CANCELLED' || outcome.error.code === 'INVALID_INPUT')))
    return 'release';
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

function refuse(
  code: ErrorCode,
  message: string,
  retryAfterMs: number,
  details: Record<string, unknown>,
): Promise<Outcome> {
  return Promise.resolve({ ok: false, error: { code, message, details: { retryAfterMs, ...details } } });
}
