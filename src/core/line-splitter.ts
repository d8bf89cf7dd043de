// Newline-delimited framing for both stdio directions (the server's stdin, an upstream server's stdout), in time
// linear in the bytes: input stays bytes until a line is complete, the newline search starts where the last one
// stopped, and a line is decoded from UTF-8 once. Re-scanning and re-slicing one growing string made a long line
// quadratic (8 MB took 6.6 s).

/** Kept from each end of a line over the limit: enough to read a JSON-RPC id and method written at either end. */
export const OVERSIZED_EDGE_BYTES = 4096;

/** A line longer than the limit, dropped: its size and its first and last bytes (see {@link OVERSIZED_EDGE_BYTES}). */
export interface OversizedLine {
  bytes: number;
  head: string;
  tail: string;
}

export interface LineSink {
  /** A complete line without its `\n` (or `\r\n`); blank lines are passed on too. */
  line(text: string): void;
  oversized(line: OversizedLine): void;
}

/** A line's partial bytes stay in a buffer of at least this size; a larger one is let go after its line. */
const KEEP_BYTES = 64 * 1024;
/** The end kept of a line over the limit: its last bytes, and a `\r` that may turn out to end it. */
const TAIL_BYTES = OVERSIZED_EDGE_BYTES + 1;

export class LineSplitter {
  /** Bytes the newline search has looked at, ever: each byte once (the framing tests assert it). */
  bytesScanned = 0;
  /** The unfinished line's bytes so far (once over the limit: only its last bytes), in a buffer grown by doubling. */
  private pending = Buffer.allocUnsafe(0);
  private pendingBytes = 0;
  /** Set once the unfinished line is over the limit: its length so far and its first bytes. */
  private dropping?: { bytes: number; head: Buffer };

  /** May be changed between chunks (stdio serve reads its handshake before the configured limit is known). */
  constructor(public maxLineBytes: number) {}

  /** Feed the next chunk; complete lines go to `sink` in order. */
  push(chunk: Buffer, sink: LineSink): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      this.bytesScanned += (nl === -1 ? chunk.length : nl + 1) - start;
      if (nl === -1) break;
      if (this.pendingBytes === 0 && this.dropping === undefined) this.emit(chunk, start, nl, sink);
      else {
        this.keep(chunk, start, nl);
        const dropping = this.dropping;
        const bytes = dropping?.bytes ?? this.pendingBytes;
        const cr = this.pending[this.pendingBytes - 1] === 13 ? 1 : 0;
        if (dropping) {
          this.dropping = undefined;
          const tail = this.pending.subarray(0, this.pendingBytes - cr);
          sink.oversized(oversized(bytes - cr, dropping.head, tail));
        } else this.emit(this.pending, 0, bytes, sink);
        this.reset();
      }
      start = nl + 1;
    }
    if (start < chunk.length) this.keep(chunk, start, chunk.length);
  }

  /** Forget the unfinished line. */
  clear(): void {
    this.dropping = undefined;
    this.reset();
  }

  /** One complete line in `buf[start, nl)`, a trailing `\r` dropped. */
  private emit(buf: Buffer, start: number, nl: number, sink: LineSink): void {
    const end = nl > start && buf[nl - 1] === 13 ? nl - 1 : nl;
    if (end - start <= this.maxLineBytes) sink.line(buf.toString('utf8', start, end));
    else sink.oversized(oversized(end - start, buf.subarray(start, end), buf.subarray(start, end)));
  }

  /** Add `chunk[start, end)` to the unfinished line; past the limit only the line's first and last bytes are kept. */
  private keep(chunk: Buffer, start: number, end: number): void {
    const length = end - start;
    if (this.dropping) {
      this.dropping.bytes += length;
      // Only the last TAIL_BYTES matter: move them to the front when the buffer fills (each byte moves at most
      // once), or take them from the chunk when it alone is that long.
      if (length >= TAIL_BYTES) {
        chunk.copy(this.pending, 0, end - TAIL_BYTES, end);
        this.pendingBytes = TAIL_BYTES;
        return;
      }
      if (this.pendingBytes + length > this.pending.length) {
        this.pending.copyWithin(0, this.pendingBytes - TAIL_BYTES, this.pendingBytes);
        this.pendingBytes = TAIL_BYTES;
      }
    } else if (this.pendingBytes + length > this.maxLineBytes + 1) {
      // Over the limit even without a trailing `\r`: keep its start, and from now on only its end.
      const line = Buffer.concat([this.pending.subarray(0, this.pendingBytes), chunk.subarray(start, end)]);
      this.dropping = { bytes: line.length, head: Buffer.from(line.subarray(0, OVERSIZED_EDGE_BYTES)) };
      this.pending = Buffer.allocUnsafe(2 * TAIL_BYTES);
      line.copy(this.pending, 0, line.length - TAIL_BYTES);
      this.pendingBytes = TAIL_BYTES;
      return;
    } else if (this.pendingBytes + length > this.pending.length) {
      const grown = Buffer.allocUnsafe(Math.max(KEEP_BYTES, 2 * this.pending.length, this.pendingBytes + length));
      this.pending.copy(grown, 0, 0, this.pendingBytes);
      this.pending = grown;
    }
    chunk.copy(this.pending, this.pendingBytes, start, end);
    this.pendingBytes += length;
  }

  private reset(): void {
    this.pendingBytes = 0;
    if (this.pending.length > KEEP_BYTES) this.pending = Buffer.allocUnsafe(0);
  }
}

function oversized(bytes: number, head: Buffer, tail: Buffer): OversizedLine {
  return {
    bytes,
    head: head.subarray(0, OVERSIZED_EDGE_BYTES).toString('utf8'),
    tail: tail.subarray(Math.max(0, tail.length - OVERSIZED_EDGE_BYTES)).toString('utf8'),
  };
}
