// The measured fast path for the proxy's hot loop: a tools/call to a stdio upstream is sent straight through the
// SDK transport and its answer taken off the transport before the SDK client's request machinery (per-request
// abort signals, timers and a schema parse of every result). Everything else — the handshake, listings,
// notifications, the server's own requests — still goes through the SDK client. docs/performance.md has figures.
import type { Transport } from '@modelcontextprotocol/client';
import type { CancelWatch } from '../cancellation.ts';
import { SwitchboardError } from '../errors.ts';

/** Ids of lane requests: strings, so they never collide with the SDK client's numeric ids. */
const PREFIX = 'sb-lane-';

/**
 * Whether a parsed message is an answer to a lane request in a shape the lane can use as it is: the transport's
 * reader lets these skip the SDK's schema parse (see stdio-client-transport.ts); anything else is parsed by the SDK.
 */
export function isLaneAnswer(message: unknown): boolean {
  const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; result?: unknown; error?: unknown };
  if (typeof m !== 'object' || m === null || m.jsonrpc !== '2.0' || m.method !== undefined) return false;
  if (typeof m.id !== 'string' || !m.id.startsWith(PREFIX)) return false;
  if (m.error !== undefined) {
    const e = m.error as { code?: unknown; message?: unknown };
    return m.result === undefined && typeof e === 'object' && e !== null && typeof e.code === 'number';
  }
  return typeof m.result === 'object' && m.result !== null && !Array.isArray(m.result);
}

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(err: unknown): void;
  /** Stops watching the caller's cancellation. */
  unwatch(): void;
}

export class CallLane {
  private seq = 0;
  private readonly pending = new Map<string, Pending>();

  /** Install on a connected transport (after `client.connect`, which sets the SDK's own handlers). */
  constructor(
    private readonly transport: Transport,
    private readonly server: string,
  ) {
    const sdkMessage = transport.onmessage;
    const sdkClose = transport.onclose;
    transport.onmessage = (message, extra) => {
      const m = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
      if (typeof m.id === 'string' && m.id.startsWith(PREFIX) && m.method === undefined) {
        const p = this.pending.get(m.id);
        if (p) {
          this.pending.delete(m.id);
          p.unwatch();
          if (m.error !== undefined) p.reject(m.error);
          else if (typeof m.result === 'object' && m.result !== null) p.resolve(m.result as Record<string, unknown>);
          else
            p.reject(
              new SwitchboardError(
                'INTERNAL',
                `Upstream server '${server}' answered a tools/call without a result object.`,
              ),
            );
        }
        return;
      }
      sdkMessage?.call(transport, message, extra);
    };
    transport.onclose = () => {
      this.failAll();
      sdkClose?.call(transport);
    };
  }

  /** Send `tools/call` with these params; a cancel sends `notifications/cancelled` and rejects with the reason. */
  call(params: Record<string, unknown>, cancel: CancelWatch): Promise<Record<string, unknown>> {
    if (cancel.aborted) return Promise.reject(cancel.reason);
    const id = `${PREFIX}${++this.seq}`;
    return new Promise((resolve, reject) => {
      // A callback on the call's own cancellation: no AbortSignal or listener object per call.
      const unwatch = cancel.onAbort((reason) => {
        if (!this.pending.delete(id)) return;
        this.transport
          .send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason: String((reason as Error | undefined)?.message ?? 'cancelled') },
          })
          .catch(() => {});
        reject(reason);
      });
      this.pending.set(id, { resolve, reject, unwatch });
      this.transport.send({ jsonrpc: '2.0', id, method: 'tools/call', params }).catch((err) => {
        if (this.pending.delete(id)) {
          unwatch();
          reject(err);
        }
      });
    });
  }

  private failAll(): void {
    const closed = new SwitchboardError(
      'UNAVAILABLE',
      `Upstream server '${this.server}' closed the connection during the call; it is being restarted. Retry in a moment.`,
      { server: this.server },
    );
    for (const p of this.pending.values()) {
      p.unwatch();
      p.reject(closed);
    }
    this.pending.clear();
  }
}
