// Helpers for the upstream tests: a project whose config lists real upstream servers (the fixture server over
// stdio or HTTP, server-everything, or another Switchboard), and a way to wait for a condition with a bound.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'smol-toml';
import { afterEach } from 'vitest';
import { type HttpHandle, serveHttp } from '../../../src/serve/http.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';
import { type Truthy, until } from '../../helpers/until.ts';

export const FIXTURE = resolve('test/fixtures/upstream/fixture-server.mjs');

/**
 * Hubs for one test file, closed (and their project folders removed) after each test: `hubWith(servers)` starts one
 * with these servers and waits until they settled; `keep(hub)` adds a hub made otherwise.
 */
export function hubsClosedAfterEach() {
  const hubs: TestHub[] = [];
  afterEach(async () => {
    for (const h of hubs.splice(0)) {
      await h.close();
      rmSync(h.dir, { recursive: true, force: true });
    }
  });
  return {
    keep: (hub: TestHub) => hubs.push(hub),
    async hubWith(servers: Record<string, unknown>[], more: Record<string, unknown> = {}) {
      const hub = await testHub({ cwd: projectWith(servers, more) });
      hubs.push(hub);
      await hub.ready();
      return hub;
    },
  };
}

/** A `[[servers]]` entry running the fixture server over stdio. */
export function fixtureStdio(name: string, extra: Record<string, unknown> = {}) {
  return { name, command: process.execPath, args: [FIXTURE], env: { FIXTURE_NAME: name }, ...extra };
}

/** A fresh project directory with these servers in `.switchboard/config.toml`. */
export function projectWith(servers: Record<string, unknown>[], more: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-upstream-'));
  writeConfig(dir, servers, more);
  return dir;
}

export function writeConfig(dir: string, servers: Record<string, unknown>[], more: Record<string, unknown> = {}) {
  mkdirSync(join(dir, '.switchboard'), { recursive: true });
  writeFileSync(join(dir, '.switchboard', 'config.toml'), stringify({ ...more, servers }));
}

/** Poll `check` every 25 ms until it returns truthy or `ms` pass. */
export async function waitFor<T>(check: () => T | Promise<T>, ms = 10_000, what = 'condition'): Promise<Truthy<T>> {
  return until(check, { timeoutMs: ms, everyMs: 25, what });
}

/** Start the fixture server over Streamable HTTP on a free port. */
export async function fixtureHttp(env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [FIXTURE, 'http', '0'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((ok, fail) => {
    child.stdout?.on('data', (b: Buffer) => {
      const m = /listening (\d+)/.exec(b.toString());
      if (m) ok(Number(m[1]));
    });
    child.once('exit', (code) => fail(new Error(`fixture server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

/** A free loopback port that nothing listens on (bound, then closed): refused until someone takes it. */
export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** One Switchboard behind another: `far`, served over HTTP, is the upstream server `far` of `near`. */
export interface HubPair {
  far: TestHub;
  farHttp: HttpHandle;
  near: TestHub;
  nearHttp: HttpHandle;
  /** Close both (the downstream first) and remove the downstream's project. */
  close(): Promise<void>;
}

/**
 * Start a pair: `setUp` adds to `far` before it serves; `server` adds to near's `[[servers]]` entry; `project` writes
 * more into near's project before it starts; near is ready, and has listed `tool` when given, once this resolves.
 */
export async function hubBehindHub(
  opts: {
    setUp?: (far: TestHub) => void;
    server?: Record<string, unknown>;
    project?: (dir: string) => void;
    tool?: string;
  } = {},
): Promise<HubPair> {
  const far = await testHub();
  opts.setUp?.(far);
  const farHttp = await serveHttp(far, { host: '127.0.0.1', port: 0 });
  const dir = projectWith([{ name: 'far', url: `${farHttp.url}/mcp`, ...opts.server }]);
  opts.project?.(dir);
  const near = await testHub({ cwd: dir });
  await near.ready();
  if (opts.tool) {
    const tool = opts.tool;
    await waitFor(() => near.services.registry.get(tool), 10_000, `the upstream tool ${tool}`);
  }
  const nearHttp = await serveHttp(near, { host: '127.0.0.1', port: 0 });
  return {
    far,
    farHttp,
    near,
    nearHttp,
    async close() {
      await nearHttp.close();
      await near.close();
      rmSync(dir, { recursive: true, force: true });
      await farHttp.close();
      await far.close();
    },
  };
}
