// Rate limits and circuit breakers shared by every instance on one Redis: one Lua script per call admits it
// (token bucket + breaker, on the server's clock) and one records a failure, so 10/min is 10/min in total.
import { SwitchboardError } from '../core/errors.ts';
import type { RedisStore } from '../store/redis/index.ts';
import type { BreakerPolicy, BreakerView } from './breaker.ts';
import type { RateLimit } from './rate-limit.ts';

/**
 * KEYS: bucket (may be unused), breaker. ARGV: limit ('' = none), windowMs, threshold, resetMs, probes.
 * Rate first, then the breaker — the order of the in-memory path. Times come from the Redis server (TIME), so
 * instances with skewed clocks still share one bucket. Answers {verdict, retryAfterMs or remaining, probe, state}.
 */
const LUA_ADMIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local remaining = -1
if ARGV[1] ~= '' then
  local limit = tonumber(ARGV[1])
  local window = tonumber(ARGV[2])
  local rate = limit / window
  local k = KEYS[1]
  local tokens = tonumber(redis.call('HGET', k, 't') or ARGV[1])
  local at = tonumber(redis.call('HGET', k, 'u') or now)
  tokens = math.min(limit, tokens + (now - at) * rate)
  if tokens < 1 then
    redis.call('HSET', k, 't', tostring(tokens), 'u', now)
    redis.call('PEXPIRE', k, window * 2)
    return {'rate', math.max(1, math.ceil((1 - tokens) / rate)), 0, 'closed'}
  end
  tokens = tokens - 1
  redis.call('HSET', k, 't', tostring(tokens), 'u', now)
  redis.call('PEXPIRE', k, window * 2)
  remaining = math.floor(tokens)
end
local b = KEYS[2]
local state = redis.call('HGET', b, 'state') or 'closed'
if state == 'closed' then return {'ok', remaining, 0, state, tonumber(redis.call('HGET', b, 'failures') or '0')} end
local reset = tonumber(ARGV[4])
if state == 'open' then
  local wait = tonumber(redis.call('HGET', b, 'openedAt')) + reset - now
  if wait > 0 then return {'breaker', wait, 0, state} end
  state = 'half-open'
  redis.call('HSET', b, 'state', state, 'probes', 0)
end
if tonumber(redis.call('HGET', b, 'probes') or '0') < tonumber(ARGV[5]) then
  redis.call('HINCRBY', b, 'probes', 1)
  return {'ok', remaining, 1, state, 0}
end
return {'breaker', math.max(1, math.min(reset, 1000)), 0, state}
`;

/** KEYS: breaker, breaker index. ARGV: name, failed (1/0), probe (1/0), threshold. Answers the circuit. */
const LUA_RECORD = `
local b = KEYS[1]
if ARGV[3] == '1' then
  local p = tonumber(redis.call('HGET', b, 'probes') or '0')
  redis.call('HSET', b, 'probes', math.max(0, p - 1))
end
if ARGV[2] == '0' then
  redis.call('HSET', b, 'failures', 0, 'state', 'closed')
