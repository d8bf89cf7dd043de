// Reading the id and method of a message too long to parse, from its two ends.
import { describe, expect, it } from 'vitest';
import { envelopeOf } from '../../src/core/jsonrpc-envelope.ts';

const ends = (text: string, cut = 40) =>
  envelopeOf({ bytes: text.length, head: text.slice(0, cut), tail: text.slice(-cut) });

describe('envelopeOf', () => {
  it('reads the id where the SDKs write it, after params or result', () => {
    const body = `"x":"${'y'.repeat(200)}"`;
    expect(ends(`{"method":"tools/call","params":{${body}},"jsonrpc":"2.0","id":7}`)).toEqual({
      id: 7,
      hasMethod: true,
    });
    expect(ends(`{"result":{${body}},"jsonrpc":"2.0","id":"sb-lane-3"}`)).toEqual({
      id: 'sb-lane-3',
      hasMethod: false,
    });
  });

  it('reads the id written first, and a method written last', () => {
    const body = `"x":"${'y'.repeat(200)}"`;
    expect(ends(`{"jsonrpc":"2.0","id":"a\\"b","params":{${body}},"method":"x"}`)).toEqual({
      id: 'a"b',
      hasMethod: true,
    });
  });

  it('ignores ids inside nested values, fractional ids and a cut-off head', () => {
    const body = `"x":"${'y'.repeat(200)}"`;
    expect(ends(`{"params":{"id":5,${body}},"method":"m"}`)).toEqual({ hasMethod: true });
    expect(ends(`{"method":"m","params":{${body},"more":{"id":6}}}`)).toEqual({ hasMethod: true });
    expect(ends(`{"method":"m","params":{${body}},"id":1.5}`)).toEqual({ hasMethod: true });
    expect(ends(`{"id":`)).toEqual({ hasMethod: false });
  });
});
