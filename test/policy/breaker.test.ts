// Circuit breakers: closed → open after threshold failures → half-open after resetMs with bounded probes.
import { describe, expect, it } from 'vitest';
import { Breakers } from '../../src/policy/breaker.ts';

const policy = { threshold: 3, resetMs: 1000 };

describe('Breakers', () => {
  it('opens after `threshold` consecutive failures and refuses with the time left', () => {
    let now = 0;
    const b = new Breakers(() => now);
    for (let i = 0; i < 3; i++) {
      const a = b.admit('x', policy);
      expect(a.ok).toBe(true);
      b.record('x', policy, true, false);
    }
    expect(b.view('x')).toMatchObject({ state: 'open', opens: 1 });
    now = 400;
    expect(b.admit('x', policy)).toEqual({ ok: false, retryAfterMs: 600 });
  });

  it('a success in between resets the count', () => {
    const b = new Breakers(() => 0);
    b.record('x', policy, true, false);
    b.record('x', policy, true, false);
    b.record('x', policy, false, false);
    b.record('x', policy, true, false);
    expect(b.view('x').state).toBe('closed');
  });

  it('half-opens after resetMs with one probe; success closes, failure re-opens', () => {
    let now = 0;
    const b = new Breakers(() => now);
    for (let i = 0; i < 3; i++) b.record('x', policy, true, false);
    now = 1000;
    const probe = b.admit('x', policy);
    expect(probe).toEqual({ ok: true, probe: true });
    expect(b.admit('x', policy).ok).toBe(false);
    b.record('x', policy, true, true);
    expect(b.view('x')).toMatchObject({ state: 'open', opens: 2 });
    now = 2000;
    const again = b.admit('x', policy);
    expect(again.ok).toBe(true);
    b.record('x', policy, false, true);
    expect(b.view('x')).toMatchObject({ state: 'closed', failures: 0 });
  });

  it('releases a probe slot for a call that never ran', () => {
    let now = 0;
    const b = new Breakers(() => now);
    for (let i = 0; i < 3; i++) b.record('x', policy, true, false);
    now = 1000;
    const probe = b.admit('x', policy);
    expect(probe.ok).toBe(true);
    b.release('x', true);
    expect(b.admit('x', policy).ok).toBe(true);
  });
});
