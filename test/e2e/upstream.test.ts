// End-to-end: the built `switchboard serve` over stdio, driven by the official SDK client, proxying real upstream
// servers (the fixture server over stdio and Streamable HTTP, server-everything over SSE): progress, cancellation,
// a crash mid-call and the restart, a slow server that must not delay tools/list, the catalog cache, hot reload.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, childEnv, runCli, startHttpServer } from '../helpers/cli.ts';
import { callWithProgress } from '../helpers/progress.ts';
import {
  closedPort,
  fixtureHttp,
  fixtureStdio,
  projectWith,
  waitFor,
  writeConfig,
} from '../sources/upstream/helpers.ts';

const clients: Client[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function connect(dir: string, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--cwd', dir, 'serve'],
    env: childEnv(dir, env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  const changed: string[] = [];
  const client = new Client(
    { name: 'e2e-upstream', version: '1.0.0' },
    { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => changed.push('tools') } } },
  );
  await client.connect(transport);
  clients.push(client);
  return { client, changed, stderr: () => stderr };
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
const text = (r: unknown) => ((r as { content: { text: string }[] }).content[0]?.text ?? '') as string;

function project(servers: Record<string, unknown>[]) {
  const dir = projectWith(servers);
  dirs.push(dir);
  return dir;
}

describe('upstream servers through switchboard serve (stdio)', () => {
  it('forwards progress notifications from the upstream to the client', async () => {
    const dir = project([fixtureStdio('alpha')]);
    const { client } = await connect(dir);
    await waitFor(async () => (await names(client)).includes('alpha__slow'), 10_000, 'alpha tools');
    const { result, steps } = await callWithProgress(client, 'alpha__slow', { seconds: 0.5 });
    expect(text(result)).toBe('slept 0.5s');
    expect(steps).toEqual([1, 2, 3, 4, 5]);
  });

  it('sends a client cancellation on to the upstream request', async () => {
    const marksDir = project([]);
    const marks = join(marksDir, 'marks.txt');
    // The server is fenced (the [sandbox] default): the folder it marks in is granted to it.
    const dir = project([
      fixtureStdio('alpha', {
        env: { FIXTURE_NAME: 'alpha', FIXTURE_MARKS: marks },
        sandbox: { write: [marksDir] },
      }),
    ]);
    const { client } = await connect(dir);
    await waitFor(async () => (await names(client)).includes('alpha__slow'), 10_000, 'alpha tools');
    const abort = new AbortController();
    const call = client.callTool({ name: 'alpha__slow', arguments: { seconds: 20 } }, { signal: abort.signal });
    await waitFor(() => existsSync(marks) && readFileSync(marks, 'utf8').includes('started slow'), 5000, 'start');
    abort.abort();
    await expect(call).rejects.toThrow();
    await waitFor(() => readFileSync(marks, 'utf8').includes('cancelled slow'), 5000, 'the upstream to see the cancel');
  });

  it('answers a clear error when the upstream crashes mid-call, then serves again after the restart', async () => {
    const dir = project([fixtureStdio('alpha')]);
    const { client } = await connect(dir);
    await waitFor(async () => (await names(client)).includes('alpha__crash'), 10_000, 'alpha tools');
    const crashed = await client.callTool({ name: 'alpha__crash', arguments: {} });
    expect(crashed.isError).toBe(true);
    expect(text(crashed)).toMatch(
      /Upstream server 'alpha' closed the connection during the call; it is being restarted/,
    );
    const again = await waitFor(
      async () => {
        const r = await client.callTool({ name: 'alpha__echo', arguments: { text: 'back' } });
        return r.isError ? undefined : r;
      },
      10_000,
      'alpha to come back',
    );
    expect(text(again)).toBe('back');
  });

  it('keeps one dead upstream from affecting the others and reports it in system.health', async () => {
    const dir = project([
      fixtureStdio('alpha'),
      { name: 'dead', command: process.execPath, args: ['-e', 'process.exit(1)'] },
    ]);
    const { client } = await connect(dir);
    await waitFor(async () => (await names(client)).includes('alpha__echo'), 10_000, 'alpha tools');
    expect(text(await client.callTool({ name: 'alpha__echo', arguments: { text: 'ok' } }))).toBe('ok');
    const health = await waitFor(async () => {
      const r = await client.callTool({ name: 'system__health', arguments: {} });
      const h = r.structuredContent as { services: Record<string, { status: string; detail: string }> };
      return h.services.upstream.detail.includes('dead failed') ? h : undefined;
    });
    expect(health?.services.upstream.status).toBe('degraded');
  });

  it('waits for a connecting upstream in the first tools/list, so a client that ignores list_changed sees its tools', async () => {
    // Codex never re-lists on list_changed: what its first tools/list holds is all it sees in a session.
    const dir = project([
      fixtureStdio('alpha'),
      fixtureStdio('sleepy', { env: { FIXTURE_NAME: 'sleepy', FIXTURE_DELAY_MS: '1500' } }),
    ]);
    const { client } = await connect(dir);
    expect(await names(client)).toEqual(expect.arrayContaining(['alpha__echo', 'sleepy__echo']));
  }, 40_000);

  it('bounds that wait by [server] first_list_wait_ms, and answers from the cached catalog on restart', async () => {
    const servers = [
      fixtureStdio('alpha'),
      fixtureStdio('sleepy', { env: { FIXTURE_NAME: 'sleepy', FIXTURE_DELAY_MS: '4000' } }),
    ];
    const dir = projectWith(servers, { server: { first_list_wait_ms: 1000 } });
    dirs.push(dir);
    // First run: the first list comes after at most the wait, without sleepy; its tools come when it has started
    // (announced with list_changed).
    const first = await connect(dir);
    const t0 = performance.now();
    expect(await names(first.client)).not.toContain('sleepy__echo');
    expect(performance.now() - t0).toBeLessThan(3000);
    await waitFor(async () => (await names(first.client)).includes('sleepy__echo'), 15_000, 'sleepy tools');
    expect(first.changed.length).toBeGreaterThan(0);
    await first.client.close();
    // Second run, with a bound far past sleepy's start: the catalogs come from the store, so the first list does not
    // wait for sleepy, and lists its tools before it has even started. (Against the 1000 ms bound, a list that took
    // 300 ms on an idle machine read 1010 ms on a loaded one; sleepy takes 4000 ms, so this margin is wide.)
    writeConfig(dir, servers, { server: { first_list_wait_ms: 30_000 } });
    const second = await connect(dir);
    const t1 = performance.now();
    const listed = await names(second.client);
    expect(performance.now() - t1).toBeLessThan(3000);
    expect(listed).toEqual(expect.arrayContaining(['alpha__echo', 'sleepy__echo']));
    // And a call made while it is starting waits for it instead of failing.
    expect(text(await second.client.callTool({ name: 'sleepy__echo', arguments: { text: 'patience' } }))).toBe(
      'patience',
    );
  }, 40_000);

  it('adds, changes and removes upstreams when the config file is edited, without a restart', async () => {
    const dir = project([fixtureStdio('alpha')]);
    const { client, changed, stderr } = await connect(dir);
    await waitFor(async () => (await names(client)).includes('alpha__echo'), 10_000, 'alpha tools');
    writeConfig(dir, [fixtureStdio('alpha'), fixtureStdio('gamma')]);
    await waitFor(async () => (await names(client)).includes('gamma__echo'), 10_000, 'gamma to appear');
    expect(changed.length).toBeGreaterThan(0);
    expect(text(await client.callTool({ name: 'gamma__echo', arguments: { text: 'g' } }))).toBe('g');
    writeConfig(dir, [fixtureStdio('gamma')]);
    await waitFor(async () => !(await names(client)).includes('alpha__echo'), 10_000, 'alpha to go');
    // An invalid edit changes nothing.
    writeFileSync(join(dir, '.switchboard', 'config.toml'), '[[servers]]\nname = "broken"\n');
    await waitFor(async () => stderr().includes('configuration edit ignored'), 10_000, 'the edit to be refused');
    expect(await names(client)).toContain('gamma__echo');
  }, 40_000);

  it('proxies a Streamable HTTP upstream with headers from the environment, and re-initializes a lost session', async () => {
    const marks = join(project([]), 'http-marks.txt');
    const http = await fixtureHttp({ FIXTURE_MARKS: marks, FIXTURE_NAME: 'web' });
    try {
      const dir = project([{ name: 'web', url: http.url, headers: { Authorization: 'Bearer ${SB_E2E_TOKEN}' } }]);
      const { client } = await connect(dir, { SB_E2E_TOKEN: 'sekrit' });
      await waitFor(async () => (await names(client)).includes('web__echo'), 10_000, 'web tools');
      expect(text(await client.callTool({ name: 'web__echo', arguments: { text: 'over http' } }))).toBe('over http');
      expect(readFileSync(marks, 'utf8')).toContain('"authorization":"Bearer sekrit"');
      http.child.kill('SIGUSR2');
      await waitFor(() => readFileSync(marks, 'utf8').includes('forgot sessions'), 5000, 'the server to forget');
      expect(text(await client.callTool({ name: 'web__echo', arguments: { text: 'again' } }))).toBe('again');
    } finally {
      http.child.kill();
    }
  }, 30_000);

  it('negotiates 2026-07-28 with a modern HTTP server (another Switchboard) and proxies its tools', async () => {
    const other = await startHttpServer(project([]));
    try {
      const dir = project([{ name: 'peer', url: `${other.url}/mcp` }]);
      const { client } = await connect(dir);
      await waitFor(async () => (await names(client)).includes('peer__fixture__echo'), 10_000, 'peer tools');
      const r = await client.callTool({ name: 'peer__fixture__echo', arguments: { text: 'across hubs' } });
      expect(JSON.stringify(r.structuredContent)).toContain('across hubs');
      const status = await client.callTool({ name: 'system__health', arguments: {} });
      expect(JSON.stringify(status.structuredContent)).toContain('1 connected');
      const { stdout } = await runCli(dir, ['mcp', 'list', '--status', '--json']);
      expect(JSON.parse(stdout).servers[0]).toMatchObject({
        name: 'peer',
        status: 'connected',
        protocol: '2026-07-28',
      });
    } finally {
      await other.stop();
    }
  });

  it('paginates the aggregated tool list, and the SDK client walks every page', async () => {
    const dir = project([fixtureStdio('alpha'), fixtureStdio('beta')]);
    writeConfig(dir, [fixtureStdio('alpha'), fixtureStdio('beta')], { server: { page_size: 5 } });
    const { client } = await connect(dir);
    await waitFor(async () => (await names(client)).includes('beta__slow'), 10_000, 'all tools');
    const first = await client.request({ method: 'tools/list', params: {} });
    expect(first.tools).toHaveLength(5);
    expect(first.nextCursor).toEqual(expect.any(String));
    const all = await names(client);
    expect(all.length).toBeGreaterThan(20);
    expect(new Set(all).size).toBe(all.length);
    await expect(client.request({ method: 'tools/list', params: { cursor: 'nope' } })).rejects.toThrow(
      /Invalid cursor/,
    );
  });

  it('proxies server-everything over legacy SSE, with progress from trigger-long-running-operation', async () => {
    const port = await closedPort();
    const everything = spawn(
      process.execPath,
      ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'sse'],
      {
        env: { ...process.env, PORT: String(port) },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    try {
      await new Promise<void>((ok) =>
        everything.stderr?.on('data', (b: Buffer) => b.toString().includes(String(port)) && ok()),
      );
      const dir = project([{ name: 'everything', url: `http://127.0.0.1:${port}/sse`, transport: 'sse' }]);
      const { client } = await connect(dir);
      await waitFor(
        async () => (await names(client)).includes('everything__trigger-long-running-operation'),
        15_000,
        'everything tools',
      );
      const { result: r, steps } = await callWithProgress(client, 'everything__trigger-long-running-operation', {
        duration: 0.6,
        steps: 3,
      });
      expect(text(r)).toMatch(/Long running operation completed/);
      expect(steps).toEqual([1, 2, 3]);
    } finally {
      everything.kill();
    }
  }, 30_000);
});
