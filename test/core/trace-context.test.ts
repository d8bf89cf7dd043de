// W3C Trace Context as a call reads it (core/trace-context.ts): what a valid traceparent is, what is ignored, and
// what a call passes on.
import { describe, expect, it } from 'vitest';
import { childSpan, parseTraceparent, traceFields, traceparentOf } from '../../src/core/trace-context.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('parseTraceparent', () => {
  it('reads version 00 with its flags and the tracestate, trimmed', () => {
    expect(parseTraceparent(` 00-${TRACE}-${SPAN}-01 `, ' congo=t61rcWkgMzE ')).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      flags: '01',
      tracestate: 'congo=t61rcWkgMzE',
    });
  });

  it('reads a later version, ignoring the fields it adds', () => {
    expect(parseTraceparent(`cc-${TRACE}-${SPAN}-00-what-comes-next`)).toMatchObject({ traceId: TRACE, flags: '00' });
  });

  it.each([
    ['no value', undefined],
    ['not a string', 42],
    ['version ff', `ff-${TRACE}-${SPAN}-01`],
    ['version 00 with more fields', `00-${TRACE}-${SPAN}-01-extra`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${SPAN}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper-case hex', `00-${TRACE.toUpperCase()}-${SPAN}-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${SPAN}-01`],
    ['over 512 characters', `cc-${TRACE}-${SPAN}-01-${'x'.repeat(600)}`],
  ])('ignores %s', (_what, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });

  it('keeps at most 512 characters of tracestate, and none when empty', () => {
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, 'a=b,'.repeat(200))?.tracestate).toHaveLength(512);
    expect(parseTraceparent(`00-${TRACE}-${SPAN}-01`, '  ')).not.toHaveProperty('tracestate');
  });
});

describe('passing a trace on', () => {
  it('gives a call a span of its own in the same trace, and names it as the parent of what it calls', () => {
    const caller = parseTraceparent(`00-${TRACE}-${SPAN}-01`, 'k=v');
    if (!caller) throw new Error('a valid traceparent');
    const call = childSpan(caller);
    expect(call).toMatchObject({ traceId: TRACE, flags: '01', tracestate: 'k=v' });
    expect(call.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(call.spanId).not.toBe(SPAN);
    expect(traceparentOf(call)).toBe(`00-${TRACE}-${call.spanId}-01`);
    expect(traceFields(call, { parent: 'TRACEPARENT', state: 'TRACESTATE' })).toEqual({
      TRACEPARENT: `00-${TRACE}-${call.spanId}-01`,
      TRACESTATE: 'k=v',
    });
  });
});
