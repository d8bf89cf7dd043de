// The MCP-only parts of a call, driven by the official SDK client and raw HTTP: multi-round-trip input
// (ctx.mcp, inputRequired) on both eras, sealed requestState, resumable streams, list_changed on
// subscriptions/listen, SEP-2243 parameter headers, and resource-not-found as a protocol error.

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability, inputRequired } from '../../src/core/capability.ts';
import type { McpCallInfo } from '../../src/core/context.ts';
import { definePrompt } from '../../src/core/resource.ts';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { ASK_NAME, acceptedName } from '../helpers/ask-name.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { rpc2026 as rawRpc2026 } from '../helpers/rpc2026.ts';

let hub: TestHub;
let http: HttpHandle;
const seen: McpCallInfo[] = [];

beforeAll(async () => {
  hub = await testHub();
  const r = hub.services.registry;
  r.add(
    defineCapability({
      name: 'mrtr.greet',
      description: 'Asks for a name through input_required, then greets; keeps state across the round.',
      input: z.object({}),
      interactive: true,
      handle: (_input, ctx) => {
        if (ctx.mcp) seen.push(ctx.mcp);
        const name = acceptedName(ctx);
        if (name && ctx.mcp?.requestState === 'asked-once') return `Hello, ${name}!`;
        return inputRequired({ name: ASK_NAME }, 'asked-once');
      },
    }),
  );
  r.add(
    defineCapability({
      name: 'mrtr.other',
      description: 'Another tool that keeps requestState.',
      input: z.object({}),
      interactive: true,
      handle: (_input, ctx) => (ctx.mcp?.requestState ? 'resumed' : inputRequired({ name: ASK_NAME }, 'other-state')),
    }),
  );
  r.add(
    defineCapability({
      name: 'stream.poll',
      description: 'Closes its response stream before answering (SEP-1699 polling).',
      input: z.object({}),
      handle: async (_input, ctx) => {
        const closable = typeof ctx.mcp?.closeStream === 'function';
        ctx.mcp?.closeStream?.();
        await new Promise((r) => setTimeout(r, 100));
        return { closable };
      },
    }),
  );
  r.add(
    defineCapability({
      name: 'hdr.region',
      description: 'Has a parameter mirrored into a header.',
      input: z.object({ region: z.string().optional() }),
      inputJsonSchema: {
        type: 'object',
        properties: { region: { type: 'string', 'x-mcp-header': 'Region' } },
      },
      handle: ({ region }) => `region=${region}`,
    }),
  );
  r.addPrompt(
    definePrompt({
      name: 'mrtr_prompt',
      description: 'Asks for a name before rendering.',
      get: (_args, ctx) => {
        const answer = ctx.mcp?.inputResponses?.name as { content?: { name?: string } } | undefined;
        if (!answer?.content?.name) return inputRequired({ name: ASK_NAME });
        return { messages: [{ role: 'user', content: { type: 'text', text: `Name: ${answer.content.name}` } }] };
      },
    }),
  );
  http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await http?.close();
  await hub?.close();
});

function client2025(): Client {
  const client = new Client({ name: 't-2025', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } }));
  return client;
}

