// The stdio framing both sides share: lines out of chunks of any size, each byte scanned once, lines over the
// limit dropped with their ends kept for an answer.
import { describe, expect, it } from 'vitest';
import { LineSplitter, OVERSIZED_EDGE_BYTES, type OversizedLine } from '../../src/core/line-splitter.ts';

function collect(splitter: LineSplitter, input: Buffer, chunkSize: number) {
  const lines: string[] = [];
  const oversized: OversizedLine[] = [];
  const sink = { line: (l: string) => lines.push(l), oversized: (o: OversizedLine) => oversized.push(o) };
  for (let i = 0; i < input.length; i += chunkSize) splitter.push(input.subarray(i, i + chunkSize), sink);
  return { lines, oversized };
}

describe('LineSplitter', () => {
  it('gives the same lines for every chunk size, with \\r\\n, blank lines and UTF-8 split across chunks', () => {
    const input = Buffer.from('{"a":"é😀"}\r\n\n{"b":2}\nplain text\r\n{"c":"ü"}\npartial');
    for (const size of [1, 2, 3, 5, 64, 65_536]) {
      const { lines, oversized } = collect(new LineSplitter(1024), input, size);
      expect(lines).toEqual(['{"a":"é😀"}', '', '{"b":2}', 'plain text', '{"c":"ü"}']);
      expect(oversized).toEqual([]);
    }
  });

  it('scans each byte once, however a multi-megabyte line is chunked (linear, not quadratic)', () => {
    const long = `{"text":"${'x'.repeat(3 * 1024 * 1024)}"}\n`;
    const input = Buffer.from(`{"first":1}\n${long}{"last":2}\n`);
    for (const size of [1, 7, 1024, 65_536]) {
      const splitter = new LineSplitter(8 * 1024 * 1024);
      const { lines } = collect(splitter, input, size);
      expect(lines.map((l) => l.length)).toEqual([11, long.length - 1, 10]);
      expect(splitter.bytesScanned).toBe(input.length);
    }
  });

  it('drops a line over the limit, keeps its first and last bytes and its size, and goes on with the next', () => {
    const line = `{"method":"tools/call","params":{"x":"${'y'.repeat(100_000)}"},"jsonrpc":"2.0","id":42}`;
    const input = Buffer.from(`${line}\r\n{"next":true}\n`);
    for (const size of [1, 999, 65_536, input.length]) {
      const splitter = new LineSplitter(50_000);
      const { lines, oversized } = collect(splitter, input, size);
      expect(lines).toEqual(['{"next":true}']);
      expect(oversized).toEqual([
        {
          bytes: line.length,
          head: line.slice(0, OVERSIZED_EDGE_BYTES),
          tail: line.slice(line.length - OVERSIZED_EDGE_BYTES),
        },
      ]);
      expect(splitter.bytesScanned).toBe(input.length);
    }
  });

  it('takes a line of exactly the limit, and one byte more is over it', () => {
    const { lines, oversized } = collect(
      new LineSplitter(1024),
      Buffer.from(`${'a'.repeat(1024)}\r\n${'b'.repeat(1025)}\n`),
      100,
    );
    expect(lines).toEqual(['a'.repeat(1024)]);
    expect(oversized.map((o) => o.bytes)).toEqual([1025]);
  });
});
