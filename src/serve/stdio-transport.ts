// The stdio transport Switchboard hands to the SDK's `serveStdio`: newline-delimited JSON on stdin/stdout like
// the SDK's own, plus two measured differences — replies are written in one batch per event-loop turn, and each
// parsed message is offered to the edge (mcp-edge.ts), which may answer it instead of the protocol layer.
import type { Readable, Writable } from 'node:stream';
import { deserializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import { envelopeOf } from '../core/jsonrpc-envelope.ts';
import { type LineSink, LineSplitter, type OversizedLine } from '../core/line-splitter.ts';
import { checkJsonDepth } from './body.ts';
import { ProtocolErrorCode } from './jsonrpc-errors.ts';
import { jsonRpcResultText } from './tool-result.ts';

/**
 * The id of something that tries to be a JSON-RPC request (has a method, of any type), when it is a usable id.
 * A response from the client (no method) is never answered.
 */
function requestIdOf(value: unknown): string | number | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { id } = value as { id?: unknown };
  if (!('method' in value)) return undefined;
  // Integers only: a fractional or unsafe id would not survive the client's own parsing either.
  if (typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))) return id;
  return undefined;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Something the client sent as an answer (a result or an error, no method): JSON-RPC never answers a response. */
function isResponseLike(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return !('method' in value) && ('result' in value || 'error' in value);
}

/** Why JSON text without a usable id is not a JSON-RPC message, and what is expected instead. */
function invalidMessage(value: unknown): string {
  if (Array.isArray(value))
    return 'Invalid Request: a batch (JSON array) is not accepted over stdio; send one JSON-RPC message per line.';
  const expected = 'expected a JSON-RPC 2.0 object with jsonrpc "2.0" and a string method';
  if (typeof value !== 'object' || value === null) return `Invalid Request: ${expected}, not ${describeType(value)}.`;
  return `Invalid Request: not a valid JSON-RPC 2.0 message (${expected}, and an integer or string id for a request).`;
}

// Long enough for a busy client to read the notification first; only calls that just sent one pay it.
const RESPONSE_GAP_MS = 10;

/** The edge in front of the protocol layer (mcp-edge.ts). */
export interface EdgeHook {
  /** Returns true when it took the message (and will answer it through `sendResult` or `send`). */
  take(message: unknown): boolean;
  /** Sees every message the protocol layer was given, after it (cancellations, log levels). */
  observe(message: unknown): void;
}

