// Switchboard's stdio client transport for upstream servers: the SDK's StdioClientTransport (same spawn, default
// environment, stderr handling and graceful shutdown) written against the SDK's public Transport interface, with
// three changes for the proxy (bench/upstream.mjs with --profile; figures in docs/performance.md):
// - writes are batched: everything sent to a child in one turn of the event loop goes out in one write. A pipe
//   write is a system call; under load the proxy sends many requests per turn.
// - answers to the call lane are parsed once: the SDK's reader runs every line through JSON.parse and then its
//   Zod schema for JSON-RPC messages; an answer the lane recognises (see `isLaneAnswer`) skips the schema.
//   Every other line — notifications, the server's requests, answers to the SDK client — still gets it.
// - lines are split in linear time (core/line-splitter.ts), and a line over `maxMessageBytes` fails the call it
//   answers (when its id can be read) instead of the whole connection; the connection stays up.

import type { ChildProcess } from 'node:child_process';
import { PassThrough, type Stream } from 'node:stream';
import {
  type JSONRPCMessage,
  ProtocolErrorCode,
  parseJSONRPCMessage,
  SdkError,
  SdkErrorCode,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment, type StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { argv } from '../core/argv.ts';
import { envelopeOf } from '../core/jsonrpc-envelope.ts';
import { type LineSink, LineSplitter, type OversizedLine } from '../core/line-splitter.ts';
import { killChildGroup, startChild } from '../core/process.ts';
import { type Fence, fencedCommand, fenceRequired, sandboxTool } from '../core/sandbox.ts';
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
      error: {
        code: ProtocolErrorCode.InternalError,
        message: `${what} Ask for less, or raise the limit.`,
        data: { [OVERSIZED_ANSWER]: true },
      },
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

/** Whether a server meant to be fenced got its fence at its last start. */
export type FenceState = { fenced: true } | { fenced: false; why: string };

/** How long `close` waits for the child after closing its stdin, and again after SIGTERM (as the SDK does). */
const EXIT_WAIT_MS = 2_000;

export class BatchingStdioClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child?: ChildProcess;
  private readonly reader: LaneReadBuffer;
  /** The child's stderr, handed out before start so no early output is lost (`stderr: 'pipe'`). */
  private readonly stderrStream?: PassThrough;
  private queue: string[] = [];
  private scheduled = false;
  private waitingForDrain = false;

  constructor(
    private readonly server: StdioServerParameters & {
      name: string;
      maxMessageBytes: number;
      /** Run the server inside this fence (core/sandbox.ts); absent: unfenced. */
      fence?: Fence;
      /** Told, at each start, whether the fence was built, and why not when it could not be (then it runs unfenced). */
      onFence?: (state: FenceState) => void;
    },
  ) {
    this.reader = new LaneReadBuffer(server.name, server.maxMessageBytes);
    if (server.stderr === 'pipe' || server.stderr === 'overlapped') this.stderrStream = new PassThrough();
  }

  /** Spawn the server (cross-spawn, as the SDK: Windows command shims resolve) with the SDK's default environment. */
  async start(): Promise<void> {
    if (this.child) throw new Error('BatchingStdioClientTransport already started: connect() starts it.');
    const { env, cwd, stderr, fence } = this.server;
    const childEnv = { ...getDefaultEnvironment(), ...env };
    // The command and its words are the operator's (a configured server), passed as written.
    let command = this.server.command;
    let args = argv()
      .operator(this.server.args ?? [])
      .build();
    if (fence) {
      const tool = await sandboxTool();
      if (tool.ok) {
        ({ command, args } = fencedCommand(command, args, cwd ?? process.cwd(), fence, childEnv));
        this.server.onFence?.({ fenced: true });
      } else if (fence.required) throw fenceRequired(this.server.name, tool.why);
      else this.server.onFence?.({ fenced: false, why: tool.why });
    }
    await new Promise<void>((resolve, reject) => {
      const child = startChild(command, args, {
        env: childEnv,
        stdio: ['pipe', 'pipe', stderr ?? 'inherit'],
        windowsHide: process.platform === 'win32',
        ...(cwd ? { cwd } : {}),
      });
      this.child = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.on('close', () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.reader.append(chunk);
          this.readMessages();
        } catch (error) {
          this.onerror?.(error as Error);
          this.close().catch(() => {});
        }
      });
      child.stdout?.on('error', (error) => this.onerror?.(error));
      if (this.stderrStream && child.stderr) child.stderr.pipe(this.stderrStream);
    });
  }

  /** The child's stderr: with `stderr: 'pipe'`, a stream available before `start`. */
  get stderr(): Stream | null {
    return this.stderrStream ?? this.child?.stderr ?? null;
  }

  /** The child's pid, once started. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  private readMessages(): void {
    for (;;) {
      try {
        const message = this.reader.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.child?.stdin) throw new SdkError(SdkErrorCode.NotConnected, 'Not connected');
    this.queue.push(JSON.stringify(message));
    if (!this.scheduled && !this.waitingForDrain) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = () => {
    this.scheduled = false;
    const stdin = this.child?.stdin;
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

  /**
   * Close stdin and let the server exit; SIGTERM after 2 s, SIGKILL 2 s later (the SDK's shutdown), each to the
   * server's whole process group (what `npx` started with it); what the server leaves in its group when it exits goes
   * too (core/process.ts).
   */
  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) {
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const exitedOrWaited = () =>
        Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, EXIT_WAIT_MS).unref())]);
      try {
        child.stdin?.end();
      } catch {
        // Already closed.
      }
      await exitedOrWaited();
      if (child.exitCode === null) {
        killChildGroup(child, 'SIGTERM');
        await exitedOrWaited();
      }
      if (child.exitCode === null) killChildGroup(child, 'SIGKILL');
    }
    this.queue = [];
    this.reader.clear();
  }
}
