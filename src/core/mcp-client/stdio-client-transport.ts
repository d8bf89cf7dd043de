// The SDK's stdio client transport with two measured changes for the proxy's hot loop (bench/upstream.mjs with
// --profile; figures in docs/performance.md):
// - writes are batched: everything sent to a child in one turn of the event loop goes out in one write. A pipe
//   write is a system call; under load the proxy sends many requests per turn.
// - answers to the call lane are parsed once: the SDK's reader runs every line through JSON.parse and then its
//   Zod schema for JSON-RPC messages; an answer the lane recognises (see `isLaneAnswer`) skips the schema.
//   Every other line — notifications, the server's requests, answers to the SDK client — still gets it.

import type { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { type JSONRPCMessage, parseJSONRPCMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/client';
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { isLaneAnswer } from './call-lane.ts';

/**
 * Newline-delimited JSON like the SDK's `ReadBuffer` — the same size limit (on the buffered text), lines that are
 * not JSON skipped, a line that is JSON but not JSON-RPC thrown for the transport to report — with one parse for
 * lane answers.
 */
class LaneReadBuffer {
  private text = '';
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly maxBufferSize = STDIO_DEFAULT_MAX_BUFFER_SIZE) {}

  append(chunk: Buffer): void {
    if (this.text.length + chunk.length > this.maxBufferSize) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBufferSize} bytes`);
    }
    this.text += this.decoder.write(chunk);
  }

  readMessage(): JSONRPCMessage | null {
    let nl = this.text.indexOf('\n');
    while (nl !== -1) {
      const line = this.text.charCodeAt(nl - 1) === 13 ? this.text.slice(0, nl - 1) : this.text.slice(0, nl);
      this.text = this.text.slice(nl + 1);
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        nl = this.text.indexOf('\n');
        continue;
      }
      return isLaneAnswer(value) ? (value as JSONRPCMessage) : parseJSONRPCMessage(value);
    }
    return null;
  }

  clear(): void {
    this.text = '';
    this.decoder.end(); // drops a partly received character
  }
}

export class BatchingStdioClientTransport extends StdioClientTransport {
  private queue: string[] = [];
  private scheduled = false;
  private waitingForDrain = false;

  constructor(server: StdioServerParameters) {
    super(server);
    // The SDK keeps its reader in a field of its own and calls append / readMessage / clear on it.
    (this as unknown as { _readBuffer: LaneReadBuffer })._readBuffer = new LaneReadBuffer(server.maxBufferSize);
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
