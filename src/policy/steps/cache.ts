// The result-cache step: a capability that declares `policy.cache` (or `[policy.capabilities."x"] cache_ms`) answers
// an identical call — same parsed input, same roles — from the results kept within the time given, without running
// again. Only successful results that are plain JSON are kept; errors never are. It sits after the rate limit (a hit
// is still a call the caller made) and before the breaker (a hit neither runs the capability nor tells its circuit
// anything, and an open circuit does not hide a recent good answer). Its strategy is chosen once: this instance's
// results, or on Redis the results every instance shares, with this instance's own while Redis is away.
import type { Logger } from 'pino';
import { type Middleware, type Outcome, validateInput } from '../../core/pipeline.ts';
import type { SharedResultsPart } from '../../store/contract.ts';
import type { LimitsCache } from '../limits.ts';
import { type LocalResults, resultKey } from '../result-cache.ts';

export interface ResultStrategy {
  get(key: string, perInstance: boolean): string | undefined | Promise<string | undefined>;
  /** Keep a result; never throws (a lost write only costs the next call a run). */
  put(key: string, value: string, ttlMs: number, perInstance: boolean): void;
}

export function cacheStep(limits: LimitsCache, strategy: ResultStrategy): Middleware {
  return async (state, next) => {
    const cache = limits.of(state).limits.cache;
    if (!cache) return next();
    // The key is the parsed input (defaults applied, unknown keys gone), so it is parsed here, once.
    state.input = validateInput(state.entry, state.req.input);
    const key = resultKey(state.entry.capability.name, state.input, state.req.principal);
    const kept = await strategy.get(key, cache.perInstance);
    if (kept !== undefined) {
      state.cache = 'hit';
      return { ok: true, value: JSON.parse(kept) };
    }
    state.cache = 'miss';
    const outcome: Outcome = await next();
    // A raw result (content blocks, an MCP result) is the transport's to send as it is; only plain values are kept.
    if (outcome.ok && !outcome.raw && outcome.value !== undefined)
      strategy.put(key, JSON.stringify(outcome.value), cache.ttlMs, cache.perInstance);
    return outcome;
  };
}

/** This instance's results only (an embedded store). */
export function localResults(local: LocalResults): ResultStrategy {
  return {
    get: (key) => local.get(key),
    put: (key, value, ttlMs) => local.put(key, value, ttlMs),
  };
}

/** The results every instance on the Redis prefix shares; this instance's own for `perInstance` and while Redis is away. */
export function sharedResults(shared: SharedResultsPart, local: LocalResults, logger: Logger): ResultStrategy {
  return {
    get: async (key, perInstance) => {
      if (perInstance) return local.get(key);
      try {
        return (await shared.get(key)) ?? undefined;
      } catch (err) {
        logger.debug({ err: (err as Error).message }, 'shared result cache unavailable; local results apply');
        return local.get(key);
      }
    },
    put: (key, value, ttlMs, perInstance) => {
      if (perInstance) return local.put(key, value, ttlMs);
      shared.put(key, value, ttlMs).catch((err) => {
        logger.debug({ err: (err as Error).message }, 'shared result cache write failed; kept on this instance');
        local.put(key, value, ttlMs);
      });
    },
  };
}
