// Catalog search over every transport, against real child processes: with `[catalog] exposure = "search"` the
// list is the pinned tools and the four catalog tools; search, describe and call reach the rest through the one
// pipeline (the audit trail and the metrics name the real tool); a tool hidden by roles is never found, described
// or called. Stdio (SDK client), Streamable HTTP as a 2025-11-25 session and as a 2026-07-28 client, and REST.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectStdio,
  FIXTURE_HANDLERS,
  type HttpServerProcess,
  runCli,
  startHttpServer,
  tempProject,
} from '../helpers/cli.ts';
import { rpc2026 } from '../helpers/rpc2026.ts';
import { until } from '../helpers/until.ts';

const LISTED = ['catalog__call', 'catalog__describe', 'catalog__run', 'catalog__search', 'system__health'];

/** A project in search exposure with `system.health` pinned; `handlers`: with the fixture handlers in its config. */
function searchProject(handlers: boolean): string {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'));
  const paths = handlers ? `[handlers]\npaths = [${JSON.stringify(FIXTURE_HANDLERS)}]\n` : '';
  writeFileSync(
    join(dir, '.switchboard/config.toml'),
    `[catalog]\nexposure = "search"\npin = ["system.health"]\n${paths}`,
  );
  return dir;
}

const texts = (result: { content?: unknown }) => (result.content as { text: string }[]).map((c) => c.text).join('\n');

async function createToken(dir: string, name: string, roles: string): Promise<string> {
  const out = await runCli(dir, ['token', 'create', name, '--roles', roles, '--json']);
  expect(out.code).toBe(0);
  return JSON.parse(out.stdout).token;
}

/** The audit records of `capability`, once there are `n` of them (the server writes them in batches). */
async function audited(dir: string, capability: string, n: number): Promise<any[]> {
  return until(
    async () => {
      const out = await runCli(dir, ['audit', '--json', '--tool', capability]);
      const records = out.code === 0 ? JSON.parse(out.stdout) : [];
      return records.length >= n && records;
    },
    { what: `${n} audit records of ${capability}` },
  );
}

describe('catalog search over stdio', () => {
  const dir = searchProject(true);
  let client: Client;
  beforeAll(async () => {
    ({ client } = await connectStdio(dir));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists only the pinned tools and the four catalog tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(LISTED);
    const search = tools.find((t) => t.name === 'catalog__search');
    expect(search?.inputSchema.required).toEqual(['query']);
  });

  it('finds, describes and calls a tool; audit and metrics name the real tool', async () => {
    const found = await client.callTool({ name: 'catalog__search', arguments: { query: 'echo the text back' } });
    const hits = (found.structuredContent as { tools: { name: string; why: string; description: string }[] }).tools;
    expect(hits[0]).toMatchObject({ name: 'fixture__echo', why: expect.stringContaining('echo') });
    expect(hits[0].description).not.toContain('\n');

    const described = await client.callTool({ name: 'catalog__describe', arguments: { name: hits[0].name } });
    expect(described.structuredContent).toMatchObject({
      name: 'fixture__echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      outputSchema: { type: 'object' },
    });

    const called = await client.callTool({
      name: 'catalog__call',
      arguments: { name: 'fixture__echo', arguments: { text: 'via the catalog' } },
    });
    const direct = await client.callTool({ name: 'fixture__echo', arguments: { text: 'via the catalog' } });
    expect(called).toEqual(direct);

    // Invalid arguments are the tool's own validation error, naming its field.
    const invalid = await client.callTool({
      name: 'catalog__call',
      arguments: { name: 'fixture__echo', arguments: { text: 42 } },
    });
    expect(invalid.isError).toBe(true);
    expect(texts(invalid)).toMatch(/Invalid input for fixture__echo: text/);

    const metrics = await client.callTool({ name: 'catalog__call', arguments: { name: 'system.metrics' } });
    const byCapability = (metrics.structuredContent as { capabilities: Record<string, { calls: number }> })
      .capabilities;
    expect(byCapability['fixture.echo'].calls).toBe(3);
    expect(byCapability['catalog.call']).toBeUndefined();

    const records = await audited(dir, 'fixture.echo', 3);
    expect(records.map((r) => r.outcome).sort()).toEqual(['error', 'ok', 'ok']);
    const meta = await runCli(dir, ['audit', '--json', '--tool', 'catalog.call']);
    expect(JSON.parse(meta.stdout)).toEqual([]);
  });

  it('answers a catalog.call without a name with a clear error', async () => {
    const result = await client.callTool({ name: 'catalog__call', arguments: { arguments: {} } });
    expect(result.isError).toBe(true);
    expect(texts(result)).toMatch(/Invalid input for catalog__call: name/);
    const nested = await client.callTool({ name: 'catalog__call', arguments: { name: 'catalog__call' } });
    expect(texts(nested)).toMatch(/cannot call 'catalog__call'/);
  });

  it('code mode: a search says how to call from code, describe declares it, catalog__run calls it as the tool', async () => {
    const found = await client.callTool({ name: 'catalog__search', arguments: { query: 'echo the text back' } });
    const hit = (found.structuredContent as { tools: { name: string; call: string }[] }).tools[0];
    expect(hit).toMatchObject({ name: 'fixture__echo', call: 'await tools.fixture__echo({ text })' });
    const described = await client.callTool({ name: 'catalog__describe', arguments: { name: 'fixture__echo' } });
    const declared = (described.structuredContent as { typescript: string }).typescript;
    expect(declared).toContain('fixture__echo(args: {');
    expect(declared).toMatch(/^\s+text: string;$/m);

    const before = (await audited(dir, 'fixture.echo', 1)).length;
    const ran = await client.callTool({
      name: 'catalog__run',
      arguments: {
        code: "const a = await tools.fixture__echo({ text: 'one' });\nconst b = await tools.fixture__echo({ text: 'two' });\nconsole.log('echoed twice');\nreturn [a, b];",
      },
    });
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toMatchObject({ console: ['echoed twice'], calls: 2 });
    expect(JSON.stringify((ran.structuredContent as { value: unknown }).value)).toMatch(/one.*two/);
    // Each call is the tool's own in the audit trail; the program is audited as catalog.run.
    expect((await audited(dir, 'fixture.echo', before + 2)).length).toBe(before + 2);
    expect(await audited(dir, 'catalog.run', 1)).toHaveLength(1);

    const failed = await client.callTool({ name: 'catalog__run', arguments: { code: 'const x = 1;\nx.nope();' } });
    expect(failed.isError).toBe(true);
    expect(texts(failed)).toMatch(/line 2 of the code/);
  });
});

