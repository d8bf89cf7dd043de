// Cancellation for one call without paying for an AbortController up front: most handlers never look at their
// signal, and an EventTarget per call is a measurable share of the hot path. The real signal is made on first use.

/**
 * What code that waits on a call needs of its cancellation: whether and why it was aborted, a callback, and a real
 * AbortSignal for APIs that take one. A {@link Cancellation} is one (its signal made only when read); an AbortSignal
 * becomes one through {@link watchSignal}.
 */
export interface CancelWatch {
  readonly aborted: boolean;
  readonly reason: unknown;
  readonly signal: AbortSignal;
  /** Call `fn` once on abort (at once if already aborted); returns a function that removes it. */
  onAbort(fn: (reason: unknown) => void): () => void;
}

/** An AbortSignal as a {@link CancelWatch}. */
export function watchSignal(signal: AbortSignal): CancelWatch {
  return {
    get aborted() {
      return signal.aborted;
    },
    get reason() {
      return signal.reason;
    },
    signal,
    onAbort(fn) {
      if (signal.aborted) {
        fn(signal.reason);
        return () => {};
      }
      const on = () => fn(signal.reason);
      signal.addEventListener('abort', on, { once: true });
      return () => signal.removeEventListener('abort', on);
    },
  };
}

/**
 * Aborted by the pipeline on timeout and by a transport on cancel. `signal` is a real AbortSignal, created
 * lazily, so it can be handed to fetch, child processes and anything else that takes one.
 *
 * @example
 * const c = new Cancellation();
 * setTimeout(() => c.abort(new Error('too slow')), 1000);
 * await fetch(url, { signal: c.signal });
 */
export class Cancellation implements CancelWatch {
  aborted = false;
  reason: unknown;
  private controller?: AbortController;
  private listeners?: ((reason: unknown) => void)[];

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown = new DOMException('The operation was aborted.', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners) for (const l of listeners) l(reason);
  }

  /** Call `fn` once on abort (at once if already aborted); returns a function that removes it. */
  onAbort(fn: (reason: unknown) => void): () => void {
    if (this.aborted) {
      fn(this.reason);
      return () => {};
    }
    this.listeners ??= [];
    this.listeners.push(fn);
    return () => {
      const i = this.listeners?.indexOf(fn) ?? -1;
      if (i !== -1) this.listeners?.splice(i, 1);
    };
  }

  /** Follow an external signal (an SDK request's, an HTTP client's) until `detach` is called. */
  follow(signal: AbortSignal): () => void {
    if (signal.aborted) {
      this.abort(signal.reason);
      return () => {};
    }
    const on = () => this.abort(signal.reason);
    signal.addEventListener('abort', on, { once: true });
    return () => signal.removeEventListener('abort', on);
  }
}
