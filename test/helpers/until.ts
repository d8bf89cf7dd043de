// Waiting on an observable condition instead of a fixed sleep: a poll returns as soon as the condition holds, so a
// test is fast on an idle machine and still passes on a loaded one (up to the timeout, which only bounds a failure).

export interface UntilOptions {
  /** Give up after this long; it bounds a failing test, never slows a passing one. */
  timeoutMs?: number;
  /** Time between two checks. */
  everyMs?: number;
  /** Says what was awaited, for the timeout error (a function is read only when it fails). */
  what?: string | (() => string);
}

/** What a truthy check returns: `ok && value` yields the value. */
export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Resolve with the first truthy value of `check`, polling until `timeoutMs` has passed.
 *
 * @example
 * const row = await until(() => store.find(id), { what: 'the audit row' });
 */
export async function until<T>(check: () => T | Promise<T>, opts: UntilOptions = {}): Promise<Truthy<T>> {
  const { timeoutMs = 10_000, everyMs = 20, what = 'the condition' } = opts;
  const end = performance.now() + timeoutMs; // not Date: a test may fake Date and still poll
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (performance.now() > end) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
