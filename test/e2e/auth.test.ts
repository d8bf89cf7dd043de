import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  childEnv,
  createToken,
  FIXTURE_HANDLERS,
  type HttpServerProcess,
  runCli,
  startHttpServer,
  tempProject,
} from '../helpers/cli.ts';
import { until } from '../helpers/until.ts';

const cli = (dir: string, args: string[], env: Record<string, string> = {}) => runCli(dir, args, { env });

describe('tokens and HTTP authentication', () => {
  const dir = tempProject();
  let server: HttpServerProcess;
  let agent: string;
  let admin: string;

  beforeAll(async () => {
    mkdirSync(join(dir, '.switchboard'));
    writeFileSync(
      join(dir, '.switchboard/config.toml'),
      '[policy.capabilities."fixture.echo".rate_limit]\nlimit = 3\nwindow_ms = 60000\n[policy.tokens.narrow.expose]\nallow = ["task.*"]\n',
    );
    agent = await createToken(dir, 'agent-1', 'agent');
    admin = await createToken(dir, 'ops', 'admin,agent');
    server = await startHttpServer(dir);
  });
  afterAll(() => server?.stop());

  const get = (path: string, token?: string) =>
    fetch(`${server.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const post = (path: string, body: unknown, token?: string) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });

  it('prints the secret once and stores only its hash', async () => {
    const list = await cli(dir, ['token', 'list', '--json']);
    const tokens = JSON.parse(list.stdout);
    expect(tokens.map((t: { name: string }) => t.name)).toEqual(['agent-1', 'ops']);
    expect(list.stdout).not.toContain(agent);
    const db = readFileSync(join(dir, '.switchboard/state.db'));
    expect(db.includes(Buffer.from(agent))).toBe(false);
    const dup = await cli(dir, ['token', 'create', 'ops', '--roles', 'agent']);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain("Token 'ops' already exists; revoke it first with: switchboard token revoke ops");
    const noRoles = await cli(dir, ['token', 'create', 'x']);
    expect(noRoles.code).toBe(2);
    expect(noRoles.stderr).toMatch(/--roles is required/);
    const reserved = await cli(dir, ['token', 'create', 'stdio', '--roles', 'agent']);
    expect(reserved.code).toBe(2);
    expect(reserved.stderr).toMatch(/built-in caller/);
    expect(statSync(join(dir, '.switchboard/state.db')).mode & 0o777).toBe(0o600);
    const badExpiry = await cli(dir, ['token', 'create', 'y', '--roles', 'agent', '--expires', 'soon']);
    expect(badExpiry.code).toBe(2);
    expect(badExpiry.stderr).toMatch(/--expires must look like 30d/);
  });

  it('answers 401 with WWW-Authenticate without a valid token, on REST and MCP', async () => {
    const none = await get('/v1/tools');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm="switchboard"/);
    const bad = await get('/v1/tools', 'sb_not-a-real-token');
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/invalid_token/);
    const mcp = await post('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(mcp.status).toBe(401);
    expect((await get('/healthz')).status).toBe(200);
  });

  it('serves a valid token, and hides what its roles do not allow exactly like an unknown tool', async () => {
    const tools = (await (await get('/v1/tools', agent)).json()).tools.map((t: { name: string }) => t.name);
    expect(tools).toContain('task__create');
    expect(tools).not.toContain('system__config');
    const hidden = await post('/v1/tools/system__config', { action: 'get' }, agent);
    const unknown = await post('/v1/tools/nope__none', {}, agent);
    expect(hidden.status).toBe(404);
    expect((await hidden.json()).error.message).toBe(
      "Unknown tool 'system__config'. List the available tools with tools/list (or GET /v1/tools).",
    );
    expect(unknown.status).toBe(404);
    const adminTools = (await (await get('/v1/tools', admin)).json()).tools.map((t: { name: string }) => t.name);
    expect(adminTools).toContain('system__config');

    const client = new Client({ name: 'auth-e2e', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agent}` } },
      }),
    );
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).not.toContain('system__config');
    const call = await client.callTool({ name: 'system__config', arguments: { action: 'get' } });
    expect(call.isError).toBe(true);
    expect((call.content as { text: string }[])[0].text).toMatch(/Unknown tool 'system__config'/);
    const welcome = await client.readResource({ uri: 'switchboard://welcome' });
    expect((welcome.contents[0] as { text: string }).text).not.toContain('system__config');
    await client.close();
  });

  it('answers 403 for a valid token without the role an operator view needs', async () => {
    expect((await get('/metrics', agent)).status).toBe(403);
    expect((await get('/v1/events', agent)).status).toBe(403);
    expect((await post('/v1/tools/task__create', { text: 'measured' }, agent)).status).toBe(200);
    const metrics = await get('/metrics', admin);
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toMatch(/switchboard_calls_total\{capability="task\.create",transport="rest",outcome="ok"\} 1/);
    expect(text).toContain('switchboard_call_duration_seconds_bucket');
    expect(text).toMatch(/switchboard_breaker_state\{capability="task\.create"\} 0/);
    // The process's own metrics, collected from the HTTP server's start.
    expect(text).toMatch(/switchboard_process_resident_memory_bytes \d+/);
    expect(text).toContain('switchboard_nodejs_eventloop_lag_seconds');
  });

  it('rate-limits per principal × capability: 429 with Retry-After on REST, isError with retryAfterMs on MCP', async () => {
    for (let i = 0; i < 3; i++) expect((await post('/v1/tools/fixture__echo', { text: 'x' }, agent)).status).toBe(200);
    const limited = await post('/v1/tools/fixture__echo', { text: 'x' }, agent);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await limited.json()).error).toMatchObject({
      code: 'RATE_LIMITED',
      details: { retryAfterMs: expect.any(Number) },
    });
    const client = new Client(
      { name: 'auth-e2e', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agent}` } },
      }),
    );
    const result = await client.callTool({ name: 'fixture__echo', arguments: { text: 'x' } });
    expect(result.isError).toBe(true);
    expect(result._meta?.['switchboard/error']).toMatchObject({
      code: 'RATE_LIMITED',
      details: { retryAfterMs: expect.any(Number) },
    });
    await client.close();
    expect((await post('/v1/tools/fixture__echo', { text: 'x' }, admin)).status).toBe(200);
  });

  it('refuses a revoked token at once', async () => {
    const temp = await createToken(dir, 'temp', 'agent');
    expect((await get('/v1/tools', temp)).status).toBe(200);
    expect((await cli(dir, ['token', 'revoke', 'temp'])).code).toBe(0);
    expect((await get('/v1/tools', temp)).status).toBe(401);
    const again = await cli(dir, ['token', 'revoke', 'temp']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/No token named 'temp'/);
  });

  it('refuses an expired token', async () => {
    const short = await createToken(dir, 'short', 'agent', ['--expires', '1s']);
    // The server (a child process) reads its own clock: poll until the second has passed there.
    await until(async () => (await get('/v1/tools', short)).status === 401, { timeoutMs: 5_000, what: 'a 401' });
  });

  it('applies a per-token exposure filter from config', async () => {
    const narrow = await createToken(dir, 'narrow', 'agent');
    const tools = (await (await get('/v1/tools', narrow)).json()).tools.map((t: { name: string }) => t.name);
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.every((t: string) => t.startsWith('task__'))).toBe(true);
    expect((await post('/v1/tools/fixture__echo', { text: 'x' }, narrow)).status).toBe(404);
  });

  it('records every call in the audit trail, readable with `switchboard audit`', async () => {
    await post('/v1/tools/task__create', { text: 'audited', metadata: { apiKey: 'very-secret' } }, agent);
    // The audit writer thread stores the call in its next batch: read until it is there.
    const records = await until(
      async () => {
        const out = await cli(dir, ['audit', '--principal', 'agent-1', '--tool', 'task__create', '--json']);
        expect(out.code).toBe(0);
        const rows = JSON.parse(out.stdout);
        return rows.some((r: { input?: string }) => String(r.input).includes('audited')) && rows;
      },
      { what: "the 'audited' call in the audit trail" },
    );
    expect(records[0]).toMatchObject({
      principal: 'agent-1',
      transport: 'rest',
      capability: 'task.create',
      outcome: 'ok',
    });
    expect(records[0].input).toContain('audited');
    expect(records[0].input).not.toContain('very-secret');
    const limited = await cli(dir, ['audit', '--outcome', 'error', '--since', '1h', '--json']);
    expect(JSON.parse(limited.stdout).map((r: { errorCode: string }) => r.errorCode)).toContain('RATE_LIMITED');
    // Probing for hidden tools is recorded too.
    const probes = JSON.parse(
      (await cli(dir, ['audit', '--principal', 'agent-1', '--tool', 'system__config', '--json'])).stdout,
    );
    expect(
      probes.every((r: { outcome: string; errorCode: string }) => r.outcome === 'error' && r.errorCode === 'NOT_FOUND'),
    ).toBe(true);
    expect(probes.map((r: { transport: string }) => r.transport).sort()).toEqual(['http', 'rest']);
    const bad = await cli(dir, ['audit', '--since', 'yesterday-ish']);
    expect(bad.code).toBe(2);
  });

  it("keeps a traced call's W3C trace id in its audit record (the writer thread's), shown by `switchboard audit`", async () => {
    const trace = '0af7651916cd43dd8448eb211c80319c';
    await fetch(`${server.url}/v1/tools/task__create`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${agent}`,
        traceparent: `00-${trace}-b7ad6b7169203331-01`,
      },
      body: JSON.stringify({ text: 'traced' }),
    });
    const records = await until(
      async () => {
        const rows = JSON.parse((await cli(dir, ['audit', '--tool', 'task__create', '--json'])).stdout);
        return rows.some((r: { input?: string }) => String(r.input).includes('traced')) && rows;
      },
      { what: "the 'traced' call in the audit trail" },
    );
    expect(records.find((r: { input: string }) => r.input.includes('traced'))).toMatchObject({ traceId: trace });
    expect(records.find((r: { input: string }) => r.input.includes('audited'))).not.toHaveProperty('traceId');
    const table = await cli(dir, ['audit', '--tool', 'task__create']);
    expect(table.stdout).toContain('trace');
    expect(table.stdout).toContain(trace);
  });

  it('shows per-capability stats of the running server', async () => {
    const out = await cli(dir, ['stats', '--url', server.url, '--token', admin, '--json']);
    expect(out.code).toBe(0);
    const data = JSON.parse(out.stdout);
    expect(data.capabilities['fixture.echo'].transports.rest.calls).toBeGreaterThanOrEqual(3);
    const table = await cli(dir, ['stats', '--url', server.url], { SWITCHBOARD_TOKEN: admin });
    expect(table.stdout).toContain('fixture.echo');
  });
});

