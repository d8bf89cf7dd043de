// Call deadlines on one timer per duration: each fires once, on time and in order; a cancelled one never fires;
// a short one is not held up by a long one; nothing keeps the process alive once no deadline waits.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines } from '../../src/core/deadlines.ts';

// Fake timers move setTimeout and performance.now (the clock Deadlines reads) together, so "no earlier than its
// duration" is checked exactly, without real waiting.
const advance = (ms: number) => vi.advanceTimersByTimeAsync(ms);
const timeouts = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('Deadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires each deadline once, no earlier than its duration, in the order armed; a cancelled one never', async () => {
    const d = new Deadlines();
    const fired: [string, number][] = [];
    const t0 = performance.now();
    const at = (name: string) => () => fired.push([name, performance.now() - t0]);
    d.arm(40, at('a'));
    const b = d.arm(40, at('b'));
    await advance(5);
    d.arm(40, at('c'));
    b.cancel();
    b.cancel(); // idempotent
    await advance(120);
    expect(fired.map(([name]) => name)).toEqual(['a', 'c']);
    expect(fired[0][1]).toBeGreaterThanOrEqual(40);
    expect(fired[1][1]).toBeGreaterThanOrEqual(45);
  });

  it('keeps durations apart: a short deadline armed after a long one fires first', async () => {
    const d = new Deadlines();
    const fired: string[] = [];
    const long = d.arm(10_000, () => fired.push('long'));
    d.arm(20, () => fired.push('short'));
    await advance(80);
    expect(fired).toEqual(['short']);
    long.cancel();
  });

  it('re-arms: cancelling and arming again moves the deadline (a progress reset)', async () => {
    const d = new Deadlines();
    const t0 = performance.now();
    let firedAt = -1;
    const fire = () => {
      firedAt = performance.now() - t0;
    };
    let deadline = d.arm(50, fire);
    await advance(30);
    deadline.cancel();
    deadline = d.arm(50, fire);
    await advance(35);
    expect(firedAt).toBe(-1);
    await advance(60);
    expect(firedAt).toBeGreaterThanOrEqual(80);
  });

  it('arms new deadlines from a firing callback, and fires those too', async () => {
    const d = new Deadlines();
    const fired: number[] = [];
    d.arm(20, () => {
      fired.push(1);
      d.arm(20, () => fired.push(2));
    });
    await advance(100);
    expect(fired).toEqual([1, 2]);
  });

  it('holds the process open only while a deadline waits', async () => {
    vi.useRealTimers(); // counts Node's real timer handles
    const before = timeouts();
    const d = new Deadlines();
    const first = d.arm(60_000, () => {});
    expect(timeouts()).toBe(before + 1);
    first.cancel();
    expect(timeouts()).toBe(before);
    const second = d.arm(60_000, () => {});
    expect(timeouts()).toBe(before + 1);
    second.cancel();
    expect(timeouts()).toBe(before);
  });
});
