// Proxy overhead: the bare SDK echo server called directly over stdio, and the same server behind
// `switchboard serve` as an upstream (`up__echo`), all up at once: latency is measured in blocks of calls taking
// turns and throughput in rotating order, so machine noise hits every path alike.
// Targets (issue 4): at most +100 µs p50 over direct, and at least 60% of direct throughput.
// Usage: `node bench/upstream.mjs [--rounds N] [--quick]` after `npm run build`. Prints a table; copy it into
// BENCHMARKS.md with the date and machine. `--profile` instead CPU-profiles Switchboard (`node --cpu-prof`) under
// the proxied load and prints self and inclusive time for the sequential and the concurrent window.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { render, summarise } from './lib/cpuprofile.mjs';
import { cpuMs, machine } from './lib/proc.mjs';
import { BIN, ROOT, switchboardEnv, tempProject } from './lib/servers.mjs';
import { alternating, median, quantile, sleep } from './lib/stats.mjs';
import { StdioDriver } from './lib/stdio-driver.mjs';

const argv = process.argv.slice(2);
const ROUNDS = Number(argv[argv.indexOf('--rounds') + 1]) || 3;
const QUICK = argv.includes('--quick');
const SEQ = QUICK ? 1000 : 4000;
const TPUT = QUICK ? 4000 : 15000;
const INFLIGHT = 32;
const BLOCK = 200;
const BARE = join(ROOT, 'bench/bare-sdk-server.mjs');
// `--against DIR`: also proxy through another build (a copy of bin/ and dist/, e.g. the commit before a change),
// up and measured in turn with this one, so a change is measured against its baseline in the same run.
const AGAINST = argv.includes('--against') ? argv[argv.indexOf('--against') + 1] : undefined;
// `--ab DIR` (or `--ab DIR1,DIR2`): only this build (DIR1) against DIR, both running at once and called in alternating blocks of 200
// sequential calls and of 2000 concurrent ones, so machine noise hits both alike (for one change's before/after).
const AB = argv.includes('--ab') ? argv[argv.indexOf('--ab') + 1] : undefined;

function direct() {
  return new StdioDriver({ command: process.execPath, args: [BARE, 'stdio'], tool: 'echo' });
}

/** The same server behind a byte relay (bench/relay-floor.mjs): the floor any stdio proxy starts from. */
function relayed() {
  return new StdioDriver({
    command: process.execPath,
    args: [join(ROOT, 'bench/relay-floor.mjs'), process.execPath, BARE, 'stdio'],
    tool: 'echo',
  });
}

/** Switchboard proxying the bare server; `unfenced`: with `sandbox = "off"` (by default it runs in bubblewrap). */
function proxied(nodeFlags = [], bin = BIN, unfenced = false) {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'), { recursive: true });
  writeFileSync(
    join(dir, '.switchboard/config.toml'),
    `[[servers]]\nname = "up"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(BARE)}, "stdio"]\n${unfenced ? 'sandbox = "off"\n' : ''}`,
  );
  return new StdioDriver({
    command: process.execPath,
    args: [...nodeFlags, bin, '--cwd', dir, 'serve'],
    env: switchboardEnv(dir),
    tool: 'up__echo',
  });
}

/**
 * Start a driver and wait until its echo answers (an upstream connects in the background), then warm it until V8
 * has optimised its hot path. 500 sequential calls were not enough for Switchboard: even after 2,000, `perf` showed
 * V8's compiler threads busy with its code for 149 ms of the next 4,000 sequential calls (22 ms after this warm-up),
 * so the first blocks measured the compiler beside the proxy on two cores. Every path gets the same warm-up.
 */
async function ready(driver) {
  await driver.initialize();
  for (let i = 0; i < 200 && !(await driver.call(-1).catch(() => false)); i++) await sleep(50);
  driver.bad = 0;
  await driver.concurrent(QUICK ? 2000 : 20_000, INFLIGHT, 60_000);
  await driver.sequential(QUICK ? 500 : 2000, 60_000);
}

/**
 * One round: every path up at once; sequential latency measured in blocks of BLOCK back-to-back calls, the paths
 * taking turns block by block, so a slow minute on this shared machine hits every path alike (call by call in turn
 * would measure something else: each call would find its processes cold from waiting); then each path's
 * throughput on its own, the order rotating from round to round.
 */