describe('binding and exposure', () => {
  it('refuses a non-loopback bind without tokens and allows it with one', async () => {
    const dir = tempProject();
    const refused = await cli(dir, ['serve', '--http', '--host', '0.0.0.0', '--port', '0']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Refusing to bind 0\.0\.0\.0.*token/);
    const token = await createToken(dir, 'remote', 'agent');
    const server = await startHttpServer(dir, ['--host', '0.0.0.0']);
    try {
      const url = server.url.replace('0.0.0.0', '127.0.0.1');
      expect((await fetch(`${url}/v1/tools`)).status).toBe(401);
      expect((await fetch(`${url}/v1/tools`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('serve --only/--except filter what every caller sees, over stdio too; [stdio] roles narrow stdio', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.switchboard'));
    writeFileSync(join(dir, '.switchboard/config.toml'), '[stdio]\nroles = ["agent"]\n');
    const client = new Client({ name: 'only', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          BIN,
          '--cwd',
          dir,
          'serve',
          '--handlers',
          FIXTURE_HANDLERS,
          '--only',
          'task.*',
          'system.*',
          '--except',
          'task.fail',
        ],
        env: childEnv(dir),
      }),
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('task__create');
    expect(names).toContain('system__health');
    expect(names).not.toContain('task__fail');
    expect(names).not.toContain('fixture__echo');
    expect(names).not.toContain('system__config');
    await client.close();
  });

  it('applies [expose], rate limits and the audit trail to stdio callers too', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, '.switchboard'));
    writeFileSync(
      join(dir, '.switchboard/config.toml'),
      '[expose]\ndeny = ["fixture.boom", "fixture.spawn_tree"]\n[policy.capabilities."fixture.echo".rate_limit]\nlimit = 2\nwindow_ms = 60000\n',
    );
    const client = new Client({ name: 'stdio-policy', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, '--cwd', dir, 'serve', '--handlers', FIXTURE_HANDLERS],
        env: childEnv(dir),
      }),
    );
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('fixture__echo');
    expect(names).not.toContain('fixture__boom');
    const hidden = await client.callTool({ name: 'fixture__boom', arguments: {} });
    expect((hidden.content as { text: string }[])[0].text).toMatch(/Unknown tool 'fixture__boom'/);
    for (let i = 0; i < 2; i++)
      expect((await client.callTool({ name: 'fixture__echo', arguments: { text: 'x' } })).isError).toBeFalsy();
    const limited = await client.callTool({ name: 'fixture__echo', arguments: { text: 'x' } });
    expect(limited.isError).toBe(true);
    expect(limited._meta?.['switchboard/error']).toMatchObject({
      code: 'RATE_LIMITED',
      details: { retryAfterMs: expect.any(Number) },
    });
    await client.close();
    const records = JSON.parse((await cli(dir, ['audit', '--principal', 'stdio', '--json'])).stdout);
    expect(
      records
        .map((r: { capability: string; errorCode: string | null }) => `${r.capability}:${r.errorCode ?? 'ok'}`)
        .sort(),
    ).toEqual(['fixture.boom:NOT_FOUND', 'fixture.echo:RATE_LIMITED', 'fixture.echo:ok', 'fixture.echo:ok'].sort());
    expect(records.every((r: { transport: string }) => r.transport === 'stdio')).toBe(true);
  });
});
