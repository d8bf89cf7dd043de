// An upstream server's two edges, apart from the connection's lifecycle (connection.ts): the SDK transport that
// reaches it, and the SwitchboardError a failed connect or request becomes, in words a caller can act on.
import {
  type OAuthClientProvider,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import type { Logger } from 'pino';
import type { CancelWatch } from '../core/cancellation.ts';
import { SwitchboardError } from '../core/errors.ts';
import type { ResolvedServer } from './server-spec.ts';
import { BatchingStdioClientTransport, type FenceState, OVERSIZED_ANSWER } from './stdio-client-transport.ts';
import { foldTaskAnswers } from './upstream-task.ts';

/** The longest stderr line of a stdio server that is logged. */
const STDERR_LINE_MAX = 2000;

/**
 * The SDK transport for a server; a stdio child's stderr goes to the log, line by line and capped. A server that
 * logs in with OAuth gets its login as the transport's provider; a 403 asking for a wider scope is thrown to us
 * (`onInsufficientScope: 'throw'`), since only a person can grant it.
 */
export function openTransport(
  s: ResolvedServer,
  logger: Logger,
  authProvider?: OAuthClientProvider,
  onFence?: (state: FenceState) => void,
): Transport {
  if (s.transport === 'stdio') {
    const t = new BatchingStdioClientTransport({
      name: s.name,
      maxMessageBytes: s.maxMessageBytes,
      ...(s.fence ? { fence: s.fence } : {}),
      ...(onFence ? { onFence } : {}),
      command: s.command as string,
      args: s.args,
      env: s.env,
      ...(s.cwd ? { cwd: s.cwd } : {}),
      stderr: 'pipe',
    });
    // The child's stderr goes to our log, line by line and capped: stdout is the protocol and stays clean.
    let partial = '';
    t.stderr?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines)
        if (line.trim()) logger.debug({ server: s.name, stderr: line.slice(0, STDERR_LINE_MAX) }, 'upstream');
    });
    return t;
  }
  const url = new URL(s.url as string);
  const requestInit = { headers: s.headers };
  const oauth = authProvider ? { authProvider } : {};
  // Streamable HTTP may speak 2026-07-28, whose servers may answer a long call with a task (upstream-task.ts).
  return s.transport === 'sse'
    ? new SSEClientTransport(url, { requestInit, ...oauth })
    : foldTaskAnswers(new StreamableHTTPClientTransport(url, { requestInit, ...oauth, onInsufficientScope: 'throw' }));
}

/**
 * A failed request to an upstream server as the SwitchboardError its caller gets; `request` says what was asked
 * (`tools/call of 'x'`), for errors about the answer. Tool errors are results and never reach here.
 */
export function callError(err: unknown, cancel: CancelWatch, request: string, server: ResolvedServer): unknown {
  if (err instanceof SwitchboardError) return err;
  if (cancel.aborted) return cancel.reason ?? err;
  const invalid = invalidAnswer(err, request, server.name);
  if (invalid) return invalid;
  if (err instanceof SdkError) {
    if (err.code === SdkErrorCode.RequestTimeout)
      return new SwitchboardError(
        'TIMEOUT',
        `Upstream server '${server.name}' did not answer within ${server.timeoutMs} ms (timeout_ms; progress notifications extend it).`,
        { server: server.name },
      );
    if (err.code === SdkErrorCode.ConnectionClosed || err.code === SdkErrorCode.NotConnected)
      return new SwitchboardError(
        'UNAVAILABLE',
        `Upstream server '${server.name}' closed the connection during the call; it is being restarted. Retry in a moment.`,
        { server: server.name },
      );
    return new SwitchboardError('UNAVAILABLE', `Upstream server '${server.name}': ${err.message}`, {
      server: server.name,
    });
  }
  // A JSON-RPC error from the server itself (unknown tool, invalid params): its message is the useful part.
  const e = err as { code?: unknown; message?: string };
  if (typeof e?.code === 'number')
    return new SwitchboardError(
      e.code === ProtocolErrorCode.InvalidParams
        ? 'INVALID_INPUT'
        : e.code === ProtocolErrorCode.MethodNotFound
          ? 'NOT_FOUND'
          : 'INTERNAL',
      `Upstream server '${server.name}': ${e.message ?? 'request failed'}`,
      { server: server.name, upstreamCode: e.code },
    );
  return new SwitchboardError('INTERNAL', `Upstream server '${server.name}': ${(err as Error)?.message ?? err}`, {
    server: server.name,
  });
}

/** An answer the server should not have sent (too long, not an object, failing the result schema), as UPSTREAM. */
function invalidAnswer(err: unknown, request: string, name: string): SwitchboardError | undefined {
  const e = err as { code?: unknown; message?: string; data?: Record<string, unknown>; issues?: unknown };
  if (e?.data?.[OVERSIZED_ANSWER] === true)
    return new SwitchboardError('UPSTREAM', e.message as string, { server: name });
  // The SDK's own checks of a 2026-era result, and its message schema rejecting an answer (over HTTP).
  const sdkInvalid = err instanceof SdkError && err.code === SdkErrorCode.InvalidResult;
  const issues = Array.isArray(e?.issues) ? (e.issues as { path?: PropertyKey[]; message?: string }[]) : undefined;
  if (!sdkInvalid && !issues?.length) return undefined;
  const first = issues?.[0] as { code?: string; path?: PropertyKey[]; message?: string } | undefined;
  const what = !first
    ? String(e.message).replace(/\s+/g, ' ').slice(0, 500)
    : first.code === 'invalid_union'
      ? 'the message is not valid JSON-RPC (an answer has jsonrpc "2.0", the request\'s id, and an object result or an error)'
      : `${first.path?.length ? `${first.path.join('.')}: ` : ''}${first.message}`;
  return new SwitchboardError(
    'UPSTREAM',
    `Upstream server '${name}' sent an invalid answer to ${request}: ${what}. The server is at fault; its answer was not passed on.`,
    { server: name },
  );
}

export function isSessionGone(err: unknown): boolean {
  return err instanceof SdkHttpError && err.status === 404;
}

/** A connect failure in words a person can act on. */
export function describeConnectError(err: unknown, server: ResolvedServer): string {
  const e = err as NodeJS.ErrnoException & { status?: number };
  if (e?.code === 'ENOENT' && server.transport === 'stdio')
    return `command not found: ${server.command} (check the command and PATH)`;
  if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout)
    return `no answer within startup_timeout_ms (${server.startupTimeoutMs} ms)`;
  if (err instanceof SdkError && err.code === SdkErrorCode.ConnectionClosed)
    return server.transport === 'stdio'
      ? 'the process exited before it finished starting (run the command by hand to see why)'
      : 'the connection closed during the handshake';
  if (err instanceof SdkHttpError) return `HTTP ${err.status}${err.statusText ? ` ${err.statusText}` : ''}`;
  // fetch wraps the socket error a level or two down (SdkError → TypeError "fetch failed" → Error ECONNREFUSED).
  for (let c: unknown = err, depth = 0; c && depth < 5; c = (c as { cause?: unknown }).cause, depth++) {
    const code = (c as { code?: unknown }).code;
    if (code === 'ECONNREFUSED') return `connection refused at ${server.url} (is the server running?)`;
    if (code === 'ENOTFOUND') return `host not found: ${server.url}`;
    if (code === 'ECONNRESET') return `the connection to ${server.url} was reset`;
  }
  return (err as Error)?.message ?? String(err);
}
