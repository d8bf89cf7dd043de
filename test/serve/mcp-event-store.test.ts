// The per-session event store behind resumable SSE streams, and the SEP-2243 header helpers.
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { checkParamHeaders, decodeParamHeader, paramHeadersOf } from '../../src/core/mcp-param-headers.ts';
import { createSessionEventStore } from '../../src/serve/mcp-event-store.ts';

const msg = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: {} }) as JSONRPCMessage;

async function replay(store: ReturnType<typeof createSessionEventStore>, after: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const stream = await store.replayEventsAfter(after, { send: async (id, m) => void sent.push([id, m]) });
  return { stream, sent };
}

describe('session event store', () => {
  it('replays only the later events of the same stream', async () => {
    const store = createSessionEventStore();
    const a1 = await store.storeEvent('a', msg(1));
    await store.storeEvent('b', msg(2));
    const a3 = await store.storeEvent('a', msg(3));
    const { stream, sent } = await replay(store, a1);
    expect(stream).toBe('a');
    expect(sent).toEqual([[a3, msg(3)]]);
    expect(await store.getStreamIdForEventId?.(a3)).toBe('a');
  });

  it('keeps at most maxEvents and refuses to resume from an evicted event', async () => {
    const store = createSessionEventStore(2);
    const first = await store.storeEvent('a', msg(1));
    await store.storeEvent('a', msg(2));
    await store.storeEvent('a', msg(3));
    await expect(replay(store, first)).rejects.toThrow(/unknown or expired/);
  });

  it('drops the oldest events past its byte budget, but keeps the newest', async () => {
    const store = createSessionEventStore(100, 100);
    const big = { jsonrpc: '2.0', id: 9, result: { text: 'x'.repeat(200) } } as JSONRPCMessage;
    const first = await store.storeEvent('a', msg(1));
    const last = await store.storeEvent('a', big);
    await expect(replay(store, first)).rejects.toThrow(/unknown or expired/);
    expect(await store.getStreamIdForEventId?.(last)).toBe('a');
  });
});

describe('Mcp-Param headers (SEP-2243)', () => {
  const schema = {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      nested: { type: 'object', properties: { level: { type: 'integer', 'x-mcp-header': 'Level' } } },
      list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Ignored' } },
    },
  };

  it('finds declarations along properties chains only', () => {
    expect(paramHeadersOf(schema)).toEqual([
      { path: ['region'], header: 'Region', type: 'string' },
      { path: ['nested', 'level'], header: 'Level', type: 'integer' },
    ]);
  });

  it('decodes the base64 sentinel and treats anything else as literal', () => {
    expect(decodeParamHeader('=?base64?SGVsbG8=?=')).toBe('Hello');
    expect(decodeParamHeader('=?base64?SGVsbG8?=')).toBeUndefined();
    expect(decodeParamHeader('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=');
  });

  it('needs a header for a value in the body, compares numbers numerically, ignores absent values', () => {
    const d = paramHeadersOf(schema);
    expect(
      checkParamHeaders(
        d,
        { region: 'eu', nested: { level: 3 } },
        { 'mcp-param-region': 'eu', 'mcp-param-level': '3.0' },
      ),
    ).toEqual({ ok: true });
    expect(checkParamHeaders(d, {}, {})).toEqual({ ok: true });
    expect(checkParamHeaders(d, { region: 'eu' }, {})).toMatchObject({ ok: false, header: 'Mcp-Param-Region' });
    expect(checkParamHeaders(d, { region: 'eu' }, { 'mcp-param-region': 'us' })).toMatchObject({ ok: false });
  });
});
