// The one MCP edge (src/serve/mcp-edge.ts), driven over HTTP by the official SDK client and by fetch: on a 2025
// session, on stateless 2026-07-28 HTTP and on REST a call's tool is looked up once (a registry that counts says
// so), whether the edge answers it (a plain call) or leaves it to the SDK's handler (a progress token), which runs
// it through the same `runCall`; and every door gives the same answer for the same call.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../src/core/capability.ts';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';

let hub: TestHub;
let http: HttpHandle;
/** Registry lookups of the probe tool, and what the pipeline was handed, since the last reset. */
let lookups = 0;
let handed: { by: 'edge' | 'sdk'; transport: string; requestId?: string }[] = [];

beforeAll(async () => {
  hub = await testHub();
  const registry = hub.services.registry;
  registry.add(
    defineCapability({
      name: 'probe.echo',
      description: 'Echoes its text with the transport that carried it.',
      input: z.object({ text: z.string() }),
      handle: ({ text }) => ({ text }),
    }),
  );
  const get = registry.get.bind(registry);
  registry.get = (name: string) => {
    if (name === 'probe__echo' || name === 'probe.echo') lookups++;
    return get(name);
  };
  hub.pipeline.use(async (state, next) => {
    if (state.entry.capability.name === 'probe.echo')
      // The SDK's handler hands on its request's abort signal; the edge makes a Cancellation of its own.
      handed.push({
        by: state.req.signal ? 'sdk' : 'edge',
        transport: state.req.transport,
        requestId: state.req.requestId,
      });
    return next();
  });
  http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await http?.close();
  await hub?.close();
});

beforeEach(() => {
  lookups = 0;
  handed = [];
});

const eras = [
  { label: 'a 2025-11-25 session', options: {} },
  { label: 'stateless 2026-07-28 HTTP', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
] as const;

const expected = {
  content: [{ type: 'text', text: '{"text":"hi"}' }],
  structuredContent: { text: 'hi' },
};

for (const era of eras)
  describe(`over ${era.label}`, () => {
    let client: Client;
    let transport: StreamableHTTPClientTransport;
    beforeAll(async () => {
      client = new Client({ name: 't', version: '1.0.0' }, era.options as any);
      transport = new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`));
      await client.connect(transport);
    });
    afterAll(async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    });

    it('answers a plain call at the edge, having looked its tool up once', async () => {
      const result = await client.callTool({ name: 'probe__echo', arguments: { text: 'hi' } });
      expect(result).toMatchObject(expected);
      expect(handed).toEqual([{ by: 'edge', transport: 'http', requestId: expect.any(String) }]);
      expect(lookups).toBe(1);
    });

    it("leaves a call with a progress token to the SDK, whose handler runs it through the edge's runCall", async () => {
      const result = await client.callTool(
        { name: 'probe__echo', arguments: { text: 'hi' } },
        { onprogress: () => {} },
      );
      expect(result).toMatchObject(expected);
      expect(handed).toEqual([{ by: 'sdk', transport: 'http', requestId: expect.any(String) }]);
      expect(lookups).toBe(1);
    });
  });

describe('over REST', () => {
  it('answers as the MCP doors do, its X-Request-Id the request id, the tool looked up once', async () => {
    const res = await fetch(`${http.url}/v1/tools/probe__echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'rest-42' },
      body: JSON.stringify({ text: 'hi' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(expected.structuredContent);
    expect(handed).toEqual([{ by: 'edge', transport: 'rest', requestId: 'rest-42' }]);
    expect(lookups).toBe(1);
  });
});
