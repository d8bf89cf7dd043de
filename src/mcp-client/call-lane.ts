// The measured fast path for the proxy's hot loop: a tools/call to a stdio upstream is sent straight through the
// SDK transport and its answer taken off the transport before the SDK client's request machinery (per-request
// abort signals, timers and a schema parse of every result). Everything else — the handshake, listings,
// notifications, the server's own requests — still goes through the SDK client. docs/performance.md has figures.
import type { Transport } from '@modelcontextprotocol/client';
import type { CancelWatch } from '../core/cancellation.ts';
import { SwitchboardError } from '../core/errors.ts';

/** Ids of lane requests: strings, so they never collide with the SDK client's numeric ids. */
const PREFIX = 'sb-lane-';

/**
 * Whether a parsed message answers a lane request (an id of the lane's, no method): the transport's reader hands
 * these to the lane without the SDK's schema parse (see stdio-client-transport.ts), whatever their shape, so a
 * malformed answer fails its call at once instead of being dropped; the connection checks the result.
 */
export function isLaneAnswer(message: unknown): boolean {
  const m = message as { id?: unknown; method?: unknown };
  return typeof m === 'object' && m !== null && m.method === undefined && isLaneId(m.id);
}

function isLaneId(id: unknown): boolean {
  return typeof id === 'string' && id.startsWith(PREFIX);
}

interface Pending {
  /** With the result as the server sent it, whatever its shape (the connection checks it). */
  resolve(result: unknown): void;
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
      if (isLaneId(m.id) && m.method === undefined) {
        const p = this.pending.get(m.id as string);
        if (p) {
          this.pending.delete(m.id as string);
          p.unwatch();
          const e = m.error as { code?: unknown } | undefined;
          if (e === undefined) p.resolve(m.result);
          else if (typeof e === 'object' && e !== null && typeof e.code === 'number') p.reject(e);
          else
            p.reject(
              new SwitchboardError(
                'UPSTREAM',
                `Upstream server '${server}' answered a tools/call with a malformed error (expected an object with a numeric code): ${JSON.stringify(e).slice(0, 200)}`,
                { server },
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
  call(params: Record<string, unknown>, cancel: CancelWatch): Promise<unknown> {
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