async function round(paths, r) {
  const drivers = paths.map(([label, make]) => ({ label, driver: make() }));
  try {
    for (const { driver } of drivers) await ready(driver);
    const n = drivers.length;
    const lat = drivers.map(() => []);
    const seqCpu = drivers.map(() => 0);
    // Blocks of back-to-back calls (the hot loop the target is about), the paths taking turns block by block.
    for (let b = 0; b < SEQ / BLOCK; b++) {
      for (let j = 0; j < n; j++) {
        const k = (b + j) % n;
        const { driver } = drivers[k];
        await driver.sequential(20, 10_000);
        const cpu0 = cpuMs(driver.pid);
        lat[k].push(...(await driver.sequential(BLOCK, 60_000)));
        seqCpu[k] += cpuMs(driver.pid) - cpu0;
      }
    }
    const out = drivers.map((_, k) => ({
      p50: median(lat[k]) * 1000,
      p99: quantile(lat[k], 0.99) * 1000,
      seqCpuUsPerCall: (seqCpu[k] * 1000) / lat[k].length,
    }));
    for (let j = 0; j < n; j++) {
      const k = (r + j) % n;
      const { driver, label } = drivers[k];
      await driver.concurrent(2000, INFLIGHT, 20_000);
      const cpu0 = cpuMs(driver.pid);
      const run = await driver.concurrent(TPUT, INFLIGHT, 60_000);
      Object.assign(out[k], {
        rps: (run.done / run.ms) * 1000,
        cpuUsPerCall: ((cpuMs(driver.pid) - cpu0) * 1000) / run.done,
      });
      if (driver.bad) throw new Error(`${label}: ${driver.bad} wrong answers, first: ${driver.firstBad}`);
    }
    return out;
  } finally {
    for (const { driver } of drivers) await driver.close();
  }
}

/** CLOCK_MONOTONIC in µs — the clock V8 stamps profile samples with. */
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

// Inclusive frames worth reading on the proxied path (names as they appear in the bundles).
const INCLUSIVE = [
  'call',
  'execute',
  'validate',
  'callTool',
  'forward',
  'send',
  'flush',
  'onmessage',
  'processReadBuffer',
  'readMessage',
  'deserializeMessage',
  'parse',
  'safeParse',
  'stringify',
  'toCallToolResult',
  'runFastCall',
  'AbortController',
  'addEventListener',
  'setTimeout',
  'setImmediate',
];
const CALLERS = ['safeParse', 'parse', 'stringify', 'AbortController', 'setTimeout', 'writeUtf8String', 'writev'];

