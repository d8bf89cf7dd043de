// Rate limits and circuit breakers shared by every instance (the shared store's limits part: one atomic step admits
// a call, token bucket and breaker together, on the store's clock), so 10/min is 10/min in total. This side keeps
// what the policy steps need of it: the admission in their terms, and the circuits as this instance last saw them.
import { SwitchboardError } from '../core/errors.ts';
import type { SharedLimitsPart } from '../store/contract.ts';
import type { BreakerPolicy, BreakerView } from './breaker.ts';
import type { RateLimit } from './rate-limit.ts';

export type SharedAdmission =
  /** `clean`: the circuit was closed with no failures, so a success need not be written back. */
  | { ok: true; probe: boolean; remaining: number; clean: boolean }
  | { ok: false; scope: 'rate' | 'breaker'; retryAfterMs: number };

/**
 * The shared policy state. Calls that find the store away throw UNAVAILABLE; the policy middleware then falls back
 * to this instance's own limiter and breakers (see docs/scale-out.md) so the instance keeps answering what does
 * not need the shared store, `system.health` included.
 *
 * @example
 * const shared = new SharedPolicy(store.shared.limits);
 * const a = await shared.admit('alice', 'task.create', { limit: 10, windowMs: 60_000 }, breakerPolicy);
 */
export class SharedPolicy {
  /** The last state seen of each circuit this instance touched, for health and /metrics (synchronous readers). */
  private readonly seen = new Map<string, BreakerView>();

  constructor(private readonly limits: SharedLimitsPart) {}

  /** Take a token from the shared bucket of (principal, capability) and ask the shared breaker; one round trip. */
  async admit(
    principal: string,
    capability: string,
    rate: RateLimit | undefined,
    breaker: BreakerPolicy,
  ): Promise<SharedAdmission> {
    const verdict = await this.limits.admit(principal, capability, rate, breaker);
    if (verdict.ok) {
      if (verdict.state !== 'closed') this.note(capability, { state: verdict.state });
      const clean = verdict.state === 'closed' && !verdict.failures;
      return { ok: true, probe: verdict.probe, remaining: verdict.remaining, clean };
    }
    if (verdict.scope === 'breaker') this.note(capability, { state: verdict.state });
    return { ok: false, scope: verdict.scope, retryAfterMs: verdict.retryAfterMs };
  }

  /** Record a finished call with the shared breaker (a success on a circuit admitted clean writes nothing). */
  async record(
    capability: string,
    policy: BreakerPolicy,
    failed: boolean,
    admission: { probe: boolean; clean: boolean },
  ): Promise<void> {
    if (!failed && !admission.probe && admission.clean) return;
    this.seen.set(capability, await this.limits.record(capability, policy.threshold, failed, admission.probe));
  }

  async release(capability: string, probe: boolean): Promise<void> {
    if (probe) await this.limits.release(capability);
  }

  private note(capability: string, view: Partial<BreakerView>): void {
    const prev = this.seen.get(capability) ?? { state: 'closed', failures: 0, openedAt: null, opens: 0 };
    this.seen.set(capability, { ...prev, ...view });
  }

  /** One circuit as this instance last saw it, when it has seen it. */
  view(capability: string): BreakerView | undefined {
    return this.seen.get(capability);
  }

  /** Circuits as this instance last saw them (shared state, possibly a moment old). */
  all(): Record<string, BreakerView> {
    const out: Record<string, BreakerView> = {};
    for (const k of [...this.seen.keys()].sort()) out[k] = this.seen.get(k)!;
    return out;
  }
}

/** Whether an error means the shared store could not be asked (the caller falls back to local state). */
export function isUnavailable(err: unknown): boolean {
  return err instanceof SwitchboardError && err.code === 'UNAVAILABLE';
}
