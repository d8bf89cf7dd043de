// End-to-end: `serve --http` as a child process, driven by the official SDK client over Streamable HTTP
// (2025-11-25 with a session, and 2026-07-28 stateless), plus the HTTP guards.
import { type IncomingMessage, request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServerProcess, startHttpServer, tempProject } from '../helpers/cli.ts';
import { callWithProgress } from '../helpers/progress.ts';
import { until } from '../helpers/until.ts';

let server: HttpServerProcess;

beforeAll(async () => {
  server = await startHttpServer(tempProject());
});
afterAll(async () => {
  await server?.stop();
});

describe('Streamable HTTP as a 2025-11-25 client (session)', () => {
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  beforeAll(async () => {
    client = new Client(
      { name: 'e2e-2025', version: '1.0.0' },
      { capabilities: { sampling: {}, elicitation: { form: {} } } },
    );
    client.setRequestHandler('sampling/createMessage', async (request) => ({
      role: 'assistant',
      model: 'fake-model',
      content: { type: 'text', text: `sampled: ${(request.params.messages[0].content as { text: string }).text}` },
    }));
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } }));
    transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
    await client.connect(transport);
  });
  afterAll(async () => {
    await transport?.terminateSession().catch(() => {});
    await client?.close();
  });

  it('holds a session and a 2025 protocol version', () => {
    expect(transport.sessionId).toBeTruthy();
    expect(client.getProtocolEra()).toBe('legacy');
  });

  it('lists and calls tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('task__create');
    const result = await client.callTool({ name: 'fixture__echo', arguments: { text: 'hi' } });
    expect(result.structuredContent).toEqual({ text: 'hi' });
  });

  it('lets a handler ask the client to sample (server-to-client request)', async () => {
    const result = await client.callTool({ name: 'fixture__sample', arguments: { prompt: 'two plus two' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ answer: 'sampled: two plus two' });
  });

  it('lets a handler elicit input from the user', async () => {
    const result = await client.callTool({ name: 'fixture__elicit', arguments: {} });
    expect(result.structuredContent).toEqual({ action: 'accept', name: 'Ada' });
  });

  it('forwards progress notifications', async () => {
    const { result, steps } = await callWithProgress(client, 'fixture__progress', { steps: 3 });
    expect(result.isError).toBeFalsy();
    expect(steps).toEqual([1, 2, 3]);
  });

  it('times out a slow handler with a clear error', async () => {
    const result = await client.callTool({ name: 'fixture__slow', arguments: { ms: 10_000 } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0].text).toMatch(/timed out after 2000 ms/);
  });
});

describe('Streamable HTTP: cancelling a call in a 2025-11-25 session (raw HTTP)', () => {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let session: Record<string, string>;
  const post = (message: object) =>
    fetch(`${server.url}/mcp`, { method: 'POST', headers: session, body: JSON.stringify(message) });

  beforeAll(async () => {
    const init = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    await init.text();
    session = {
      ...headers,
      'mcp-session-id': init.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-11-25',
    };
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
  });
  afterAll(async () => {
    await fetch(`${server.url}/mcp`, { method: 'DELETE', headers: session });
  });

  it('ends the POST stream of a cancelled call, and the session goes on', async () => {
    const url = new URL(server.url);
    // The call's SSE stream, read with node:http to see exactly when it ends.
    const stream = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: session },
        resolve,
      );
      req.on('error', reject);
      req.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'slow-1',
          method: 'tools/call',
          params: { name: 'fixture__slow', arguments: { ms: 60_000 } },
        }),
      );
    });
    expect(stream.headers['content-type']).toContain('text/event-stream');
    let received = '';
    stream.setEncoding('utf8');
    const ended = new Promise<'ended'>((resolve) => stream.on('end', () => resolve('ended')));
    // The priming event is written once the server has taken the request in: now it can be cancelled.
    await new Promise<void>((resolve) =>
      stream.on('data', (chunk: string) => {
        received += chunk;
        resolve();
      }),
    );
    const cancelled = await post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'slow-1', reason: 'test' },
    });
    expect(cancelled.status).toBe(202);
    // Bounded: without the fix the stream stays open (keep-alives every 15 s) until the session is deleted.
    const outcome = await Promise.race([ended, new Promise<'open'>((r) => setTimeout(() => r('open'), 5_000).unref())]);
    expect(outcome).toBe('ended');
    // No response for the cancelled request (the spec says not to send one).
    expect(received).not.toContain('"id":"slow-1"');

    const next = await post({
      jsonrpc: '2.0',
      id: 'after',
      method: 'tools/call',
      params: { name: 'fixture__echo', arguments: { text: 'still here' } },
    });
    expect(next.status).toBe(200);
    expect(await next.text()).toContain('"structuredContent":{"text":"still here"}');
  });
});

