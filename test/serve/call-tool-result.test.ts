// The stdio fast path writes results with callToolResultJson; it must be byte for byte what encoding the
// result object would give, for every kind of outcome.
import { describe, expect, it } from 'vitest';
import { rawResult } from '../../src/core/capability.ts';
import type { Outcome } from '../../src/core/pipeline.ts';
import { callToolResultJson, toCallToolResult } from '../../src/serve/tool-result.ts';

const outcomes: [string, Outcome][] = [
  ['a plain object', { ok: true, value: { text: 'hi', n: 1, nested: { list: [1, 'two', null] } } }],
  ['text needing escapes', { ok: true, value: { text: 'quote " backslash \\ newline \n tab \t emoji 🎛 \u2028' } }],
  ['an object with undefined members', { ok: true, value: { kept: 1, dropped: undefined } }],
  ['a Date inside', { ok: true, value: { at: new Date(0) } }],
  ['an empty object', { ok: true, value: {} }],
  ['a string', { ok: true, value: 'plain text' }],
  ['an array', { ok: true, value: [1, 2] }],
  ['a number', { ok: true, value: 42 }],
  ['nothing', { ok: true, value: undefined }],
  [
    'a raw MCP result',
    {
      ok: true,
      value: { a: 1 },
      raw: rawResult([{ type: 'text', text: 'x' }], { structuredContent: { a: 1 } }),
    },
  ],
  ['a failure', { ok: false, error: { code: 'INVALID_INPUT', message: 'text: expected a string', details: { n: 1 } } }],
];

describe('callToolResultJson', () => {
  for (const [label, outcome] of outcomes) {
    it(`encodes ${label} exactly as JSON.stringify(toCallToolResult(…))`, () => {
      const text = callToolResultJson(outcome);
      expect(text).toBe(JSON.stringify(toCallToolResult(outcome)));
      expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(toCallToolResult(outcome))));
    });
  }

  it('throws on a value JSON cannot encode, as JSON.stringify does (the transport answers -32603)', () => {
    expect(() => callToolResultJson({ ok: true, value: { big: 1n } })).toThrow(/BigInt/);
  });
});
