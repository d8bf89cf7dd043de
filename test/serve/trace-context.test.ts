// One W3C trace through every hop (issue 31 §4, propagation): a caller's `traceparent` — in an MCP call's `_meta`
// (2026-07-28 names the keys) or the HTTP header, on the 2026 wire, a 2025 session and REST — is continued by the
// call and reaches a real upstream server (another Switchboard over HTTP, which records what it received) in the
// same trace with the hub's own span as parent, and a plugin hook's command as TRACEPARENT. A call that brings no
// trace passes none on.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../src/core/capability.ts';
import { parseTraceparent } from '../../src/core/trace-context.ts';
import type { HttpHandle } from '../../src/serve/http.ts';
import { startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { ADMIN, type TestHub } from '../helpers/hub.ts';
import { writePlugin } from '../helpers/plugins.ts';
import { agentHub } from '../sources/agents/agent-hub.ts';
import { type HubPair, hubBehindHub } from '../sources/upstream/helpers.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE}-${CALLER_SPAN}-01`;
/** What a traceparent passed on by the hub looks like: the caller's trace, a span of the hub's own. */
const FROM_HUB = new RegExp(`^00-${TRACE}-(?!${CALLER_SPAN})[0-9a-f]{16}-01$`);

let near: TestHub;
let nearHttp: HttpHandle;
let pair: HubPair;
/** The `_meta` trace keys of each call the upstream received. */
let received: { traceparent?: unknown; tracestate?: unknown }[] = [];

beforeAll(async () => {
  pair = await hubBehindHub({
    setUp: (far) =>
      far.services.registry.add(
        defineCapability({
          name: 'trace.seen',
          description: 'Records the trace keys of the call it received.',
          input: z.object({}),
          handle: (_input, ctx) => {
            received.push({ traceparent: ctx.meta?.traceparent, tracestate: ctx.meta?.tracestate });
            return 'seen';
          },
        }),
      ),
    // It fails on purpose: a failing hook's answer carries what it printed.
    project: (dir) =>
      writePlugin(
        dir,
        'probe',
        'hooks:\n  env: { command: \'echo "traceparent=$TRACEPARENT tracestate=$TRACESTATE"; exit 3\' }\n',
      ),
    tool: 'far__trace__seen',
  });
  ({ near, nearHttp } = pair);
});

afterAll(async () => {
  await pair?.close();
});

beforeEach(() => {
  received = [];
});

const eras = [
  { label: 'the 2026-07-28 wire', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
  { label: 'a 2025-11-25 session', options: {} },
] as const;

for (const era of eras)
  describe(`an MCP client on ${era.label}`, () => {
    let client: Client;
    let transport: StreamableHTTPClientTransport;
    beforeAll(async () => {
      client = new Client({ name: 't', version: '1.0.0' }, era.options as any);
      transport = new StreamableHTTPClientTransport(new URL(`${nearHttp.url}/mcp`));
      await client.connect(transport);
    });
    afterAll(async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    });

    it('continues the traceparent in _meta to the upstream server, with the hub as parent', async () => {
      const result = await client.callTool({
        name: 'far__trace__seen',
        arguments: {},
        _meta: { traceparent: TRACEPARENT, tracestate: 'vendor=1' },
      });
      expect(result.isError).toBeFalsy();
      expect(received).toEqual([{ traceparent: expect.stringMatching(FROM_HUB), tracestate: 'vendor=1' }]);
    });

    it('passes no trace on for a call that brings none', async () => {
      await client.callTool({ name: 'far__trace__seen', arguments: {} });
      expect(received).toEqual([{ traceparent: undefined, tracestate: undefined }]);
    });
  });

describe('HTTP headers', () => {
  it('continue a REST call’s traceparent header to the upstream', async () => {
    const res = await fetch(`${nearHttp.url}/v1/tools/far__trace__seen`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: TRACEPARENT },
      body: '{}',
    });
    expect(res.status).toBe(200);
    expect(received).toEqual([{ traceparent: expect.stringMatching(FROM_HUB), tracestate: undefined }]);
    // The audit record of the call names the trace, so an operator can go from the row to it.
    await near.flush();
    const [row] = await near.services.store.audit.query({ limit: 1 });
    expect(row).toMatchObject({ transport: 'rest', traceId: TRACE });
  });

  it('ignore a malformed traceparent: the call runs, untraced', async () => {
    const res = await fetch(`${nearHttp.url}/v1/tools/far__trace__seen`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: `00-${'0'.repeat(32)}-${CALLER_SPAN}-01` },
      body: '{}',
    });
    expect(res.status).toBe(200);
    expect(received).toEqual([{ traceparent: undefined, tracestate: undefined }]);
  });
});

describe('a plugin hook', () => {
  it('gets the call’s trace as TRACEPARENT and TRACESTATE', async () => {
    const res = await fetch(`${nearHttp.url}/v1/tools/probe__env`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: TRACEPARENT, tracestate: 'vendor=2' },
      body: '{}',
    });
    const output = JSON.stringify(await res.json());
    // The answer quotes the hook's command too; the line it printed is the one with the values in.
    const seen = /traceparent=(00-[0-9a-f-]+) tracestate=([^"\\]*)/.exec(output);
    expect(seen?.[1]).toMatch(FROM_HUB);
    expect(seen?.[2]).toBe('vendor=2');
  });
});

describe("a sub-agent's turn", () => {
  it("carries the call's trace on its model requests (traceparent header), with the call's span as parent", async () => {
    const api = await startFakeAnthropic({ replies: ['traced answer'] });
    const hub = await agentHub({ anthropic: api.url, config: '[agents]\ndefault_provider = "anthropic"' });
    try {
      const out = await hub.pipeline.call({
        principal: ADMIN,
        name: 'agent.start',
        input: { session_name: 'traced', prompt: 'hello' },
        transport: 'cli',
        trace: parseTraceparent(TRACEPARENT, 'vendor=3'),
      });
      expect(out.ok).toBe(true);
      const [request] = api.messages();
      expect(request.headers.traceparent).toMatch(FROM_HUB);
      expect(request.headers.tracestate).toBe('vendor=3');
    } finally {
      await hub.close();
      await api.close();
    }
  });
});
