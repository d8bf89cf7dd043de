// Rate limits and circuit breakers shared by every instance on one Redis: one Lua script per call admits it (token
// bucket + breaker, on the server's clock) and one records a failure, so 10/min is 10/min in total.
import type { Redis } from 'ioredis';
import type { CircuitState, CircuitView, LimitVerdict, SharedLimitsPart } from '../contract.ts';
import type { Io, ScriptDef } from './scripts.ts';

export interface LimitScripts {
  sbPolicyAdmit(bucket: string, breaker: string, ...args: string[]): Promise<[string, number, number, string, number?]>;
  sbPolicyRecord(
    breaker: string,
    index: string,
    name: string,
    failed: string,
    probe: string,
    threshold: string,
  ): Promise<[string, number, number, number]>;
  sbPolicyRelease(breaker: string): Promise<number>;
}

export const LIMIT_SCRIPTS: ScriptDef<keyof LimitScripts>[] = [
  /**
   * KEYS: bucket (may be unused), breaker. ARGV: limit ('' = none), windowMs, threshold, resetMs, probes. Rate first,
   * then the breaker — the order of the in-memory path. Times come from the Redis server (TIME), so instances with
   * skewed clocks still share one bucket. Answers {verdict, retryAfterMs or remaining, probe, state, failures}.
   */
  ['sbPolicyAdmit', 2, ['limit-admit.lua']],
  /** KEYS: breaker, breaker index. ARGV: name, failed (1/0), probe (1/0), threshold. Answers the circuit. */
  ['sbPolicyRecord', 2, ['limit-record.lua']],
  /** KEYS: breaker. Give back a probe slot without judging the circuit. */
  ['sbPolicyRelease', 1, ['limit-release.lua']],
];

export class RedisLimits implements SharedLimitsPart {
  constructor(
    private readonly r: Redis & LimitScripts,
    private readonly P: string,
    private readonly io: Io,
  ) {}

  private breakerKey(capability: string): string {
    return `${this.P}breaker:${capability}`;
  }

  async admit(
    principal: string,
    capability: string,
    rate: { limit: number; windowMs: number } | undefined,
    breaker: { threshold: number; resetMs: number; halfOpenProbes?: number },
  ): Promise<LimitVerdict> {
    const [verdict, n, probe, state, failures] = await this.io(() =>
      this.r.sbPolicyAdmit(
        `${this.P}rate:${principal}|${capability}`,
        this.breakerKey(capability),
        rate ? String(rate.limit) : '',
        rate ? String(rate.windowMs) : '0',
        String(breaker.threshold),
        String(breaker.resetMs),
        String(breaker.halfOpenProbes ?? 1),
      ),
    );
    const circuit = state as CircuitState;
    if (verdict === 'ok')
      return { ok: true, remaining: n, probe: probe === 1, state: circuit, failures: failures ?? 0 };
    return { ok: false, scope: verdict as 'rate' | 'breaker', retryAfterMs: Math.max(1, Math.ceil(n)), state: circuit };
  }

  async record(capability: string, threshold: number, failed: boolean, probe: boolean): Promise<CircuitView> {
    const [state, failures, openedAt, opens] = await this.io(() =>
      this.r.sbPolicyRecord(
        this.breakerKey(capability),
        `${this.P}breakers`,
        capability,
        failed ? '1' : '0',
        probe ? '1' : '0',
        String(threshold),
      ),
    );
    return {
      state: state as CircuitState,
      failures,
      openedAt: openedAt ? new Date(openedAt).toISOString() : null,
      opens,
    };
  }

  async release(capability: string): Promise<void> {
    await this.io(() => this.r.sbPolicyRelease(this.breakerKey(capability)));
  }
}
