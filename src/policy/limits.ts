// Resolving the limits for one call: token overrides win over capability overrides in config, which win
// over what the capability declares, which wins over the defaults in `[policy]`.

import type { Config } from '../config/schema.ts';
import type { Capability } from '../core/capability.ts';
import type { ConfigAccess, Principal } from '../core/context.ts';
import type { CallState } from '../core/pipeline.ts';
import type { Entry } from '../core/registry.ts';
import type { BreakerPolicy } from './breaker.ts';
import type { RateLimit } from './rate-limit.ts';

export interface CallLimits {
  timeoutMs: number;
  rateLimit?: RateLimit;
  breaker: BreakerPolicy;
  /** The result cache, when the capability (or `[policy.capabilities]`) keeps results; absent: every call runs. */
  cache?: { ttlMs: number; perInstance: boolean };
}

/** The limits that apply to `principal` calling `capability` under `config`. */
export function limitsFor(config: Config, capability: Capability, principal: Principal, toolName?: string): CallLimits {
  const p = config.policy;
  // Keyed by capability name (`task.create`); the tool name (`task__create`) is accepted too.
  const byCap = p.capabilities[capability.name] ?? (toolName ? p.capabilities[toolName] : undefined);
  const byToken = principal.kind === 'token' ? p.tokens[principal.id] : undefined;
  const rate = byToken?.rate_limit ?? byCap?.rate_limit;
  const breaker = byCap?.breaker ?? p.breaker;
  const cacheMs = byCap?.cache_ms ?? capability.policy?.cache?.ttlMs ?? 0;
  return {
    ...(cacheMs > 0 ? { cache: { ttlMs: cacheMs, perInstance: capability.policy?.cache?.perInstance === true } } : {}),
    timeoutMs: byToken?.timeout_ms ?? byCap?.timeout_ms ?? capability.policy?.timeoutMs ?? p.timeout_ms,
    rateLimit: rate
      ? { limit: rate.limit, windowMs: rate.window_ms }
      : (capability.policy?.rateLimit ??
        (p.rate_limit ? { limit: p.rate_limit.limit, windowMs: p.rate_limit.window_ms } : undefined)),
    breaker:
      capability.policy?.breaker && !byCap?.breaker
        ? {
            threshold: capability.policy.breaker.threshold,
            resetMs: capability.policy.breaker.resetMs,
            halfOpenProbes: 1,
          }
        : { threshold: breaker.threshold, resetMs: breaker.reset_ms, halfOpenProbes: breaker.half_open_probes },
  };
}

/** The limits of one principal × capability, with the key of its rate-limit bucket. */
export interface ResolvedLimits {
  limits: CallLimits;
  rateKey: string;
}

/**
 * Limits and rate-limit key per principal × capability, under the configuration they were resolved for (a new
 * one after every reload): resolving them and building the key on every call cost more than the checks. Each
 * policy step asks it for the call in hand.
 */
export class LimitsCache {
  private resolved = new WeakMap<Principal, WeakMap<Entry, ResolvedLimits>>();
  private resolvedFor: Config | undefined;

  constructor(private readonly config: ConfigAccess) {}

  of(state: CallState): ResolvedLimits {
    const config = this.config.get();
    if (config !== this.resolvedFor) {
      this.resolved = new WeakMap();
      this.resolvedFor = config;
    }
    const principal = state.req.principal;
    let byEntry = this.resolved.get(principal);
    if (!byEntry) {
      byEntry = new WeakMap();
      this.resolved.set(principal, byEntry);
    }
    const entry = state.entry;
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
}
