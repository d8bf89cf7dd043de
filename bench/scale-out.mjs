// Scale-out throughput: requests/s of the echo tool over REST with every policy on (a rate limit checked on every
// call, the breaker, audit, metrics) for one instance on SQLite, one on Redis, and two on Redis behind a
// round-robin client — in one run, legs alternating per round so machine noise hits them alike. With
// `--base <commit>` the SQLite leg also runs on that commit's build (the anchor: the SQLite hot path must not regress).
// Usage: `npm run -s build && node bench/scale-out.mjs [--rounds N] [--seconds S] [--base 5e958ea]`. Needs Redis
// at 127.0.0.1:6379 (or SWITCHBOARD_BENCH_REDIS); uses its own key prefix and deletes it afterwards.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { startHttpChild } from './lib/http.mjs';
import { cpuMs, machine } from './lib/proc.mjs';
import { BENCH_HANDLERS, ROOT, switchboardEnv, TS_FIXTURE_HANDLERS, tempProject } from './lib/servers.mjs';
import { median } from './lib/stats.mjs';

const argv = process.argv.slice(2);
const arg = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const ROUNDS = Number(arg('--rounds', 3));
const SECONDS = Number(arg('--seconds', 5));
const BASE = arg('--base', undefined);
const REDIS = process.env.SWITCHBOARD_BENCH_REDIS ?? 'redis://127.0.0.1:6379';
const CONNECTIONS = 32;

/** A project: policy on, a rate limit far above the load (checked on every call, never reached). */
function project(store, prefix) {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'), { recursive: true });
  const storeToml = store === 'redis' ? `[store]\nkind = "redis"\nurl = "${REDIS}"\nprefix = "${prefix}"\n` : '';
  writeFileSync(
    join(dir, '.switchboard/config.toml'),
    `${storeToml}[policy.rate_limit]\nlimit = 100000000\nwindow_ms = 60000\n`,
  );
  return dir;
}

/** Build `commit` into a temp folder (sharing this checkout's node_modules) and return its root. */
function buildBase(commit) {
  const dir = join(tmpdir(), `switchboard-base-${commit}`);
  if (!existsSync(join(dir, 'dist'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git -C "${ROOT}" archive ${commit} | tar -x -C "${dir}"`]);
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: dir });
  }
  return dir;
}

async function start(dir, root = ROOT, handlers = BENCH_HANDLERS) {
  return startHttpChild(
    process.execPath,
    [join(root, 'bin/switchboard.js'), '--cwd', dir, 'serve', '--http', '--port', '0', '--handlers', handlers],
    switchboardEnv(dir),
    dir,
  );
}

/** Load every server at once for SECONDS (connections split evenly); every answer must be a 200. */
async function load(servers, seconds) {
  let bad = 0;
  const per = Math.max(1, Math.floor(CONNECTIONS / servers.length));
  const runs = await Promise.all(
    servers.map((s) =>
      autocannon({
        url: s.url.replace(/\/mcp$/, '/v1/tools/echo'),
        connections: per,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ text: 'bench' }),
            onResponse: (status) => void (status === 200 || bad++),
          },
        ],
      }),
    ),
  );
  const requests = runs.reduce((n, r) => n + r.requests.total, 0);
  return { rps: requests / seconds, bad, p99: Math.max(...runs.map((r) => r.latency.p99)) };
}

/** CPU seconds Redis has used so far (user + sys, from INFO cpu). */
async function redisCpuS(redis) {
  const info = await redis.info('cpu');
  const get = (k) => Number(new RegExp(`^${k}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return get('used_cpu_user') + get('used_cpu_sys');
}

/**
 * One leg: req/s, and where the machine's CPU went meanwhile — the Switchboard servers, the load generator (this
 * process) and Redis — as cores busy on average, so a ceiling on 2 cores shows as a measured sum.
 */
async function leg(name, servers) {
  await load(servers, 1); // warm-up
  const cpu0 = servers.map((s) => cpuMs(s.pid));
  const gen0 = process.cpuUsage();
  const redis0 = await redisCpuS(probe);
  const r = await load(servers, SECONDS);
  const cpu = servers.reduce((t, s, i) => t + cpuMs(s.pid) - cpu0[i], 0);
  const gen = process.cpuUsage(gen0);
  const redisCpu = (await redisCpuS(probe)) - redis0;
  if (r.bad) throw new Error(`${name}: ${r.bad} answers were not 200`);
  return {
    ...r,
    cpuPerReqUs: (cpu * 1000) / (r.rps * SECONDS),
    serverCores: cpu / 1000 / SECONDS,
    genCores: (gen.user + gen.system) / 1e6 / SECONDS,
    redisCores: redisCpu / SECONDS,
  };
}

/**
 * The cost of routing a client's answer to a server-to-client request through Redis: sequential elicitation
 * calls (tools/call → elicitation/create → the client's answer) from a 2025 session client pinned to one instance,
 * against one whose requests alternate, so every answer lands on the other instance and is routed back.
 */
async function elicitRoundTrips(urls, calls) {
  let next = 0;
  const rr = (input, init) => {
    const target = new URL(typeof input === 'string' ? input : (input.url ?? input.href));
    target.host = new URL(urls[next++ % urls.length]).host;
    return fetch(target, init);
  };
  const client = new Client({ name: 'bench', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } }));
  const transport = new StreamableHTTPClientTransport(new URL(urls[0]), { fetch: rr });
  await client.connect(transport);
  const times = [];
  for (let i = 0; i < calls + 5; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name: 'fixture__elicit', arguments: {} });
    if (r.isError) throw new Error(`elicit failed: ${JSON.stringify(r.content)}`);
    if (i >= 5) times.push(performance.now() - t0);
  }
  await transport.terminateSession().catch(() => {});
  await client.close();
  return median(times);
}

