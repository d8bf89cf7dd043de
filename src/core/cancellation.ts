// Cancellation for one call without paying for an AbortController up front: most handlers never look at their
// signal, and an EventTarget per call is a measurable share of the hot path. The real signal is made on first use.

/**
 * Aborted by the pipeline on timeout and by a transport on cancel. `signal` is a real AbortSignal, created
 * lazily, so it can be handed to fetch, child processes and anything else that takes one.
 *
 * @example
 * const c = new Cancellation();
 * setTimeout(() => c.abort(new Error('too slow')), 1000);
 * await fetch(url, { signal: c.signal });
 */
export class Cancellation {
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
      if (this.listeners) this.listeners = this.listeners.filter((l) => l !== fn);
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