else
  local f = redis.call('HINCRBY', b, 'failures', 1)
  local state = redis.call('HGET', b, 'state') or 'closed'
  if state == 'half-open' or (state == 'closed' and f >= tonumber(ARGV[4])) then
    local t = redis.call('TIME')
    redis.call('HSET', b, 'state', 'open', 'openedAt', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
    redis.call('HINCRBY', b, 'opens', 1)
  end
end
redis.call('SADD', KEYS[2], ARGV[1])
return {redis.call('HGET', b, 'state') or 'closed', tonumber(redis.call('HGET', b, 'failures') or '0'),
  tonumber(redis.call('HGET', b, 'openedAt') or '0'), tonumber(redis.call('HGET', b, 'opens') or '0')}
`;

/** KEYS: breaker. Give back a probe slot without judging the circuit. */
const LUA_RELEASE = `
local p = tonumber(redis.call('HGET', KEYS[1], 'probes') or '0')
if p > 0 then redis.call('HSET', KEYS[1], 'probes', p - 1) end
return 1
`;

export type SharedAdmission =
  /** `clean`: the circuit was closed with no failures, so a success need not be written back. */
  | { ok: true; probe: boolean; remaining: number; clean: boolean }
  | { ok: false; scope: 'rate' | 'breaker'; retryAfterMs: number };

interface Commands {
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

/**
 * The shared policy state. Calls that find Redis away throw UNAVAILABLE; the policy middleware then falls back
 * to this instance's own limiter and breakers (see docs/scale-out.md) so the instance keeps answering what does
 * not need Redis, `system.health` included.
 *
 * @example
 * const shared = new SharedPolicy(store);
 * const a = await shared.admit('alice', 'task.create', { limit: 10, windowMs: 60_000 }, breakerPolicy);
 */
export class SharedPolicy {
  private readonly client: RedisStore['client'] & Commands;
  /** The last state seen of each circuit this instance touched, for health and /metrics (synchronous readers). */
  private readonly seen = new Map<string, BreakerView>();

  constructor(private readonly store: RedisStore) {
    const client = store.client as RedisStore['client'] & Commands;
    client.defineCommand('sbPolicyAdmit', { numberOfKeys: 2, lua: LUA_ADMIT });
    client.defineCommand('sbPolicyRecord', { numberOfKeys: 2, lua: LUA_RECORD });
    client.defineCommand('sbPolicyRelease', { numberOfKeys: 1, lua: LUA_RELEASE });
    this.client = client;
  }

  private breakerKey(capability: string): string {
    return `${this.store.prefix}breaker:${capability}`;
  }

  /** Take a token from the shared bucket of (principal, capability) and ask the shared breaker; one round trip. */
  async admit(
    principal: string,
    capability: string,
    rate: RateLimit | undefined,
    breaker: BreakerPolicy,
  ): Promise<SharedAdmission> {
    const [verdict, n, probe, state, failures] = await this.store.io(() =>
      this.client.sbPolicyAdmit(
        `${this.store.prefix}rate:${principal}|${capability}`,
        this.breakerKey(capability),
        rate ? String(rate.limit) : '',
        rate ? String(rate.windowMs) : '0',
        String(breaker.threshold),
        String(breaker.resetMs),
        String(breaker.halfOpenProbes ?? 1),
      ),
    );
    if (verdict === 'ok') {
      if (state !== 'closed') this.note(capability, { state: state as BreakerView['state'] });
      return { ok: true, probe: probe === 1, remaining: n, clean: state === 'closed' && !failures };
    }
    if (verdict === 'breaker') this.note(capability, { state: state as BreakerView['state'] });
    return { ok: false, scope: verdict as 'rate' | 'breaker', retryAfterMs: Math.max(1, Math.ceil(n)) };
  }

  /** Record a finished call with the shared breaker (a success on a circuit admitted clean writes nothing). */
  async record(
    capability: string,
    policy: BreakerPolicy,
    failed: boolean,
    admission: { probe: boolean; clean: boolean },
  ): Promise<void> {
    const probe = admission.probe;
    if (!failed && !probe && admission.clean) return;
    const [state, failures, openedAt, opens] = await this.store.io(() =>
      this.client.sbPolicyRecord(
        this.breakerKey(capability),
        `${this.store.prefix}breakers`,
        capability,
        failed ? '1' : '0',
        probe ? '1' : '0',
        String(policy.threshold),
      ),
    );
    this.seen.set(capability, {
      state: state as BreakerView['state'],
      failures,
      openedAt: openedAt ? new Date(openedAt).toISOString() : null,
      opens,
    });
  }

  async release(capability: string, probe: boolean): Promise<void> {
    if (probe) await this.store.io(() => this.client.sbPolicyRelease(this.breakerKey(capability)));
  }

  private note(capability: string, view: Partial<BreakerView>): void {
    const prev = this.seen.get(capability) ?? { state: 'closed', failures: 0, openedAt: null, opens: 0 };
    this.seen.set(capability, { ...prev, ...view });
  }

  /** Circuits as this instance last saw them (shared state, possibly a moment old). */
  all(): Record<string, BreakerView> {
    const out: Record<string, BreakerView> = {};
    for (const k of [...this.seen.keys()].sort()) out[k] = this.seen.get(k)!;
    return out;
  }
}

/** Whether an error means Redis could not be asked (the caller falls back to local state). */
export function isUnavailable(err: unknown): boolean {
  return err instanceof SwitchboardError && err.code === 'UNAVAILABLE';
}
