// Policy cost: the echo tool with every policy on (token auth, rate limit, breaker, audit, metrics) against the
// same build with SWITCHBOARD_POLICY=off, in one run: both servers up at once, sequential latency measured in blocks of
// calls taking turns, load runs alternating which goes first, so machine noise hits both alike.
// Usage: `node bench/policy.mjs [--rounds N]` after `npm run build`. Prints a table and the ratios; it does not
// touch BENCHMARKS.md (copy the table there by hand with the date and machine).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startHttpChild } from './lib/http.mjs';
import { cpuMs, machine } from './lib/proc.mjs';
import { BENCH_HANDLERS, BIN, switchboardEnv, tempProject } from './lib/servers.mjs';
import { alternating, median, quantile, withTimeout } from './lib/stats.mjs';
import { StdioDriver } from './lib/stdio-driver.mjs';

const argv = process.argv.slice(2);
const ROUNDS = Number(argv[argv.indexOf('--rounds') + 1]) || 3;
// --no-audit: every policy but the audit trail, to show what the per-call audit write costs on its own.
const AUDIT = !argv.includes('--no-audit');

function project(on) {
  const dir = tempProject();
  if (on) {
    mkdirSync(join(dir, '.switchboard'), { recursive: true });
    // Every policy active: a rate limit that is checked on every call but never reached, the default breaker,
    // the audit trail, metrics; over HTTP also a token.
    writeFileSync(
      join(dir, '.switchboard/config.toml'),
      `[policy.rate_limit]\nlimit = 100000000\nwindow_ms = 60000\n[audit]\nenabled = ${AUDIT}\n`,
    );
  }
  return dir;
}

function envFor(dir, on) {
  return { ...switchboardEnv(dir), ...(on ? {} : { SWITCHBOARD_POLICY: 'off' }) };
}

/**
 * Sequential p50s (µs) of two servers measured in blocks of back-to-back calls, the two taking turns block by block:
 * drift on this shared machine hits both alike, and each block is still the hot loop (call by call in turn would
 * find each server cold from waiting, and measure that instead).
 */
async function interleaved(calls, count, warm) {
  const BLOCK = 250;
  const lat = calls.map(() => []);
  for (let i = 0; i < warm; i++) for (const call of calls) await call();
  for (let b = 0; b < count / BLOCK; b++) {
    for (const k of alternating([0, 1], b)) {
      for (let i = 0; i < 10; i++) await calls[k]();
      for (let i = 0; i < BLOCK; i++) {
        const t0 = performance.now();
        await calls[k]();
        lat[k].push(performance.now() - t0);
      }
    }
  }
  return lat.map((l) => quantile(l, 0.5) * 1000);
}

function stdioDriver(on) {
  const dir = project(on);
  return new StdioDriver({
    command: process.execPath,
    args: [BIN, '--cwd', dir, 'serve', '--handlers', BENCH_HANDLERS],
    env: envFor(dir, on),
    tool: 'echo',
  });
}

/** One stdio round: both servers up; p50 interleaved, then each one's throughput and CPU on its own. */
async function stdioRound(first) {
  const drivers = [stdioDriver(false), stdioDriver(true)];
  // Warm until V8 has optimised each server's hot path: after 5,000 calls, `perf` still saw its compiler threads
  // busy through the measured run of the server with policies on (the one with more code to optimise).
  for (const d of drivers) {
    await d.initialize();
    await d.concurrent(50_000, 64, 60_000);
  }
  const p50us = await interleaved(
    drivers.map((d) => () => withTimeout(d.call(0), 10_000, 'tools/call')),
    3000,
    500,
  );
  const out = [];
  for (const k of first ? [1, 0] : [0, 1]) {
    const d = drivers[k];
    // Server CPU per call (all threads, including the audit writer): steadier than rates on a shared machine.
    const cpu0 = cpuMs(d.pid);
    const { done, ms } = await d.concurrent(60_000, 64, 30_000);
    out[k] = { p50us: p50us[k], tput: (done / ms) * 1000, cpuUs: ((cpuMs(d.pid) - cpu0) * 1000) / done };
  }
  for (const [k, d] of drivers.entries()) {
    out[k].bad = d.bad;
    await d.close();
  }
  return { off: out[0], on: out[1] };
}

