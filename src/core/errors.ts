// Errors as values: one table of codes shared by every layer and transport.
// Transports map a code to their wire format (MCP isError result, REST status) from this table only.

/** Every failure a call can end in. `status` is the REST mapping; MCP answers all of them as `isError` results. */
export const ERROR_TABLE = {
  INVALID_INPUT: { status: 400, summary: 'The input does not match the capability schema.' },
  INVALID_REQUEST: { status: 400, summary: 'The request itself is malformed (not JSON, wrong shape).' },
  UNAUTHORIZED: { status: 401, summary: 'No valid credentials were presented.' },
  FORBIDDEN: { status: 403, summary: 'The principal may not perform this action.' },
  NOT_FOUND: { status: 404, summary: 'No such capability, task, resource or instance.' },
  CONFLICT: { status: 409, summary: 'The action is illegal in the current state (e.g. a task transition).' },
  PAYLOAD_TOO_LARGE: { status: 413, summary: 'The request body is larger than allowed.' },
  RATE_LIMITED: { status: 429, summary: 'Too many calls; retry after the given delay.' },
  CANCELLED: { status: 499, summary: 'The caller cancelled the call.' },
  INTERNAL: { status: 500, summary: 'The capability failed unexpectedly.' },
  UPSTREAM: {
    status: 502,
    summary: 'An upstream MCP server answered something invalid (a malformed or oversized result).',
  },
  UNAVAILABLE: { status: 503, summary: 'The capability is temporarily unavailable (circuit open, not ready).' },
  TIMEOUT: { status: 504, summary: 'The capability did not finish within its time limit.' },
} as const;

export type ErrorCode = keyof typeof ERROR_TABLE;

/** The serialisable shape of an error as it crosses layers. */
export interface ErrorInfo {
  code: ErrorCode;
  message: string;
  /** Structured details a client can act on: field issues, retryAfterMs, allowed transitions… */
  details?: Record<string, unknown>;
}

/**
 * An error with a code from {@link ERROR_TABLE}. Handlers throw it to fail a call with a precise
 * code; anything else thrown becomes `INTERNAL`.
 *
 * @example
 * throw new SwitchboardError('CONFLICT', "Task t-1 is completed; it cannot be assigned.", { allowed: [] });
 */
export class SwitchboardError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'SwitchboardError';
    this.code = code;
    this.details = details;
  }
  toInfo(): ErrorInfo {
    return this.details
      ? { code: this.code, message: this.message, details: this.details }
      : { code: this.code, message: this.message };
  }
}

/** Turn anything thrown into an {@link ErrorInfo}; unknown errors become INTERNAL with their message. */
export function toErrorInfo(err: unknown): ErrorInfo {
  if (err instanceof SwitchboardError) return err.toInfo();
  // Handler modules may carry their own copy of this package: recognise the shape, not the class.
  if (isErrorLike(err))
    return err.details
      ? { code: err.code, message: err.message, details: err.details }
      : { code: err.code, message: err.message };
  if (err && typeof err === 'object' && 'name' in err && (err as Error).name === 'AbortError') {
    return { code: 'CANCELLED', message: 'The call was cancelled.' };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'INTERNAL', message: message || 'The capability failed without a message.' };
}

function isErrorLike(err: unknown): err is { code: ErrorCode; message: string; details?: Record<string, unknown> } {
  if (!(err instanceof Error) || err.name !== 'SwitchboardError') return false;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && code in ERROR_TABLE;
}

/** HTTP status for an error code. */
export function httpStatus(code: ErrorCode): number {
  return ERROR_TABLE[code].status;
}
