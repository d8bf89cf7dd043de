// `switchboard stats` on a running server counts a plugin hook that ran and failed (exit 1) as an error, as /metrics
// does (issue 29): the hook answers an isError result, which is a failed run though not a fault of the capability.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServerProcess, runCli, startHttpServer } from '../helpers/cli.ts';
import { pluginProject, writePlugin } from '../helpers/plugins.ts';

let dir: string;
let server: HttpServerProcess;

beforeAll(async () => {
  dir = pluginProject();
  writePlugin(dir, 'checks', 'hooks:\n  test: { command: "echo 1 failing; exit 1" }\n  lint: { command: "true" }\n');
  server = await startHttpServer(dir);
});
afterAll(async () => {
  await server?.stop();
});

describe('switchboard stats', () => {
  it('counts a hook run that exited 1 as an error, and a passing one as none', async () => {
    const client = new Client({ name: 'stats-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      expect(await client.callTool({ name: 'checks__test', arguments: {} })).toMatchObject({ isError: true });
      expect((await client.callTool({ name: 'checks__lint', arguments: {} })).isError).toBeFalsy();
    } finally {
      await client.close();
    }

    const json = await runCli(dir, ['stats', '--url', server.url, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const data = JSON.parse(json.stdout);
    expect(data.capabilities['checks.test']).toMatchObject({ calls: 1, errors: 1 });
    expect(data.capabilities['checks.lint']).toMatchObject({ calls: 1, errors: 0 });
    expect(data.totals.errors).toBe(1);

    const table = await runCli(dir, ['stats', '--url', server.url]);
    expect(table.stdout).toMatch(/checks\.test\s*│\s*1\s*│\s*1\s*│/);
    expect(table.stdout).toMatch(/total: \d+ calls, 1 errors/);

    // Prometheus agrees: the failed run is an error, with code "isError".
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(
      /switchboard_call_errors_total\{capability="checks\.test",transport="[^"]+",code="isError"\} 1/,
    );
    expect(metrics).not.toMatch(/switchboard_call_errors_total\{capability="checks\.lint"/);
  });
});
