// End-to-end cancellation: an MCP client's notifications/cancelled (stdio) and an HTTP client that goes away
// (REST) abort the handler, and the child processes the call started die with their whole process group.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIN,
  childEnv,
  FIXTURE_HANDLERS,
  type HttpServerProcess,
  startHttpServer,
  tempProject,
} from '../helpers/cli.ts';
import { alive, gone, pidFrom } from '../helpers/proc.ts';

describe('cancellation', () => {
  let server: HttpServerProcess;
  beforeAll(async () => {
    server = await startHttpServer(tempProject());
  });
  afterAll(() => server?.stop());

  it('an MCP cancel over stdio kills the process tree of the call', async () => {
    const dir = tempProject();
    const client = new Client({ name: 'cancel', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, '--cwd', dir, 'serve', '--handlers', FIXTURE_HANDLERS],
        env: childEnv(dir),
      }),
    );
    const pidFile = join(mkdtempSync(join(tmpdir(), 'sb-cancel-')), 'pid');
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'fixture__spawn_tree', arguments: { pid_file: pidFile } },
      { signal: controller.signal },
    );
    const pid = await pidFrom(pidFile);
    expect(alive(pid)).toBe(true);
    controller.abort();
    await expect(call).rejects.toThrow();
    expect(await gone(pid)).toBe(true);
    // The server is still serving.
    expect(
      (await client.callTool({ name: 'fixture__echo', arguments: { text: 'still here' } })).structuredContent,
    ).toEqual({ text: 'still here' });
    await client.close();
  });

  it('a REST client that disconnects cancels its call and kills the process tree', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'sb-cancel-')), 'pid');
    const controller = new AbortController();
    const call = fetch(`${server.url}/v1/tools/fixture__spawn_tree`, {
      method: 'POST',
      body: JSON.stringify({ pid_file: pidFile }),
      signal: controller.signal,
    });
    const pid = await pidFrom(pidFile);
    controller.abort();
    await expect(call).rejects.toThrow();
    expect(await gone(pid)).toBe(true);
  });
});
