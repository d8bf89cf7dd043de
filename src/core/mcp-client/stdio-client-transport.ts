// The SDK's stdio client transport with three changes for the proxy (bench/upstream.mjs with --profile; figures in
// docs/performance.md):
// - writes are batched: everything sent to a child in one turn of the event loop goes out in one write. A pipe
//   write is a system call; under load the proxy sends many requests per turn.
// - answers to the call lane are parsed once: the SDK's reader runs every line through JSON.parse and then its
//   Zod schema for JSON-RPC messages; an answer the lane recognises (see `isLaneAnswer`) skips the schema.
//   Every other line — notifications, the server's requests, answers to the SDK client — still gets it.
// - lines are split in linear time (core/line-splitter.ts), and a line over `maxMessageBytes` fails the call it
//   answers (when its id can be read) instead of the whole connection; the connection stays up.

import type { Writable } from 'node:stream';
import { type JSONRPCMessage, parseJSONRPCMessage } from '@modelcontextprotocol/client';
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { envelopeOf } from '../jsonrpc-envelope.ts';
import { type LineSink, LineSplitter, type OversizedLine } from '../line-splitter.ts';
import { isLaneAnswer } from './call-lane.ts';

/**
 * Marks the error answer this transport makes up for an answer over the size limit (in the JSON-RPC error's
 * `data`): the connection reports it as `UPSTREAM` with the message as it is.
 */
export const OVERSIZED_ANSWER = 'switchboard/oversized-answer';

/**
 * Newline-delimited JSON like the SDK's `ReadBuffer` (lines that are not JSON skipped, a line that is JSON but not
 * JSON-RPC thrown for the transport to report) with one parse for lane answers and the size limit per line.
 */
class LaneReadBuffer implements LineSink {
  private readonly lines: LineSplitter;
  /** Parsed lines not yet read; an Error is thrown by `readMessage` for the transport to report. */
  private queue: unknown[] = [];
  private next = 0;

  constructor(
    private readonly server: string,
    maxMessageBytes: number,
  ) {
    this.lines = new LineSplitter(maxMessageBytes);
  }

  append(chunk: Buffer): void {
    this.lines.push(chunk, this);
  }

  line(text: string): void {
    try {
      this.queue.push(JSON.parse(text));
    } catch {
      // Not JSON (a stray log line, a blank line): skipped, as the SDK's reader does.
    }
  }

  oversized(line: OversizedLine): void {
    const { id, hasMethod } = envelopeOf(line);
    const what = `Upstream server '${this.server}' answered with a ${line.bytes}-byte message; the limit is ${this.lines.maxLineBytes} bytes (max_message_bytes in its [[servers]] entry, default [stdio] max_message_bytes).`;
    if (id === undefined || hasMethod) {
      this.queue.push(new Error(`${what} Dropped: no answer id could be read from it.`));
      return;
    }
    this.queue.push(new Error(`${what} The call it answers failed.`), {
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: `${what} Ask for less, or raise the limit.`, data: { [OVERSIZED_ANSWER]: true } },
    });
  }

  readMessage(): JSONRPCMessage | null {
    if (this.next === this.queue.length) {
      this.queue = [];
      this.next = 0;
      return null;
    }
    const value = this.queue[this.next++];
    if (value instanceof Error) throw value; // JSON.parse never makes one
    return isLaneAnswer(value) ? (value as JSONRPCMessage) : parseJSONRPCMessage(value);
  }

  clear(): void {
    this.lines.clear();
    this.queue = [];
    this.next = 0;
  }
}

export class BatchingStdioClientTransport extends StdioClientTransport {
  private queue: string[] = [];
  private scheduled = false;
  private waitingForDrain = false;

  constructor(server: StdioServerParameters & { name: string; maxMessageBytes: number }) {
    super(server);
    // The SDK keeps its reader in a field of its own and calls append / readMessage / clear on it.
    (this as unknown as { _readBuffer: LaneReadBuffer })._readBuffer = new LaneReadBuffer(
      server.name,
      server.maxMessageBytes,
    );
  }

  /** The child's stdin, while it runs (the SDK keeps the process in a field of its own). */
  private get stdin(): Writable | undefined {
    return (this as unknown as { _process?: { stdin?: Writable } })._process?.stdin ?? undefined;
  }

  override async send(message: JSONRPCMessage): Promise<void> {
    if (!this.stdin) return super.send(message);
    this.queue.push(JSON.stringify(message));
    if (!this.scheduled && !this.waitingForDrain) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = () => {
    this.scheduled = false;
    const stdin = this.stdin;
    if (!stdin || this.queue.length === 0) {
      this.queue = [];
      return;
    }
    const text = `${this.queue.join('\n')}\n`;
    this.queue = [];
    if (!stdin.write(text)) {
      this.waitingForDrain = true;
      stdin.once('drain', () => {
        this.waitingForDrain = false;
        this.flush();
      });
    }
  };
}
