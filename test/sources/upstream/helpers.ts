// Helpers for the upstream tests: a project whose config lists real upstream servers (the fixture server over
// stdio or HTTP, server-everything), and a way to wait for a condition with a bound.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'smol-toml';
import { type Truthy, until } from '../../helpers/until.ts';

export const FIXTURE = resolve('test/fixtures/upstream/fixture-server.mjs');

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