export class BatchingStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Set by the owner once the protocol layer is connected. */
  edge?: EdgeHook;
  /** Called once, after the first write to stdout (stdio serve starts the hub then: the handshake's answer is out). */
  onfirstwrite?: () => void;

  private readonly lines: LineSplitter;
  private lastImmediateAt = Number.NEGATIVE_INFINITY;
  private gapScheduled = false;
  private outgoing: string[] = [];
  private flushScheduled = false;
  private waitingForDrain = false;
  private closed = false;

  /** `maxMessageBytes` is `[stdio] max_message_bytes`: longer lines are refused (see `oversized`). */
  constructor(
    maxMessageBytes: number,
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
  ) {
    this.lines = new LineSplitter(maxMessageBytes);
  }

  /** Change the limit for what is read from now on (stdio serve reads its handshake before the configuration). */
  setMaxMessageBytes(bytes: number): void {
    this.lines.maxLineBytes = bytes;
  }

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
    this.stdin.on('end', this.onEnd);
    this.stdout.on('error', this.onStreamError);
  }

  private readonly onData = (chunk: Buffer) => this.lines.push(chunk, this.sink);

  private readonly sink: LineSink = {
    line: (line) => {
      if (line.trim()) this.handleLine(line);
    },
    oversized: (line) => this.oversized(line),
  };

  /** A line over the limit is dropped unparsed; a request whose id can be read from its ends gets an answer. */
  private oversized(line: OversizedLine): void {
    const limit = `the limit is ${this.lines.maxLineBytes} bytes ([stdio] max_message_bytes)`;
    const { id, hasMethod } = envelopeOf(line);
    if (id !== undefined && hasMethod)
      void this.send({
        jsonrpc: '2.0',
        id,
        error: {
          code: ProtocolErrorCode.InvalidRequest,
          message: `Invalid Request: the message is ${line.bytes} bytes; ${limit}. Send less in one message, or raise the limit.`,
        },
      });
    else this.onerror?.(new Error(`dropped a ${line.bytes}-byte stdin line without a readable request id; ${limit}`));
  }

  private handleLine(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (err) {
      // JSON-RPC's answer to text that is not JSON: -32700, with a null id (no id can be read from it).
      this.refuse(
        ProtocolErrorCode.ParseError,
        `Parse error: the line is not valid JSON (${(err as Error).message.slice(0, 200)}); send one JSON-RPC message per line.`,
      );
      return;
    }
    // Deep nesting would reach recursive code (schema validation, serialisation): refuse it as unparseable, naming
    // the request's id when it can be read (a response is never answered).
    const depth = checkJsonDepth(line);
    if (!depth.ok) {
      const id = requestIdOf(parsed);
      if (id !== undefined)
        void this.send({
          jsonrpc: '2.0',
          id,
          error: { code: ProtocolErrorCode.InvalidRequest, message: `Invalid Request: ${depth.message}` },
        });
      else if (isResponseLike(parsed)) this.onerror?.(new Error(`dropped a response: ${depth.message}`));
      else this.refuse(ProtocolErrorCode.ParseError, `Parse error: ${depth.message}`);
      return;
    }
    if (this.edge?.take(parsed)) return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (err) {
      // A request whose id we can read gets an answer (JSON-RPC -32600) instead of silence.
      const id = requestIdOf(parsed);
      if (id !== undefined) {
        const { method } = parsed as { method: unknown };
        void this.send({
          jsonrpc: '2.0',
          id,
          error: {
            code: ProtocolErrorCode.InvalidRequest,
            message:
              typeof method === 'string'
                ? `Invalid Request: not a valid JSON-RPC 2.0 ${method.slice(0, 80)} request (expected exactly jsonrpc "2.0", an integer or string id, a method and object params).`
                : `Invalid Request: method must be a string naming the method (e.g. "tools/call"), not ${describeType(method)}.`,
          },
        });
      } else if (isResponseLike(parsed))
        // The client's answer to one of our requests is never answered, even when it is malformed.
        this.onerror?.(
          new Error(`dropped a response that is not valid JSON-RPC: ${(err as Error).message.slice(0, 200)}`),
        );
      else this.refuse(ProtocolErrorCode.InvalidRequest, invalidMessage(parsed));
      return;
    }
    this.onmessage?.(message);
    this.edge?.observe(message);
  }

  /** Answer a line that names no usable id: JSON-RPC's error with a null id, so no line goes unanswered. */
  private refuse(code: ProtocolErrorCode.ParseError | ProtocolErrorCode.InvalidRequest, message: string): void {
    void this.send({ jsonrpc: '2.0', id: null, error: { code, message } });
  }

  /**
   * Send a message. Responses are queued and everything queued in one turn of the event loop goes out in one
   * write; notifications and requests go out at once (after what is queued), so a client sees a call's progress
   * before its result — SDK clients drop progress that arrives in the same read as the response.
   */
  async send(message: JSONRPCMessage | Record<string, unknown>): Promise<void> {
    if (this.closed) return;
    this.outgoing.push(JSON.stringify(message));
    if (!('id' in message) || 'method' in message) {
      this.lastImmediateAt = performance.now();
      if (!this.waitingForDrain) this.write();
      return;
    }
    this.scheduleFlush();
  }

  /** Queue a response whose result is JSON text already (the edge encodes results itself). */
  sendResult(id: string | number, resultJson: string): void {
    if (this.closed) return;
    this.outgoing.push(jsonRpcResultText(id, resultJson));
    this.scheduleFlush();
  }

  /**
   * Resolves in the next turn of the event loop, once everything answered in this one has been written: replies
   * queued in a turn are flushed in that turn's check phase, and an immediate scheduled from that phase runs in the
   * next turn's.
   */
  afterThisTurn(): Promise<void> {
    return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
  }

  private scheduleFlush(): void {
    if (!this.flushScheduled && !this.waitingForDrain) {
      this.flushScheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = () => {
    this.flushScheduled = false;
    if (this.closed || this.outgoing.length === 0) return;
    // A response right behind a notification (the last progress of a call) waits a moment, so the client
    // reads them in separate chunks: SDK clients drop progress that arrives in the same read as the result.
    const sinceNotification = performance.now() - this.lastImmediateAt;
    if (sinceNotification < RESPONSE_GAP_MS && this.outgoing.length > 0 && !this.gapScheduled) {
      this.gapScheduled = true;
      this.flushScheduled = true;
      setTimeout(() => {
        this.gapScheduled = false;
        this.flush();
      }, RESPONSE_GAP_MS);
      return;
    }
    this.write();
  };

  /** Write everything queued, in order, in one call; wait for `drain` when the pipe is full. */
  private readonly write = () => {
    if (this.closed || this.outgoing.length === 0) return;
    const text = `${this.outgoing.join('\n')}\n`;
    this.outgoing = [];
    if (!this.stdout.write(text)) {
      this.waitingForDrain = true;
      this.stdout.once('drain', () => {
        this.waitingForDrain = false;
        this.write();
      });
    }
    if (this.onfirstwrite) {
      const first = this.onfirstwrite;
      this.onfirstwrite = undefined;
      first();
    }
  };

  private readonly onStreamError = (err: Error) => this.onerror?.(err);
  private readonly onEnd = () => void this.close();

  async close(): Promise<void> {
    if (this.closed) return;
    this.write();
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.lines.clear();
    this.stdin.off('error', this.onStreamError);
    this.stdin.off('end', this.onEnd);
    this.stdout.off('error', this.onStreamError);
    this.stdin.pause();
    this.onclose?.();
  }
}
