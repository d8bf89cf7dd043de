// mcpResult / inputRequired: MCP results a handler returns verbatim, and how the pipeline treats them
// when the caller is not an MCP client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability, inputRequired, isRawResult, mcpResult } from '../../src/core/capability.ts';
import { ADMIN, type TestHub, testHub } from '../helpers/hub.ts';

let hub: TestHub;

beforeAll(async () => {
  hub = await testHub();
  hub.services.registry.add(
    defineCapability({
      name: 'm.ask',
      description: 'asks for input unless answered',
      input: z.object({}),
      interactive: true,
      handle: (_i, ctx) =>
        ctx.mcp?.inputResponses?.x ? 'done' : inputRequired({ x: { method: 'roots/list' } }, 'state-1'),
    }),
  );
});
afterAll(() => hub?.close());

describe('mcpResult and inputRequired', () => {
  it('build an input_required result with params defaulted and the state kept', () => {
    const r = inputRequired({ x: { method: 'roots/list' } }, 's');
    expect(isRawResult(r)).toBe(true);
    expect(r.mcp).toEqual({
      resultType: 'input_required',
      inputRequests: { x: { method: 'roots/list', params: {} } },
      requestState: 's',
    });
    expect(r.content).toEqual([]);
    expect(mcpResult({ content: [{ type: 'text', text: 'a' }] }).content).toEqual([{ type: 'text', text: 'a' }]);
  });

  it('fail with UNAVAILABLE for callers that are not MCP clients', async () => {
    const out = await hub.call('m.ask');
    expect(out).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
  });

  it('pass through to MCP callers, and ctx.mcp carries their answers', async () => {
    const first = await hub.pipeline.call({
      principal: ADMIN,
      name: 'm.ask',
      input: {},
      transport: 'http',
      mcp: { era: 'modern' },
    });
    expect(first.ok && first.raw?.mcp?.resultType).toBe('input_required');
    const second = await hub.pipeline.call({
      principal: ADMIN,
      name: 'm.ask',
      input: {},
      transport: 'http',
      mcp: { era: 'modern', inputResponses: { x: { roots: [] } } },
    });
    expect(second).toMatchObject({ ok: true, value: 'done' });
  });
});