/** Profile Switchboard while it proxies: one sequential and one concurrent window, summarised. */
async function profile() {
  const dir = join(ROOT, 'bench/results/profiles', `${new Date().toISOString().replace(/[:.]/g, '-')}-upstream`);
  mkdirSync(dir, { recursive: true });
  const driver = proxied(['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${dir}`]);
  const windows = [];
  try {
    await driver.initialize();
    for (let i = 0; i < 200 && !(await driver.call(-1).catch(() => false)); i++) await sleep(50);
    await driver.sequential(500, 20_000);
    let from = nowUs();
    const lat = await driver.sequential(SEQ * 2, 60_000);
    windows.push({
      from,
      to: nowUs(),
      title: `sequential, ${lat.length} calls, p50 ${(median(lat) * 1000).toFixed(0)} µs`,
    });
    await driver.concurrent(2000, INFLIGHT, 20_000);
    from = nowUs();
    const run = await driver.concurrent(TPUT * 2, INFLIGHT, 60_000);
    windows.push({
      from,
      to: nowUs(),
      title: `${INFLIGHT} in flight, ${((run.done / run.ms) * 1000).toFixed(0)} calls/s`,
    });
  } finally {
    await driver.close();
  }
  for (let i = 0; i < 50 && !readdirSync(dir).some((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f)); i++) await sleep(100);
  const file = join(
    dir,
    readdirSync(dir)
      .filter((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f))
      .sort()
      .at(-1),
  );
  for (const w of windows) {
    const s = summarise(file, { root: ROOT, fromUs: w.from, toUs: w.to, inclusive: INCLUSIVE, callers: CALLERS });
    console.log(`${render(`switchboard proxying up__echo — ${w.title}`, s, 30)}\n`);
  }
  console.log(`profile: ${file}`);
}

/** This build and `other`, side by side, in fine-grained alternation; prints medians per path. */
async function ab(spec) {
  // `--ab OTHER` compares this build with OTHER; `--ab ONE,OTHER` two other builds.
  const [one, other] = spec.includes(',') ? spec.split(',') : [undefined, spec];
  const paths = [
    { label: one ?? 'this build', driver: proxied([], one ? join(one, 'bin/switchboard.js') : BIN) },
    { label: other, driver: proxied([], join(other, 'bin/switchboard.js')) },
  ];
  for (const p of paths) {
    await p.driver.initialize();
    for (let i = 0; i < 200 && !(await p.driver.call(-1).catch(() => false)); i++) await sleep(50);
    await p.driver.sequential(500, 20_000);
    await p.driver.concurrent(2000, INFLIGHT, 20_000);
    p.driver.bad = 0;
    Object.assign(p, { p50: [], rps: [], cpuSeqMs: 0, seqCalls: 0, cpuMs: 0, calls: 0 });
  }
  try {
    for (let block = 0; block < ROUNDS * 10; block++) {
      for (const p of alternating(paths, block)) {
        // CPU is counted in 10 ms ticks: summed over all blocks, not per block.
        let c0 = cpuMs(p.driver.pid);
        const lat = await p.driver.sequential(200, 20_000);
        p.cpuSeqMs += cpuMs(p.driver.pid) - c0;
        p.seqCalls += lat.length;
        p.p50.push(median(lat) * 1000);
        c0 = cpuMs(p.driver.pid);
        const run = await p.driver.concurrent(2000, INFLIGHT, 20_000);
        p.cpuMs += cpuMs(p.driver.pid) - c0;
        p.calls += run.done;
        p.rps.push((run.done / run.ms) * 1000);
      }
    }
    for (const p of paths)
      if (p.driver.bad) throw new Error(`${p.label}: ${p.driver.bad} wrong answers: ${p.driver.firstBad}`);
  } finally {
    for (const p of paths) await p.driver.close();
  }
  console.log(`# A/B, ${ROUNDS * 10} alternating blocks each, load ${loadavg()[0].toFixed(1)}`);
  console.log(
    '| build | p50 µs (median of block p50s) | calls/s | CPU µs/call 32 in flight | CPU µs/call sequential |',
  );
  console.log('|---|---:|---:|---:|---:|');
  for (const p of paths)
    console.log(
      `| ${p.label} | ${median(p.p50).toFixed(0)} | ${median(p.rps).toFixed(0)} | ${((p.cpuMs * 1000) / p.calls).toFixed(1)} | ${((p.cpuSeqMs * 1000) / p.seqCalls).toFixed(0)} |`,
    );
}

if (AB) {
  await ab(AB);
  process.exit(0);
}

if (argv.includes('--profile')) {
  await profile();
  process.exit(0);
}

const rows = { direct: [], relay: [], proxied: [], unfenced: [], against: [] };
const paths = [
  ['direct', direct],
  ['relay', relayed],
  ['proxied', proxied],
  ['unfenced', () => proxied([], BIN, true)],
  ...(AGAINST ? [['against', () => proxied([], join(AGAINST, 'bin/switchboard.js'))]] : []),
];
for (let r = 0; r < ROUNDS; r++) {
  const out = await round(paths, r);
  for (const [k, [label]] of paths.entries()) rows[label].push(out[k]);
  process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
}
const med = (list, key) => median(list.map((x) => x[key]));
const summary = (list) => ({
  p50: med(list, 'p50'),
  p99: med(list, 'p99'),
  rps: med(list, 'rps'),
  cpu: med(list, 'cpuUsPerCall'),
  seqCpu: med(list, 'seqCpuUsPerCall'),
});
const d = summary(rows.direct);
const p = summary(rows.proxied);
const fmt = (n) => n.toFixed(0);
const m = machine();
console.log(
  `# Upstream proxy overhead — ${new Date().toISOString()}, ${m.cpu}, ${m.cores} cores, Node ${m.node}, load ${loadavg()[0].toFixed(1)}`,
);
console.log(
  `(median of ${ROUNDS} rounds; ${SEQ} sequential calls per path, in blocks of ${BLOCK} taking turns, ${TPUT} calls with ${INFLIGHT} in flight)\n`,
);
console.log('| path | p50 µs | p99 µs | calls/s | Switchboard CPU µs/call (32 in flight / sequential) |');
console.log('|---|---:|---:|---:|---:|');
console.log(`| direct (bare SDK echo over stdio) | ${fmt(d.p50)} | ${fmt(d.p99)} | ${fmt(d.rps)} | — |`);
const line = (label, x) =>
  console.log(`| ${label} | ${fmt(x.p50)} | ${fmt(x.p99)} | ${fmt(x.rps)} | ${fmt(x.cpu)} / ${fmt(x.seqCpu)} |`);
line('through a byte relay (floor, `bench/relay-floor.mjs`)', summary(rows.relay));
line('through Switchboard (`up__echo`, server fenced by bubblewrap: the default)', p);
line('through Switchboard, server unfenced (`sandbox = "off"`)', summary(rows.unfenced));
if (AGAINST) line(`through ${AGAINST} (baseline)`, summary(rows.against));
const added = p.p50 - d.p50;
const share = p.rps / d.rps;
console.log(`\nadded p50: ${fmt(added)} µs (target ≤ 100) — ${added <= 100 ? 'met' : 'NOT met'}`);
console.log(`throughput: ${(share * 100).toFixed(0)}% of direct (target ≥ 60%) — ${share >= 0.6 ? 'met' : 'NOT met'}`);
console.log(`switchboard CPU per proxied call: ${fmt(p.cpu)} µs`);
// Every round, so the rounds can be compared one by one (the medians above hide the spread).
const show = (x, base) =>
  `${fmt(x.p50)} µs (+${fmt(x.p50 - base.p50)}) ${fmt(x.rps)}/s (${((x.rps / base.rps) * 100).toFixed(0)}%) CPU ${fmt(x.cpuUsPerCall)}/${fmt(x.seqCpuUsPerCall)} µs`;
for (let r = 0; r < ROUNDS; r++) {
  const x = rows.direct[r];
  console.log(
    `round ${r + 1}: direct ${fmt(x.p50)} µs ${fmt(x.rps)}/s · relay ${show(rows.relay[r], x)} · proxied ${show(rows.proxied[r], x)} · unfenced ${show(rows.unfenced[r], x)}${AGAINST ? ` · baseline ${show(rows.against[r], x)}` : ''}`,
  );
}
