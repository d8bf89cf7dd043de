// The task board's ClaudeBench parts (issue 18) on SQLite and Redis: the shared contract, plus claims from several
// processes sharing one SQLite file and from several Redis connections — every task claimed exactly once.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/store/redis/index.ts';
import { SqliteStore } from '../../src/store/sqlite/index.ts';
import { openTestStore, REDIS_URL } from '../helpers/redis.ts';
import { taskBoardContract } from './task-board-contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'switchboard-board-'));
const opened: Awaited<ReturnType<typeof openTestStore>>[] = [];
afterAll(async () => {
  for (const s of opened.splice(0)) await s.drop();
  rmSync(dir, { recursive: true, force: true });
});

taskBoardContract('sqlite', async () => SqliteStore.open(join(dir, `${randomUUID()}.db`)));
taskBoardContract('redis', async () => {
  const store = await openTestStore();
  opened.push(store);
  return store;
});

const WORKER = new URL('../fixtures/claim-worker.ts', import.meta.url).pathname;

/** A process that opens `file`, says 'ready', waits for a line on stdin, then claims until nothing is pending. */
function claimWorker(file: string, name: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, file, name], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.setEncoding('utf8');
  const ready = new Promise<void>((resolve) => {
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('ready\n')) resolve();
    });
  });
  const done = new Promise<string[]>((resolve, reject) => {
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.slice(out.indexOf('ready\n') + 6)))
        : reject(new Error(`worker exit ${code}`)),
    );
  });
  return { ready, done, go: () => child.stdin.end('go\n') };
}

describe('task claims under real concurrency', () => {
  it('SQLite: four processes on one file claim 160 tasks, each exactly once', async () => {
    const file = join(dir, 'claims.db');
    const store = SqliteStore.open(file);
    const tasks = [];
    for (let i = 0; i < 4; i++)
      tasks.push(
        ...(await store.tasks.createMany(
          Array.from({ length: 40 }, (_, j) => ({ text: `t${i}.${j}`, priority: j % 10 })),
        )),
      );
    await store.close();
    const workers = ['a', 'b', 'c', 'd'].map((name) => claimWorker(file, name));
    await Promise.all(workers.map((w) => w.ready));
    for (const w of workers) w.go();
    const claimedBy = await Promise.all(workers.map((w) => w.done));
    const all = claimedBy.flat();
    expect(all).toHaveLength(160);
    expect(new Set(all)).toEqual(new Set(tasks.map((t) => t.id)));
    // Each process got a share: the claims really interleaved rather than one process taking everything.
    expect(claimedBy.filter((ids) => ids.length > 0).length).toBeGreaterThan(1);
  });

  it('Redis: eight connections claim 400 tasks concurrently, each exactly once', async () => {
    const first = await openTestStore();
    opened.push(first);
    const others = await Promise.all(
      Array.from({ length: 7 }, () => RedisStore.open({ url: REDIS_URL, prefix: first.prefix })),
    );
    const stores = [first, ...others];
    const created = await first.tasks.createMany(
      Array.from({ length: 100 }, (_, j) => ({ text: `t${j}`, priority: j % 10 })),
    );
    for (let i = 0; i < 3; i++)
      created.push(
        ...(await first.tasks.createMany(Array.from({ length: 100 }, (_, j) => ({ text: `u${i}.${j}`, priority: 3 })))),
      );
    const claimLoop = async (s: RedisStore, w: string) => {
      const ids: string[] = [];
      for (let t = await s.tasks.claim(w); t; t = await s.tasks.claim(w)) ids.push(t.id);
      return ids;
    };
    const claimedBy = await Promise.all(stores.map((s, i) => claimLoop(s, `w${i}`)));
    for (const s of others) await s.close();
    const all = claimedBy.flat();
    expect(all).toHaveLength(400);
    expect(new Set(all)).toEqual(new Set(created.map((t) => t.id)));
    expect(claimedBy.every((ids) => ids.length > 0)).toBe(true);
  });
});
