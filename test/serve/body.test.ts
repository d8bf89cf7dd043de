// Request body bounds: the size limit (413 before the body is read whole) and the JSON depth limit (checked on
// the raw text before parsing, iteratively, so hostile nesting cannot overflow the stack anywhere later).
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SwitchboardError } from '../../src/core/errors.ts';
import { checkJsonDepth, MAX_JSON_DEPTH, parseJson, readBody } from '../../src/serve/body.ts';

const nestedArrays = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
const nestedObjects = (n: number) => `${'{"a":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`;

/** Reference depth of a parsed value (recursive: only for small test inputs). */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === 'object') return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

function thrown(fn: () => unknown): SwitchboardError {
  try {
    fn();
  } catch (err) {
    return err as SwitchboardError;
  }
  throw new Error('expected a throw');
}

function fakeRequest(chunks: Buffer[], headers: Record<string, string> = {}): IncomingMessage {
  return Object.assign(Readable.from(chunks), { headers }) as unknown as IncomingMessage;
}

describe('checkJsonDepth', () => {
  it('accepts nesting of exactly the limit and refuses one level more, for arrays and objects', () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(checkJsonDepth(nestedArrays(64))).toEqual({ ok: true });
    expect(checkJsonDepth(nestedObjects(64))).toEqual({ ok: true });
    const arrays = checkJsonDepth(nestedArrays(65));
    expect(arrays).toMatchObject({ ok: false, maxDepth: 64, offset: 64 });
    expect(!arrays.ok && arrays.message).toMatch(/^JSON nesting deeper than 64 levels/);
    expect(checkJsonDepth(nestedObjects(65)).ok).toBe(false);
  });

  it('counts mixed arrays and objects and honours a custom limit', () => {
    expect(checkJsonDepth('{"a":[1,{"b":[2]}]}', 4)).toEqual({ ok: true });
    expect(checkJsonDepth('{"a":[1,{"b":[2]}]}', 3)).toMatchObject({ ok: false, maxDepth: 3 });
    // Siblings do not add up: depth is nesting, not the number of containers.
    expect(checkJsonDepth(`[${Array(1000).fill('[[]]').join(',')}]`, 3)).toEqual({ ok: true });
  });

  it('ignores brackets inside strings, including after escaped quotes and backslashes', () => {
    expect(checkJsonDepth('{"a":"[[[[{{{{"}', 1)).toEqual({ ok: true });
    expect(checkJsonDepth('["\\"[[[[", "x"]', 1)).toEqual({ ok: true });
    expect(checkJsonDepth('["\\\\", [[1]]]', 2)).toMatchObject({ ok: false });
    expect(checkJsonDepth('["\\\\", [1]]', 2)).toEqual({ ok: true });
  });

  it('gives the same answer on UTF-8 bytes as on the string, with multi-byte characters around', () => {
    const texts = ['{"ü€😀":["[😀",[["ß"]]]}', `["日本語",${nestedArrays(63)}]`, `["日本語",${nestedArrays(64)}]`];
    expect(texts.map((t) => checkJsonDepth(t).ok)).toEqual([true, true, false]);
    for (const text of texts) {
      // Offsets differ (bytes against UTF-16 units); the verdict may not.
      expect(checkJsonDepth(Buffer.from(text, 'utf8')).ok).toBe(checkJsonDepth(text).ok);
    }
  });

  it('agrees with the parsed depth on random JSON values', () => {
    let seed = 0x5eed;
    const rand = () => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const gen = (budget: number): unknown => {
      const r = rand();
      if (budget <= 0 || r < 0.3) return [1, 'x[{', null, true, '"\\'][Math.floor(rand() * 5)];
      const kids = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => gen(budget - 1));
      return r < 0.65 ? kids : Object.fromEntries(kids.map((k, i) => [`k${i}]"`, k]));
    };
    for (let i = 0; i < 300; i++) {
      const value = gen(8);
      const text = JSON.stringify(value);
      const depth = depthOf(value);
      expect(checkJsonDepth(text, depth).ok).toBe(true);
      if (depth > 0) expect(checkJsonDepth(text, depth - 1).ok).toBe(false);
    }
  });

  it('scans hostile input of a million levels in constant stack and stops at the limit', () => {
    const hostile = '['.repeat(1_000_000);
    const started = performance.now();
    expect(checkJsonDepth(hostile)).toMatchObject({ ok: false, offset: 64 });
    expect(checkJsonDepth(Buffer.from(hostile))).toMatchObject({ ok: false, offset: 64 });
    // A million closing brackets is malformed but shallow: not this check's business, and still no recursion.
    expect(checkJsonDepth(']'.repeat(1_000_000))).toEqual({ ok: true });
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('parseJson', () => {
  it('parses a body, and answers undefined for an empty one', () => {
    expect(parseJson(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}'))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
    });
    expect(parseJson(Buffer.alloc(0))).toBeUndefined();
    expect(parseJson(Buffer.from(nestedArrays(64)))).toEqual(JSON.parse(nestedArrays(64)));
  });

  it('refuses nesting deeper than 64 levels with INVALID_REQUEST before parsing', () => {
    const err = thrown(() => parseJson(Buffer.from(`{"params":${nestedArrays(100_000)}}`)));
    expect(err).toBeInstanceOf(SwitchboardError);
    expect(err.code).toBe('INVALID_REQUEST');
    expect(err.message).toMatch(/^JSON nesting deeper than 64 levels/);
    expect(err.details).toEqual({ maxDepth: 64 });
    expect(thrown(() => parseJson(Buffer.from(nestedArrays(11)), 10)).message).toMatch(/deeper than 10 levels/);
  });

  it('refuses malformed JSON with INVALID_REQUEST naming the parser reason', () => {
    const err = thrown(() => parseJson(Buffer.from('{"jsonrpc": "2.0", ')));
    expect(err.code).toBe('INVALID_REQUEST');
    expect(err.message).toMatch(/^Request body is not valid JSON: /);
  });
});

describe('readBody', () => {
  it('reads a body within the limit', async () => {
    const body = await readBody(fakeRequest([Buffer.from('{"a":'), Buffer.from('1}')]), 100);
    expect(body.toString()).toBe('{"a":1}');
  });

  it('refuses a declared Content-Length over the limit without reading the body', async () => {
    const err = await readBody(fakeRequest([Buffer.from('x')], { 'content-length': '101' }), 100).catch((e) => e);
    expect(err).toBeInstanceOf(SwitchboardError);
    expect(err.code).toBe('PAYLOAD_TOO_LARGE');
    expect(err.details).toEqual({ limit: 100 });
  });

  it('refuses a body that grows past the limit while streaming (no or a lying Content-Length)', async () => {
    const chunks = Array.from({ length: 20 }, () => Buffer.alloc(10, 0x20));
    for (const headers of [{}, { 'content-length': '5' }] as Record<string, string>[]) {
      const err = await readBody(fakeRequest(chunks, headers), 100).catch((e) => e);
      expect(err.code).toBe('PAYLOAD_TOO_LARGE');
    }
  });
});
