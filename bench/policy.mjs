// Policy cost: the echo tool with every policy on (token auth, rate limit, breaker, audit, metrics) against the
// same build with SWITCHBOARD_POLICY=off, in one run, alternating rounds so machine noise hits both alike.
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
import { median, quantile } from './lib/stats.mjs';
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

async function stdioRound(on) {
  const dir = project(on);
  const driver = new StdioDriver({
    command: process.execPath,
    args: [BIN, '--cwd', dir, 'serve', '--handlers', BENCH_HANDLERS],
    env: envFor(dir, on),
    tool: 'echo',
  });
  await driver.initialize();
  await driver.concurrent(5000, 64, 20_000);
  const lat = Array.from(await driver.sequential(3000, 20_000));
  // Server CPU per call (all threads, including the audit writer): steadier than rates on a shared machine.
  const cpu0 = cpuMs(driver.pid);
  const { done, ms } = await driver.concurrent(60_000, 64, 30_000);
  const cpuUs = ((cpuMs(driver.pid) - cpu0) * 1000) / done;
  const bad = driver.bad;
  await driver.close();
  return { p50us: quantile(lat, 0.5) * 1000, tput: (done / ms) * 1000, cpuUs, bad };
}

async function httpRound(on) {
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
  let bad = 0;
  const run = (seconds) =>
    autocannon({
      url,
      connections: 64,
      duration: seconds,
      requests: [
        {
          method: 'POST',
          headers,
          body: JSON.stringify({ text: 'bench' }),
          onResponse: (status) => void (status === 200 || bad++),
        },
      ],
    });
  await run(2);
  // Sequential p50 in µs: under 64 connections autocannon's latencies are whole milliseconds, too coarse for 15 %.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const body = JSON.stringify({ text: 'bench' });
  const lat = [];
  for (let i = 0; i < 2000; i++) {
    const t0 = performance.now();
    const status = await new Promise((resolve, reject) => {
      const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      });
      req.on('error', reject);
      req.end(body);
    });
    if (status !== 200) bad++;
    if (i >= 500) lat.push(performance.now() - t0);
  }
  agent.destroy();
  const seqP50us = quantile(lat, 0.5) * 1000;
  const seqBad = bad;
  bad = 0;
  const cpu0 = cpuMs(server.pid);
  const r = await run(6);
  const cpuUs = ((cpuMs(server.pid) - cpu0) * 1000) / Math.max(1, r.requests.total);
  await server.stop();
  return { rps: r.requests.average, p50us: seqP50us, meanMs: r.latency.mean, cpuUs, bad: bad + seqBad + r.non2xx };
}

const results = { stdio: { on: [], off: [] }, http: { on: [], off: [] } };
for (let i = 0; i < ROUNDS; i++) {
  for (const on of i % 2 ? [true, false] : [false, true]) {
    const key = on ? 'on' : 'off';
    results.stdio[key].push(await stdioRound(on));
    results.http[key].push(await httpRound(on));
    process.stderr.write(`[policy bench] round ${i + 1} ${key} done\n`);
  }
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
  `Policy cost${AUDIT ? '' : ' (audit off)'}, ${new Date().toISOString()} — ${machine().cpu}, ${machine().cores} cores, Node ${process.version}; \`node bench/policy.mjs --rounds ${ROUNDS}\` (medians of ${ROUNDS} alternating rounds)`,
  '',
  `| metric | policies off | ${AUDIT ? 'every policy on' : 'every policy but audit'} | cost | target |`,
  '|---|---:|---:|---:|---|',
  // Sequential p50 on this shared 2-core machine is bimodal (≈45 or ≈95 µs, by where the scheduler puts the two
  // processes) whatever the policy; read it with the CPU figures below.
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