function client2026(): Client {
  const client = new Client(
    { name: 't-2026', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Grace' } }));
  return client;
}

const text = (result: { content?: unknown }) => (result.content as { text: string }[])[0]?.text;

/** One raw 2026-07-28 request to this file's server. */
const rpc2026 = (method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  rawRpc2026(http.url, method, params, headers);

describe('multi-round-trip input (inputRequired, ctx.mcp)', () => {
  it('is fulfilled by a 2026-07-28 client and retried with inputResponses and the requestState', async () => {
    const client = client2026();
    await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`)));
    const result = await client.callTool({ name: 'mrtr__greet', arguments: {} });
    expect(text(result)).toBe('Hello, Grace!');
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ era: 'modern', protocolVersion: '2026-07-28', requestState: 'asked-once' });
    expect(last.clientCapabilities).toHaveProperty('elicitation');
    await client.close();
  });

  it('is fulfilled on a 2025 session by server-to-client requests, re-running the handler', async () => {
    const client = client2025();
    const transport = new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`));
    await client.connect(transport);
    const result = await client.callTool({ name: 'mrtr__greet', arguments: {} });
    expect(text(result)).toBe('Hello, Ada!');
    expect(seen.at(-1)).toMatchObject({ era: 'legacy', requestState: 'asked-once' });
    await transport.terminateSession();
    await client.close();
  });

  it('works for prompts/get too', async () => {
    const client = client2026();
    await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`)));
    const result = await client.getPrompt({ name: 'mrtr_prompt' });
    expect(result.messages[0].content).toMatchObject({ text: 'Name: Grace' });
    await client.close();
  });

  it('seals requestState on the wire and refuses a tampered one with -32602 before the handler runs', async () => {
    const first = await rpc2026('tools/call', { name: 'mrtr__greet', arguments: {} });
    const result = first.message.result;
    expect(result.resultType).toBe('input_required');
    expect(result.requestState).not.toBe('asked-once');
    const before = seen.length;
    const tampered = await rpc2026('tools/call', {
      name: 'mrtr__greet',
      arguments: {},
      inputResponses: { name: { action: 'accept', content: { name: 'Eve' } } },
      requestState: `${result.requestState}x`,
    });
    expect(tampered.message.error.code).toBe(-32602);
    expect(seen.length).toBe(before);
  });

  it('refuses a requestState minted by another tool', async () => {
    const first = await rpc2026('tools/call', { name: 'mrtr__greet', arguments: {} });
    const replayed = await rpc2026('tools/call', {
      name: 'mrtr__other',
      arguments: {},
      inputResponses: { name: { action: 'accept', content: { name: 'Eve' } } },
      requestState: first.message.result.requestState,
    });
    expect(replayed.message.error.code).toBe(-32602);
  });

  it('fails with UNAVAILABLE where no MCP client can answer (REST)', async () => {
    const res = await fetch(`${http.url}/v1/tools/mrtr__greet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe('UNAVAILABLE');
  });
});

describe('resumable 2025 streams (SEP-1699)', () => {
  it('lets a handler close its stream; the client resumes with Last-Event-ID and gets the result', async () => {
    const client = client2025();
    const transport = new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`));
    await client.connect(transport);
    const result = await client.callTool({ name: 'stream__poll', arguments: {} });
    expect(result.structuredContent).toEqual({ closable: true });
    await transport.terminateSession();
    await client.close();
  });

  it('answers 404 to a terminated session', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`));
    const client = client2025();
    await client.connect(transport);
    const sid = transport.sessionId!;
    await transport.terminateSession();
    const res = await fetch(`${http.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sid,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
    await client.close();
  });
});

describe('2026-07-28 serving', () => {
  it('delivers tools/list_changed to a subscriptions/listen stream when the registry changes', async () => {
    const client = client2026();
    await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`)));
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler('notifications/tools/list_changed', async () => resolve()),
    );
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });
    hub.services.registry.add(
      defineCapability({ name: 'late.tool', description: 'Added later.', input: z.object({}), handle: () => 'ok' }),
    );
    await changed;
    await subscription.close();
    await client.close();
  });

  it('answers an unknown resource with -32602 and data.uri', async () => {
    const { message } = await rpc2026('resources/read', { uri: 'test://nope' });
    expect(message.error).toMatchObject({ code: -32602, data: { uri: 'test://nope' } });
  });

  it('adds caching hints to list results', async () => {
    const { message } = await rpc2026('tools/list');
    expect(message.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });

  it('checks Mcp-Param headers against the arguments they mirror (SEP-2243)', async () => {
    const call = (header?: string) =>
      rpc2026(
        'tools/call',
        { name: 'hdr__region', arguments: { region: 'eu' } },
        header === undefined ? {} : { 'mcp-param-region': header },
      );
    expect((await call('eu')).message.result.content[0].text).toBe('region=eu');
    expect((await call(`=?base64?${Buffer.from('eu').toString('base64')}?=`)).status).toBe(200);
    const missing = await call();
    expect(missing.status).toBe(400);
    expect(missing.message.error.code).toBe(-32020);
    expect((await call('us')).message.error.code).toBe(-32020);
    expect((await call('=?base64?ZX!?=')).status).toBe(400);
  });
});