const probe = new Redis(REDIS);
const prefix = `sbbench:${randomUUID().slice(0, 8)}:`;
const results = {};
const record = (name, r) => {
  results[name] ??= [];
  results[name].push(r);
};
const base = BASE ? buildBase(BASE) : undefined;
const dirs = [];

try {
  for (let round = 0; round < ROUNDS; round++) {
    const sqlDir = project('sqlite');
    const redisDir = project('redis', prefix);
    dirs.push(sqlDir, redisDir);
    if (base) {
      const s = await start(project('sqlite'), base);
      record(`sqlite, 1 instance (base ${BASE})`, await leg('base', [s]));
      await s.stop();
    }
    const s = await start(sqlDir);
    record('sqlite, 1 instance', await leg('sqlite', [s]));
    await s.stop();
    const r1 = await start(redisDir);
    record('redis, 1 instance', await leg('redis1', [r1]));
    const r2 = await start(redisDir);
    record('redis, 2 instances (round-robin)', await leg('redis2', [r1, r2]));
    await Promise.all([r1.stop(), r2.stop()]);
  }
  const ask = project('redis', prefix);
  dirs.push(ask);
  const [e1, e2] = await Promise.all([start(ask, ROOT, TS_FIXTURE_HANDLERS), start(ask, ROOT, TS_FIXTURE_HANDLERS)]);
  for (let round = 0; round < ROUNDS; round++) {
    record('elicitPinned', await elicitRoundTrips([e1.url], 100));
    record('elicitRouted', await elicitRoundTrips([e1.url, e2.url], 100));
  }
  await Promise.all([e1.stop(), e2.stop()]);
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  const redis = new Redis(REDIS);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) await redis.unlink(...keys);
  } while (cursor !== '0');
  redis.disconnect();
  probe.disconnect();
}

const m = machine();
console.log(
  `\n${new Date().toISOString()} — ${m.cpu}, ${m.cores} cores, ${m.memGb} GB; ${ROUNDS} rounds × ${SECONDS} s, ${CONNECTIONS} connections in total`,
);
console.log(
  '| setup | req/s (median) | p99 ms (median) | server CPU µs/req | cores busy: servers + load generator + Redis |',
);
console.log('|---|---:|---:|---:|---|');
const { elicitPinned, elicitRouted } = results;
delete results.elicitPinned;
delete results.elicitRouted;
for (const [name, rs] of Object.entries(results)) {
  console.log(
    `| ${name} | ${median(rs.map((r) => r.rps)).toFixed(0)} | ${median(rs.map((r) => r.p99)).toFixed(1)} | ${median(rs.map((r) => r.cpuPerReqUs)).toFixed(0)} | ${['serverCores', 'genCores', 'redisCores'].map((k) => median(rs.map((r) => r[k])).toFixed(2)).join(' + ')} |`,
  );
}
const rps = (name) => median(results[name].map((r) => r.rps));
console.log(
  `\ntwo Redis instances / one: ${(rps('redis, 2 instances (round-robin)') / rps('redis, 1 instance')).toFixed(2)}×`,
);
console.log(`one Redis instance / one SQLite: ${(rps('redis, 1 instance') / rps('sqlite, 1 instance')).toFixed(2)}×`);
if (base)
  console.log(
    `SQLite this build / base: ${(rps('sqlite, 1 instance') / rps(`sqlite, 1 instance (base ${BASE})`)).toFixed(2)}×`,
  );
console.log(
  `elicitation round trip (median of medians, 100 calls): one instance ${median(elicitPinned).toFixed(2)} ms, answer routed to the other instance ${median(elicitRouted).toFixed(2)} ms (+${(median(elicitRouted) - median(elicitPinned)).toFixed(2)} ms)`,
);
