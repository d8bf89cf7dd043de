// The SSE response stream of one fast call on a 2025 session (mcp-session-transport.ts), in the format of the SDK's
// own streams: a priming event, then `event: message` events, each stored in the session's event store first so
// a client that loses the stream resumes it with Last-Event-ID. What one turn of the event loop queues goes out
// in one write: a call that finishes at once is answered headers, priming event and result together.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { SessionEventStore } from './mcp-event-store.ts';

/** A comment line now and then keeps proxies from closing a quiet stream (the SDK's interval). */
const KEEP_ALIVE_MS = 15_000;

export class CallStream {
  /** The client's connection while it has one (none after it left, or after `disconnect`, until it resumes). */
  private res?: ServerResponse;
  private pending = '';
  private flushTimer?: NodeJS.Immediate;
  private keepAlive?: NodeJS.Timeout;
  private done = false;

  constructor(
    private readonly events: SessionEventStore,
    readonly streamId: string,
    private readonly headers: OutgoingHttpHeaders,
    /** Called once the call's answer is written (or stored, for a client that is away). */
    private readonly onDone: () => void,
  ) {}

  /** Start the stream on `res`; with `retryMs`, with a priming event the client can resume from. */
  open(res: ServerResponse, retryMs: number | undefined): void {
    this.attach(res);
    if (retryMs !== undefined)
      this.queue(`id: ${this.events.storeText(this.streamId, '{}')}\nretry: ${retryMs}\ndata: \n\n`);
  }

  /** A message of the call (a request, a notification, or the SDK's answer, which ends the stream). */
  send(message: JSONRPCMessage): void {
    if ('method' in message) this.event(JSON.stringify(message));
    else this.finish(JSON.stringify(message));
  }

  /** The call's answer, as JSON text: stored, written, and the stream ends. */
  finish(text: string): void {
    if (this.done) return;
    this.event(text);
    this.done = true;
    this.onDone();
    this.endResponse();
  }

  /** End the client's connection now; the stream lives on, and a GET with Last-Event-ID resumes it. */
  disconnect(): void {
    this.endResponse();
  }

  /** End the stream for good, without an answer (the call was cancelled, the session closed). */
  end(): void {
    this.done = true;
    this.endResponse();
  }

  /** Continue on `res` after `lastEventId`, when the stream has no connection; false leaves the GET to the SDK. */
  resume(res: ServerResponse, lastEventId: string): boolean {
    if (this.res || this.done) return false;
    let missed: [string, string][];
    try {
      missed = this.events.textsAfter(lastEventId);
    } catch {
      return false; // Evicted: the SDK answers it.
    }
    this.attach(res);
    for (const [id, text] of missed) this.queue(`event: message\nid: ${id}\ndata: ${text}\n\n`);
    return true;
  }

  private attach(res: ServerResponse): void {
    this.res = res;
    res.writeHead(200, this.headers);
    res.once('close', () => {
      if (this.res === res) this.stopWriting();
    });
    this.scheduleFlush();
  }

  private event(text: string): void {
    const id = this.events.storeText(this.streamId, text);
    this.queue(`event: message\nid: ${id}\ndata: ${text}\n\n`);
  }

  private queue(text: string): void {
    if (!this.res) return;
    this.pending += text;
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    this.flushTimer ??= setImmediate(this.flush);
  }

  private readonly flush = () => {
    this.flushTimer = undefined;
    const res = this.res;
    if (!res) return;
    if (this.pending) {
      res.write(this.pending);
      this.pending = '';
    } else if (!res.headersSent) res.flushHeaders();
    this.keepAlive ??= setInterval(() => this.res?.write(': keepalive\n\n'), KEEP_ALIVE_MS).unref();
  };

  private endResponse(): void {
    const res = this.res;
    const pending = this.pending;
    this.stopWriting();
    res?.end(pending);
  }

  private stopWriting(): void {
    this.res = undefined;
    this.pending = '';
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flushTimer = undefined;
    clearInterval(this.keepAlive);
    this.keepAlive = undefined;
  }
}