async function httpServer(on) {
  const dir = project(on);
  let token;
  if (on)
    token = JSON.parse(
      execFileSync(process.execPath, [BIN, '--cwd', dir, 'token', 'create', 'bench', '--roles', 'agent', '--json'], {
        env: envFor(dir, on),
      }).toString(),
    ).token;
  const server = await startHttpChild(
    process.execPath,
    [BIN, '--cwd', dir, 'serve', '--http', '--port', '0', '--handlers', BENCH_HANDLERS],
    envFor(dir, on),
    dir,
  );
  const url = server.url.replace(/\/mcp$/, '/v1/tools/echo');
  const headers = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify({ text: 'bench' });
  const self = {
    server,
    bad: 0,
    load: (seconds) =>
      autocannon({
        url,
        connections: 64,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            headers,
            body,
            onResponse: (status) => void (status === 200 || self.bad++),
          },
        ],
      }),
    /** One request on a kept-alive connection. */
    once: () =>
      new Promise((resolve, reject) => {
        const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) self.bad++;
            resolve();
          });
        });
        req.on('error', reject);
        req.end(body);
      }),
    async stop() {
      agent.destroy();
      await server.stop();
    },
  };
  return self;
}

/** One REST round: both servers up; p50 interleaved (µs: autocannon's are whole ms), then each one's load. */
async function httpRound(first) {
  const servers = [await httpServer(false), await httpServer(true)];
  for (const s of servers) await s.load(2);
  const p50us = await interleaved(
    servers.map((s) => s.once),
    2500,
    500,
  );
  const out = [];
  for (const k of first ? [1, 0] : [0, 1]) {
    const s = servers[k];
    const cpu0 = cpuMs(s.server.pid);
    const r = await s.load(6);
    const cpuUs = ((cpuMs(s.server.pid) - cpu0) * 1000) / Math.max(1, r.requests.total);
    out[k] = { rps: r.requests.average, p50us: p50us[k], meanMs: r.latency.mean, cpuUs, nonOk: r.non2xx };
  }
  for (const [k, s] of servers.entries()) {
    out[k].bad = s.bad + out[k].nonOk;
    await s.stop();
  }
  return { off: out[0], on: out[1] };
}

const results = { stdio: { on: [], off: [] }, http: { on: [], off: [] } };
for (let i = 0; i < ROUNDS; i++) {
  const s = await stdioRound(i % 2 === 1);
  const h = await httpRound(i % 2 === 1);
  for (const key of ['off', 'on']) {
    results.stdio[key].push(s[key]);
    results.http[key].push(h[key]);
  }
  process.stderr.write(`[policy bench] round ${i + 1} done\n`);
}

const med = (list, k) => median(list.map((x) => x[k]));
const row = (name, off, on, betterHigher) => {
  const ratio = on / off;
  const cost = betterHigher ? 1 - ratio : ratio - 1;
  const f = (v) => v.toFixed(v < 10 ? 2 : 1);
  return `| ${name} | ${f(off)} | ${f(on)} | ${(cost * 100).toFixed(1)}% | ${Math.abs(cost) <= 0.15 || cost < 0 ? 'within 15%' : '**over 15%**'} |`;
};
const s = results.stdio;
const h = results.http;
const lines = [
  `Policy cost${AUDIT ? '' : ' (audit off)'}, ${new Date().toISOString()} — ${machine().cpu}, ${machine().cores} cores, Node ${process.version}; \`node bench/policy.mjs --rounds ${ROUNDS}\` (medians of ${ROUNDS} rounds; p50s from blocks of calls taking turns)`,
  '',
  `| metric | policies off | ${AUDIT ? 'every policy on' : 'every policy but audit'} | cost | target |`,
  '|---|---:|---:|---:|---|',
  // Sequential p50s come from blocks of calls to the two servers in turn (both up), so they compare like with like
  // even though this shared 2-core machine moves them between ≈45 and ≈95 µs from one minute to the next.
  row('stdio echo p50 latency, sequential (µs)', med(s.off, 'p50us'), med(s.on, 'p50us'), false),
  row('stdio echo throughput, 64 in flight (calls/s)', med(s.off, 'tput'), med(s.on, 'tput'), true),
  row('stdio server CPU per call, all threads (µs)', med(s.off, 'cpuUs'), med(s.on, 'cpuUs'), false),
  row('REST echo with bearer token, 64 conns (req/s)', med(h.off, 'rps'), med(h.on, 'rps'), true),
  row('REST echo p50 latency, sequential (µs)', med(h.off, 'p50us'), med(h.on, 'p50us'), false),
  row('REST echo mean latency, 64 conns (ms)', med(h.off, 'meanMs'), med(h.on, 'meanMs'), false),
  row('REST server CPU per request, all threads (µs)', med(h.off, 'cpuUs'), med(h.on, 'cpuUs'), false),
  '',
  `Invalid answers: stdio ${[...s.on, ...s.off].reduce((n, x) => n + x.bad, 0)}, HTTP ${[...h.on, ...h.off].reduce((n, x) => n + x.bad, 0)}.`,
];
process.stdout.write(`${lines.join('\n')}\n`);
