// The policy step of the pipeline: concurrency per principal, rate limits, circuit breakers and per-call
// timeouts — written once here, so stdio, HTTP, REST and the CLI all get the same behaviour.

import type { Config } from '../config/schema.ts';
import type { Services } from '../core/context.ts';
import type { ErrorCode } from '../core/errors.ts';
import type { CallState, Middleware, Outcome } from '../core/pipeline.ts';
import { Breakers } from './breaker.ts';
import { limitsFor } from './limits.ts';
import { RateLimiter } from './rate-limit.ts';

/** Error codes that mean the capability itself failed to execute; only these trip a circuit breaker. */
const EXECUTION_FAILURES: ReadonlySet<ErrorCode> = new Set(['INTERNAL', 'TIMEOUT', 'UNAVAILABLE']);

export class PolicyEngine {
  readonly limiter = new RateLimiter();
  readonly breakers = new Breakers();
  private readonly running = new Map<string, number>();

  constructor(private readonly services: Services) {}

  /** The pipeline middleware. */
  readonly middleware: Middleware = async (state, next) => {
    const config = this.services.config.get() as Config;
    const { capability } = state.entry;
    const principal = state.req.principal;
    const limits = limitsFor(config, capability, principal, state.entry.tool.name);
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
    if (limits.rateLimit) {
      const taken = this.limiter.take(`${principal.id}|${capability.name}`, limits.rateLimit);
      if (!taken.ok) {
        return refuse(
          'RATE_LIMITED',
          `Rate limit for ${state.entry.tool.name}: ${limits.rateLimit.limit} calls per ${limits.rateLimit.windowMs} ms; retry in ${taken.retryAfterMs} ms.`,
          taken.retryAfterMs,
          { limit: limits.rateLimit.limit, windowMs: limits.rateLimit.windowMs, scope: 'rate' },
        );
      }
    }
    const admission = this.breakers.admit(capability.name, limits.breaker);
    if (!admission.ok) {
      return refuse(
        'UNAVAILABLE',
        `${state.entry.tool.name} is failing and its circuit is open; retry in ${admission.retryAfterMs} ms.`,
        admission.retryAfterMs,
        { breaker: 'open' },
      );
    }
    this.running.set(principal.id, now + 1);
    let outcome: Outcome | undefined;
    try {
      outcome = await next();
      return outcome;
    } finally {
      const left = (this.running.get(principal.id) ?? 1) - 1;
      if (left <= 0) this.running.delete(principal.id);
      else this.running.set(principal.id, left);
      this.judge(state, limits.breaker, admission.probe, outcome);
    }
  };

  /** Record the call with the breaker: execution failures count; invalid input, refusals and cancels do not. */
  private judge(
    state: CallState,
    policy: ReturnType<typeof limitsFor>['breaker'],
    probe: boolean,
    outcome?: Outcome,
  ): void {
    const name = state.entry.capability.name;
    if (!outcome || (!outcome.ok && (outcome.error.code === 'CANCELLED' || outcome.error.code === 'INVALID_INPUT'))) {
      this.breakers.release(name, probe);
      return;
    }
    const failed =
      !outcome.ok && EXECUTION_FAILURES.has(outcome.error.code) && outcome.error.details?.breaker !== 'open';
    this.breakers.record(name, policy, failed, probe);
  }
}

function refuse(
  code: ErrorCode,
  message: string,
  retryAfterMs: number,
  details: Record<string, unknown>,
): Promise<Outcome> {
  return Promise.resolve({ ok: false, error: { code, message, details: { retryAfterMs, ...details } } });
}
