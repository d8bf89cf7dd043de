// Redis for tests: the machine's server at 127.0.0.1:6379 (or SWITCHBOARD_TEST_REDIS), a random key prefix per
// store so runs never meet, and private redis-server processes a test may stop and restart.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { StoreClock } from '../../src/store/records/clock.ts';
import { RedisStore } from '../../src/store/redis/index.ts';
import { type HttpServerProcess, tempProject } from './cli.ts';

export const REDIS_URL = process.env.SWITCHBOARD_TEST_REDIS ?? 'redis://127.0.0.1:6379';

/** A key prefix no other test run uses. */
export function testPrefix(): string {
  return `sbtest:${randomUUID().slice(0, 12)}:`;
}

/** Open a store on a fresh prefix; `drop` deletes its keys (SCAN + UNLINK) and closes it. */
export async function openTestStore(
  url = REDIS_URL,
  { now }: { now?: StoreClock } = {},
): Promise<RedisStore & { drop(): Promise<void> }> {
  const store = await RedisStore.open({ url, prefix: testPrefix(), now });
  return Object.assign(store, {
    /** Delete the prefix's keys on a connection of its own (the store itself may be closed already). */
    async drop() {
      await store.close();
      const cleaner = await RedisStore.open({ url, prefix: store.prefix });
      await cleaner.dropAll();
      await cleaner.close();
    },
  });
}

/** Two stores on one fresh prefix, standing for two instances; `cleanup` gets what closes both and drops the prefix. */
export async function twoTestStores(cleanup: (() => unknown)[]): Promise<[RedisStore, RedisStore]> {
  const a = await openTestStore();
  const b = await RedisStore.open({ url: REDIS_URL, prefix: a.prefix });
  cleanup.push(
    () => a.drop(),
    () => b.close(),
  );
  return [a, b];
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** A private redis-server (no persistence) that a test may stop and start again on the same port. */
export class PrivateRedis {
  private proc?: ChildProcess;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort());
    await r.start();
    return r;
  }

  async start(): Promise<void> {
    const proc = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.proc = proc;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('redis-server did not start within 5 s')), 5_000);
      proc.stdout?.on('data', (d: Buffer) => {
        if (/Ready to accept connections/.test(String(d))) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}`));
      });
    });
  }

  /**
   * Stop the server without closing its connections (SIGSTOP): it reads nothing and answers nothing until
   * {@link resume}, and then runs everything it was sent meanwhile. Returns once the kernel reports it stopped.
   */
  pause(): void {
    const pid = this.pid;
    process.kill(pid, 'SIGSTOP');
    // Bounded: a stopped process shows state T in /proc/<pid>/stat within microseconds.
    for (let i = 0; i < 100_000; i++) if (/^\d+ \(.*\) T /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return;
    throw new Error(`redis-server ${pid} did not stop`);
  }

  /** Let a paused server run again (SIGCONT). */
  resume(): void {
    process.kill(this.pid, 'SIGCONT');
  }

  private get pid(): number {
    const pid = this.proc?.pid;
    if (pid === undefined || !this.running) throw new Error('redis-server is not running');
    return pid;
  }

  /** Started and not exited (a process killed by a signal has a signalCode and no exitCode). */
  private get running(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc || !this.running) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGCONT');
    proc.kill('SIGKILL');
    await exited;
  }
}

/** A project whose store is Redis on `prefix`, with a 10/min limit on fixture.echo and a short (3 s) instance lease. */
export function redisProject(url: string, prefix: string, extraToml: string[] = []): string {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'), { recursive: true });
  writeFileSync(
    join(dir, '.switchboard/config.toml'),
    [
      '[store]',
      'kind = "redis"',
      `url = "${url}"`,
      `prefix = "${prefix}"`,
      '[system]',
      'instance_ttl_ms = 3000',
      '[policy.capabilities."fixture.echo"]',
      'rate_limit = { limit = 10, window_ms = 60000 }',
      ...extraToml,
    ].join('\n'),
  );
  return dir;
}

/** Delete a test prefix's keys on a connection of its own. */
export async function dropPrefix(url: string, prefix: string): Promise<void> {
  const store = await RedisStore.open({ url, prefix });
  await store.dropAll();
  await store.close();
}

/**
 * What a scale-out test starts and makes — servers, project folders, key prefixes — stopped and removed after each
 * test. Call it in a describe block and push onto the lists.
 */
export function cleanedAfterEach(): { servers: HttpServerProcess[]; dirs: string[]; prefixes: string[] } {
  const made = { servers: [] as HttpServerProcess[], dirs: [] as string[], prefixes: [] as string[] };
  afterEach(async () => {
    for (const s of made.servers.splice(0)) await s.stop();
    for (const d of made.dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    for (const p of made.prefixes.splice(0)) await dropPrefix(REDIS_URL, p);
  });
  return made;
}
