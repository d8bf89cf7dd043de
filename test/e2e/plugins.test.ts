// Plugin hooks end to end: the built CLI over stdio, driven by the official MCP SDK client (2025 era) — the hook
// tools of the demo workspace's plugin, failing directories as isError, verbose lines as log notifications, and
// tools/list_changed when a manifest appears.
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, type HttpServerProcess, ROOT, startHttpServer } from '../helpers/cli.ts';
import { pluginProject, writeFiles, writePlugin } from '../helpers/plugins.ts';

describe('the demo workspace plugin over stdio', () => {
  let client: Client;
  let dir: string;
  const logs: string[] = [];

  beforeAll(async () => {
    // A copy, so the run's state file and cache never touch the repository's example.
    dir = pluginProject();
    cpSync(join(ROOT, 'examples/workspace'), dir, {
      recursive: true,
      filter: (src) => !src.includes('state.db'),
    });
    rmSync(join(dir, '.switchboard/handlers'), { recursive: true, force: true });
    client = new Client({ name: 'plugins-e2e', version: '1.0.0' });
    client.setNotificationHandler('notifications/message', async (n) => {
      logs.push(String(n.params.data));
    });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, '--cwd', dir, 'serve'], env: childEnv(dir) }),
    );
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists the lint and test hooks with titles, descriptions and annotations', async () => {
    const { tools } = await client.listTools();
    const lint = tools.find((t) => t.name === 'jutsu_javascript__lint');
    const test = tools.find((t) => t.name === 'jutsu_javascript__test');
    expect(lint).toMatchObject({
      title: 'Lint JavaScript',
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
    expect(test?.description).toMatch(/^Run the JavaScript tests\. Triggers: "are the tests green"/);
    expect(test?.description).toMatch(/Runs in directories containing: package\.json\. Command: node --test$/);
    expect(test?.inputSchema.properties).toHaveProperty('directory');
  });

  it('answers the failing package first with isError, the passing one after', async () => {
    const result = await client.callTool({ name: 'jutsu_javascript__test', arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as { text: string }[])[0].text;
    expect(text).toMatch(/^❌ jutsu_javascript__test failed in 1 of 2 directories\./);
    expect(text.indexOf('packages/math')).toBeLessThan(text.indexOf('packages/greet'));
    expect(text).toContain('5 !== 6');
    expect(result.structuredContent).toMatchObject({
      ok: false,
      directories: [
        { directory: 'packages/math', ok: false },
        { directory: 'packages/greet', ok: true },
      ],
      dependencies: [{ hook: 'lint', ok: true }],
    });
    // A client that shows the model only structuredContent (Codex) still shows it the failing output.
    expect((result.structuredContent as { answer: string }).answer).toBe(text);
  });

  it('passes in the passing package and streams its lines when verbose', async () => {
    const result = await client.callTool({
      name: 'jutsu_javascript__test',
      arguments: { directory: 'packages/greet', verbose: true, cache: false },
    });
    expect(result.isError).toBeFalsy();
    expect(logs.some((l) => l.startsWith('[packages/greet] ') && l.includes('greets by name'))).toBe(true);
  });

  it('refuses a directory outside the project with an actionable isError', async () => {
    const result = await client.callTool({ name: 'jutsu_javascript__lint', arguments: { directory: '../' } });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0].text).toMatch(/outside the project root/);
  });

  it('sends tools/list_changed when a new plugin manifest appears', async () => {
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler('notifications/tools/list_changed', async () => resolve()),
    );
    writePlugin(dir, 'do-docs', 'hooks:\n  build: { command: "true" }\n');
    await changed;
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('do_docs__build');
  });
});

describe('hook tools over HTTP', () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    const dir = pluginProject();
    writeFiles(dir, { 'a/package.json': '{}', 'b/package.json': '{}', 'b/fail': '' });
    writePlugin(
      dir,
      'checks',
      `hooks:\n  test: { command: 'if [ -f fail ]; then echo "failing in \${PWD##*/}"; exit 1; fi', dirs_with: [package.json] }\n`,
    );
    server = await startHttpServer(dir);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('REST answers a failing check 500 with isError and the report, bad input 400', async () => {
    const base = server.url;
    const failed = await fetch(`${base}/v1/tools/checks__test`, { method: 'POST', body: '{}' });
    expect(failed.status).toBe(500);
    const body = await failed.json();
    expect(body).toMatchObject({
      isError: true,
      structuredContent: { ok: false, directories: [{ directory: 'b' }, { directory: 'a' }] },
    });
    expect(body.content[0].text).toContain('failing in b');
    const passed = await fetch(`${base}/v1/tools/checks__test`, { method: 'POST', body: '{"directory":"a"}' });
    expect(passed.status).toBe(200);
    const escaped = await fetch(`${base}/v1/tools/checks__test`, { method: 'POST', body: '{"directory":"../.."}' });
    expect(escaped.status).toBe(400);
    expect(await escaped.json()).toMatchObject({
      error: { code: 'INVALID_INPUT', message: expect.stringMatching(/outside the project root/) },
    });
  });

  it('a 2026-07-28 client calls the hook statelessly and gets the same isError result', async () => {
    const client = new Client({ name: 'plugins-http', version: '1.0.0' }, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    } as never);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const result = await client.callTool({ name: 'checks__test', arguments: {} });
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0].text).toMatch(/^❌ checks__test failed in 1 of 2 directories\./);
    await client.close();
  });
});