describe('catalog search over Streamable HTTP and REST, with roles', () => {
  // startHttpServer adds the fixture handlers itself.
  const dir = searchProject(false);
  let server: HttpServerProcess;
  let agent: string;
  let admin: string;
  beforeAll(async () => {
    agent = await createToken(dir, 'agent-1', 'agent');
    admin = await createToken(dir, 'ops', 'admin');
    server = await startHttpServer(dir);
  });
  afterAll(() => server?.stop());

  const auth = (token: string) => ({ authorization: `Bearer ${token}` });

  async function sessionClient(token: string, modern: boolean): Promise<Client> {
    const client = new Client(
      { name: modern ? 'e2e-2026' : 'e2e-2025', version: '1.0.0' },
      modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: auth(token) } }),
    );
    expect(client.getProtocolEra()).toBe(modern ? 'modern' : 'legacy');
    return client;
  }

  for (const modern of [false, true]) {
    const era = modern ? '2026-07-28' : '2025-11-25';
    it(`${era}: lists the catalog tools; a tool the roles hide is never found, described or called`, async () => {
      const client = await sessionClient(agent, modern);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(LISTED);

        // system.config is admin-only: the agent's search for it finds other tools, never it.
        const found = await client.callTool({
          name: 'catalog__search',
          arguments: { query: 'change the live configuration', limit: 50 },
        });
        const names = (found.structuredContent as { tools: { name: string }[] }).tools.map((t) => t.name);
        expect(names).not.toContain('system__config');

        const described = await client.callTool({ name: 'catalog__describe', arguments: { name: 'system__config' } });
        expect(described.isError).toBe(true);
        expect(texts(described)).toBe("Unknown tool 'system__config'. Find tools with catalog.search.");
        const unknown = await client.callTool({ name: 'catalog__describe', arguments: { name: 'no__such' } });
        expect(texts(unknown)).toBe("Unknown tool 'no__such'. Find tools with catalog.search.");

        const called = await client.callTool({
          name: 'catalog__call',
          arguments: { name: 'system__config', arguments: { action: 'get' } },
        });
        expect(called.isError).toBe(true);
        expect(texts(called)).toMatch(/^Unknown tool 'system__config'\./);

        // What the roles allow is found and called.
        const echo = await client.callTool({
          name: 'catalog__call',
          arguments: { name: 'fixture__echo', arguments: { text: era } },
        });
        expect(echo.structuredContent).toEqual({ text: era });
      } finally {
        await client.close();
      }
    });
  }

  it('an admin finds the configuration tool the agent cannot see', async () => {
    const { status, message } = await rpc2026(
      server.url,
      'tools/call',
      { name: 'catalog__search', arguments: { query: 'change the live configuration' } },
      auth(admin),
    );
    expect(status).toBe(200);
    expect(message.result.structuredContent.tools[0]).toMatchObject({
      name: 'system__config',
      why: expect.stringContaining('configur'),
    });
  });

  it('REST: GET /v1/tools lists the same set; POST catalog__call answers as the tool', async () => {
    const list = await fetch(`${server.url}/v1/tools`, { headers: auth(agent) });
    expect(list.status).toBe(200);
    const { tools } = (await list.json()) as { tools: { name: string; path: string }[] };
    expect(tools.map((t) => t.name).sort()).toEqual(LISTED);

    const post = (name: string, body: unknown, token = agent) =>
      fetch(`${server.url}/v1/tools/${name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...auth(token) },
        body: JSON.stringify(body),
      });
    const search = await post('catalog__search', { query: 'echo text' });
    expect(((await search.json()) as { tools: { name: string }[] }).tools[0].name).toBe('fixture__echo');
    const call = await post('catalog__call', { name: 'fixture__echo', arguments: { text: 'rest' } });
    expect(call.status).toBe(200);
    expect(await call.json()).toEqual({ text: 'rest' });
    const hidden = await post('catalog__call', { name: 'system__config', arguments: { action: 'get' } });
    expect(hidden.status).toBe(404);
    const described = await post('catalog__describe', { name: 'system__config' });
    expect(described.status).toBe(404);

    // Audited under the real tool and the caller's token, over each transport.
    const records = await audited(dir, 'fixture.echo', 3);
    expect(records.map((r) => r.transport).sort()).toEqual(['http', 'http', 'rest']);
    expect(new Set(records.map((r) => r.principal))).toEqual(new Set(['agent-1']));
    const refused = await audited(dir, 'system.config', 3);
    expect(refused.every((r) => r.errorCode === 'NOT_FOUND')).toBe(true);
  });
});
