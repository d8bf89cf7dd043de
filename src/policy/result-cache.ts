// Results kept for `policy.cache` (ClaudeBench's `@Instrumented(ttl)`): the key that says which calls are the same
// call, and this instance's own store of results. On Redis the results every instance shares are the store's
// (`SharedResultsPart`); the step that uses both is steps/cache.ts.

import type { Principal } from '../core/context.ts';
import { fingerprint } from '../core/creating.ts';

/** Results kept by one instance at most; the oldest go first (a cached result is a saving, never a promise). */
export const LOCAL_RESULTS_MAX = 1000;

/**
 * The key of a call's result: the capability, the parsed input as canonical JSON and the caller's roles (sorted,
 * once each), hashed. Two principals with the same roles share results; different role sets never do.
 *
 * @example
 * resultKey('system.health', {}, { id: 'a', roles: ['ops', 'admin'] }) === resultKey('system.health', {}, { id: 'b', roles: ['admin', 'ops'] })
 */
export function resultKey(capability: string, input: unknown, principal: Principal): string {
  const roles = [...new Set(principal.roles)].sort();
  return fingerprint({ capability, input: input ?? null, roles });
}

/** This instance's results: JSON text by key, each until its expiry on the given clock. */
export class LocalResults {
  private readonly kept = new Map<string, { value: string; expiresAt: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly max = LOCAL_RESULTS_MAX,
  ) {}

  get(key: string): string | undefined {
    const hit = this.kept.get(key);
    if (!hit) return undefined;
    if (hit.expiresAt > this.now()) return hit.value;
    this.kept.delete(key);
    return undefined;
  }

  put(key: string, value: string, ttlMs: number): void {
    this.kept.delete(key); // re-inserted last: the Map's order is the order of age
    this.kept.set(key, { value, expiresAt: this.now() + ttlMs });
    if (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value as string);
  }

  get size(): number {
    return this.kept.size;
  }
}
