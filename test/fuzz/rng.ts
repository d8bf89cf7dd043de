// A small seeded PRNG for the fuzz tests: the same seed replays the same messages in the same order.
// mulberry32 — 32 bits of state, good enough spread for test input, and trivially reproducible.

/** The seed of this run: `FUZZ_SEED` when set (to replay a failure), otherwise fresh. */
export function fuzzSeed(): number {
  const fromEnv = process.env.FUZZ_SEED;
  if (fromEnv !== undefined && fromEnv !== '') {
    const n = Number(fromEnv);
    if (!Number.isInteger(n)) throw new Error(`FUZZ_SEED must be an integer, got '${fromEnv}'`);
    return n >>> 0;
  }
  return (Date.now() ^ (process.pid << 16)) >>> 0;
}

/**
 * Deterministic random choices from a 32-bit seed.
 *
 * @example
 * const rng = new Rng(42);
 * rng.int(10); // always the same first value for seed 42
 */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [min, max]. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** One of the values, chosen with the given relative weights. */
  weighted<T>(entries: readonly (readonly [number, T])[]): T {
    const total = entries.reduce((sum, [w]) => sum + w, 0);
    let r = this.next() * total;
    for (const [w, value] of entries) {
      r -= w;
      if (r < 0) return value;
    }
    return entries[entries.length - 1][1];
  }

  /** A child generator whose sequence depends only on this one's next value (for independent streams). */
  fork(): Rng {
    return new Rng(this.int(4_294_967_296));
  }
}
