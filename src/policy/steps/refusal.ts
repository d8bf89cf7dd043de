// How a policy step says no: an error outcome that carries when to retry. Resolved, not thrown, so a refused
// call costs no exception.
import type { ErrorCode } from '../../core/errors.ts';
import type { Outcome } from '../../core/pipeline.ts';

export function refuse(
  code: ErrorCode,
  message: string,
  retryAfterMs: number,
  details: Record<string, unknown>,
): Promise<Outcome> {
  return Promise.resolve({ ok: false, error: { code, message, details: { retryAfterMs, ...details } } });
}

/** Whether a strategy answered later (shared state, over the network) rather than at once (this process). */
export function isPending<T>(answer: T | Promise<T>): answer is Promise<T> {
  return answer instanceof Promise;
}
