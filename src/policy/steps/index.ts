// The policy steps of the pipeline — timeout, concurrency, rate limit, result cache, breaker — each a small middleware, with its
// strategy (this instance's state, or on Redis the state every instance shares) chosen here, once. The order they
// run in is listed where the hub assembles the pipeline (`src/hub.ts`, `assemblePipeline`).
import type { Services } from '../../core/context.ts';
import type { Middleware } from '../../core/pipeline.ts';
import type { SharedResultsPart } from '../../store/contract.ts';
import { Breakers, type BreakerView } from '../breaker.ts';
import { LimitsCache } from '../limits.ts';
import { RateLimiter } from '../rate-limit.ts';
import { LocalResults } from '../result-cache.ts';
import type { SharedPolicy } from '../shared-policy.ts';
import { breakerStep, localBreaker, sharedBreaker } from './breaker.ts';
import { cacheStep, localResults, sharedResults } from './cache.ts';
import { Concurrency } from './concurrency.ts';
import { localRate, rateLimitStep, sharedRate } from './rate-limit.ts';
import { SharedAdmissions } from './shared-admission.ts';
import { timeoutStep } from './timeout.ts';

export class PolicySteps {
  /** This instance's buckets and circuits: the only ones on SQLite, the fallback while Redis is away. */
  readonly limiter = new RateLimiter();
  readonly breakers = new Breakers();
  /** This instance's cached results: every one on SQLite, the `perInstance` ones and the fallback on Redis. */
  readonly results = new LocalResults();
  /** The call's time limit (enforced by the pipeline's `execute`). */
  readonly timeout: Middleware;
  /** Calls in flight per principal, on this instance. */
  readonly concurrency: Middleware;
  /** Token bucket per principal × capability. */
  readonly rateLimit: Middleware;
  /** Results of capabilities that declare a cache, per input × roles. */
  readonly cache: Middleware;
  /** Circuit per capability. */
  readonly breaker: Middleware;

  /**
   * With `shared` (a Redis store), limits and breakers are shared by every instance on the prefix; with
   * `sharedResultsPart`, cached results too.
   */
  constructor(
    services: Services,
    readonly shared?: SharedPolicy,
    sharedResultsPart?: SharedResultsPart,
  ) {
    const limits = new LimitsCache(services.config);
    const admissions = shared ? new SharedAdmissions(shared, limits, services.logger) : undefined;
    this.timeout = timeoutStep(limits);
    this.concurrency = new Concurrency(services.config).step;
    this.rateLimit = rateLimitStep(limits, admissions ? sharedRate(admissions, this.limiter) : localRate(this.limiter));
    this.cache = cacheStep(
      limits,
      sharedResultsPart ? sharedResults(sharedResultsPart, this.results, services.logger) : localResults(this.results),
    );
    this.breaker = breakerStep(
      limits,
      admissions ? sharedBreaker(admissions, this.breakers) : localBreaker(this.breakers),
    );
  }

  /** The state of one capability's circuit (shared: as last seen), for its call's span. */
  breakerState(capability: string): string {
    return (this.shared?.view(capability) ?? this.breakers.view(capability)).state;
  }

  /** Every circuit this instance knows: the shared ones as last seen, then local ones (used while Redis was away). */
  breakerViews(): Record<string, BreakerView> {
    return this.shared ? { ...this.breakers.all(), ...this.shared.all() } : this.breakers.all();
  }
}