describe('Streamable HTTP as a 2026-07-28 client (stateless)', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client(
      { name: 'e2e-2026', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('negotiates the modern era', () => {
    expect(client.getProtocolEra()).toBe('modern');
  });

  it('lists and calls tools through the same pipeline', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['task__create', 'system__health', 'fixture__echo']),
    );
    const created = await client.callTool({ name: 'task__create', arguments: { text: 'from 2026' } });
    const id = (created.structuredContent as { id: string }).id;
    const got = await client.callTool({ name: 'task__get', arguments: { id } });
    expect(got.structuredContent).toMatchObject({ id, text: 'from 2026', priority: 50 });
  });

  it('answers invalid input with isError naming the field', async () => {
    const result = await client.callTool({ name: 'fixture__echo', arguments: { text: 42 } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0].text).toMatch(/text/);
  });
});

describe('HTTP guards and probes', () => {
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });

  it('refuses a foreign Host header (DNS rebinding) with 403, on MCP and REST alike', async () => {
    // fetch() cannot override Host, so this goes through node:http.
    const status = (path: string, method: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(server.url);
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path,
            method,
            headers: { host: 'evil.example.com', 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(method === 'POST' ? '{}' : undefined);
      });
    expect(await status('/v1/tools', 'GET')).toBe(403);
    expect(await status('/mcp', 'POST')).toBe(403);
    expect(await status('/healthz', 'GET')).toBe(403);
  });

  it('refuses a foreign Origin with 403, in the JSON-RPC shape on /mcp and the REST shape on /v1', async () => {
    const res = await post('/mcp', '{}', { origin: 'https://evil.example.com' });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe(-32000);
    const rest = await post('/v1/tools/fixture__echo', '{"text":"x"}', { origin: 'https://evil.example.com' });
    expect(rest.status).toBe(403);
    expect((await rest.json()).error.code).toBe('FORBIDDEN');
  });

  it('accepts a local browser Origin on any port', async () => {
    const res = await post('/v1/tools/fixture__echo', '{"text":"x"}', { origin: 'http://localhost:5173' });
    expect(res.status).toBe(200);
  });

  it('refuses an oversized body with 413', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { pad: 'x'.repeat(5 * 1024 * 1024) },
    });
    const res = await post('/mcp', big);
    expect(res.status).toBe(413);
    const rest = await post('/v1/tools/fixture__echo', big);
    expect(rest.status).toBe(413);
    expect((await rest.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers malformed JSON on /mcp with a JSON-RPC parse error', async () => {
    const res = await post('/mcp', '{"jsonrpc": "2.0", ');
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe(-32700);
  });

  it('lets an in-flight call finish when the server is asked to stop', async () => {
    const own = await startHttpServer(tempProject());
    const pending = fetch(`${own.url}/v1/tools/fixture__slow`, { method: 'POST', body: JSON.stringify({ ms: 600 }) });
    // Stop only once the call is running (the in-flight gauge shows it), however slowly it got there.
    const slowInFlight = /switchboard_calls_in_flight\{[^}]*fixture\.slow[^}]*\} 1\b/;
    await until(async () => slowInFlight.test(await (await fetch(`${own.url}/metrics`)).text()), {
      what: 'the slow call in flight',
    });
    const stopped = own.stop();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ waited: 600 });
    await stopped;
  });

  it('answers odd request targets with 4xx in the REST error shape, logging no error', async () => {
    // fetch() normalises targets, so these go through node:http as written.
    const send = (path: string, method = 'GET', host?: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const url = new URL(server.url);
        const req = request(
          { host: url.hostname, port: url.port, path, method, headers: host ? { host } : {} },
          (res) => {
            let body = '';
            res.setEncoding('utf8').on('data', (d: string) => {
              body += d;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
    const errorCode = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;
    const before = server.stderr().length;

    for (const path of ['//', '//x', '//x/healthz', '/nope/../../x']) {
      const res = await send(path);
      expect(res.status, path).toBe(404);
      expect(errorCode(res.body)).toBe('NOT_FOUND');
    }
    // '//x/mcp' is the path //x/mcp, not host x and path /mcp.
    expect(JSON.parse((await send('//x/mcp')).body).error.message).toContain('No route GET //x/mcp.');
    const star = await send('*', 'OPTIONS');
    expect(star.status).toBe(400);
    expect(errorCode(star.body)).toBe('INVALID_REQUEST');
    // Absolute-form: its host is checked like the Host header, and a good one is served.
    const evil = await send('http://evil.example.com/healthz');
    expect(evil.status).toBe(403);
    expect(errorCode(evil.body)).toBe('FORBIDDEN');
    expect((await send(`${server.url}/healthz`)).status).toBe(200);
    const long = await send(`/${'a'.repeat(8_000)}`);
    expect(long.status).toBe(404);
    expect(long.body.length).toBeLessThan(1_000);
    expect(server.stderr().slice(before)).not.toMatch(/"level":(50|60)/);
  });

  it('serves /healthz and /readyz', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', store: 'sqlite' });
  });
});
