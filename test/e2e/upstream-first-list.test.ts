// The first tools/list of a session, as a new user meets it (issue 29): the built `switchboard serve` over stdio,
// driven by the official SDK client, in a fresh project whose upstream servers start slowly — as a cold
// `npx -y @modelcontextprotocol/server-*` does (3.5–4.1 s). A server never listed before is waited for up to its own
// `startup_timeout_ms`; one whose catalog is cached is not waited for; one that exceeds its limit holds nothing.

import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, childEnv } from '../helpers/cli.ts';
import { fixtureStdio, projectWith } from '../sources/upstream/helpers.ts';

const clients: Client[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A client that never re-lists on list_changed (as Codex): what its first tools/list holds is all it sees. */
async function firstSession(dir: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--cwd', dir, 'serve'],
    env: childEnv(dir),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'first-list', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

/** A fixture server that answers nothing (not even initialize) for `delayMs`, with its own start-up limit. */
const slowServer = (name: string, delayMs: number, startupTimeoutMs: number) =>
  fixtureStdio(name, {
    env: { FIXTURE_NAME: name, FIXTURE_DELAY_MS: String(delayMs) },
    startup_timeout_ms: startupTimeoutMs,
  });

function freshProject(servers: Record<string, unknown>[]) {
  const dir = projectWith(servers);
  dirs.push(dir);
  return dir;
}

describe('the first tools/list of a session (stdio)', () => {
  it('lists a server that takes 5 s to start, within its startup_timeout_ms; the next session lists it from the cache at once', async () => {
    const dir = freshProject([fixtureStdio('alpha'), slowServer('slow', 5000, 20_000)]);
    const first = await firstSession(dir);
    expect(await names(first)).toEqual(expect.arrayContaining(['alpha__echo', 'slow__echo']));
    await first.close();

    // The catalog is cached now: the next session's first list does not wait for the server to start again. It
    // answers while the server is still in its 5 s start, with the tools of the cache.
    const second = await firstSession(dir);
    expect(await names(second)).toEqual(expect.arrayContaining(['alpha__echo', 'slow__echo']));
    const servers = (await second.callTool({ name: 'system__servers', arguments: {} })).structuredContent as {
      servers: Array<{ name: string; status: string; cached: boolean }>;
    };
    expect(servers.servers.find((s) => s.name === 'slow')).toMatchObject({ status: 'connecting', cached: true });
  }, 60_000);

  it("does not hold the first tools/list past a server's own startup_timeout_ms", async () => {
    // `hung` would answer after a minute; its limit is 1.5 s. The default limit (30 s) is not what bounds the wait.
    const dir = freshProject([fixtureStdio('alpha'), slowServer('hung', 60_000, 1500)]);
    const session = await firstSession(dir);
    const t0 = performance.now();
    const listed = await names(session);
    const waited = performance.now() - t0;
    expect(listed).toContain('alpha__echo');
    expect(listed.some((n) => n.startsWith('hung__'))).toBe(false);
    expect(waited).toBeLessThan(10_000);
  }, 40_000);
});
