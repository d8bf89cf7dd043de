// Circuit breakers, one per key (a capability, or `upstream:NAME`): closed → open after `threshold` consecutive
// execution failures → half-open after `resetMs`, letting a bounded number of probes through.

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerPolicy {
  /** Consecutive execution failures that open the circuit. */
  threshold: number;
  /** How long the circuit stays open before probes are allowed. */
  resetMs: number;
  /** Concurrent probes allowed while half-open (default 1). */
  halfOpenProbes?: number;
}

export type Admission = { ok: true; probe: boolean } | { ok: false; retryAfterMs: number };

export interface BreakerView {
  state: BreakerState;
  failures: number;
  openedAt: string | null;
  opens: number;
}

class Circuit {
  state: BreakerState = 'closed';
  failures = 0;
  openedAt = 0;
  probes = 0;
  opens = 0;
}

/**
 * Tracks one circuit per key. `admit()` before a call; `record()` after it with whether the *execution*
 * failed (validation failures, rate limits and cancellations must not be recorded as failures).
 *
 * @example
 * const b = new Breakers();
 * const a = b.admit('demo.flaky', { threshold: 5, resetMs: 30_000 });
 * if (a.ok) b.record('demo.flaky', policy, callFailed, a.probe);
 */
export class Breakers {
  private readonly circuits = new Map<string, Circuit>();

  constructor(private readonly now: () => number = Date.now) {}

  private get(key: string): Circuit {
    let c = this.circuits.get(key);
    if (!c) {
      c = new Circuit();
      this.circuits.set(key, c);
    }
    return c;
  }

  admit(key: string, policy: BreakerPolicy): Admission {
    const c = this.get(key);
    if (c.state === 'closed') return { ok: true, probe: false };
    const t = this.now();
    if (c.state === 'open') {
      const wait = c.openedAt + policy.resetMs - t;
      if (wait > 0) return { ok: false, retryAfterMs: wait };
      c.state = 'half-open';
      c.probes = 0;
    }
    if (c.probes < (policy.halfOpenProbes ?? 1)) {
      c.probes++;
      return { ok: true, probe: true };
    }
    return { ok: false, retryAfterMs: Math.max(1, Math.min(policy.resetMs, 1000)) };
  }

  record(key: string, policy: BreakerPolicy, failed: boolean, probe: boolean): void {
    const c = this.get(key);
    if (probe) c.probes = Math.max(0, c.probes - 1);
    if (!failed) {
      c.failures = 0;
      if (c.state !== 'closed') c.state = 'closed';
      return;
    }
    c.failures++;
    if (c.state === 'half-open' || (c.state === 'closed' && c.failures >= policy.threshold)) {
      c.state = 'open';
      c.openedAt = this.now();
      c.opens++;
    }
  }

  /** Release a probe slot without judging the circuit (the call was cancelled or refused before running). */
  release(key: string, probe: boolean): void {
    if (!probe) return;
    const c = this.get(key);
    c.probes = Math.max(0, c.probes - 1);
  }

  view(key: string): BreakerView {
    const c = this.circuits.get(key);
    if (!c) return { state: 'closed', failures: 0, openedAt: null, opens: 0 };
    return {
      state: c.state,
      failures: c.failures,
      openedAt: c.openedAt ? new Date(c.openedAt).toISOString() : null,
      opens: c.opens,
    };
  }

  all(): Record<string, BreakerView> {
    const out: Record<string, BreakerView> = {};
    for (const k of [...this.circuits.keys()].sort()) out[k] = this.view(k);
    return out;
  }
}
