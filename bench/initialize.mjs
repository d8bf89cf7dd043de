// Time from spawn to the `initialize` answer over stdio (issue 17): what an agent waits for before it counts a
// server as connected (Claude Code in `-p` mode gives its MCP servers 5 s, then goes on without them). Five starts,
// in alternating rounds: the `switchboard` command (the launcher in bin/switchboard.js, which starts `serve` from the
// V8 startup snapshot), `node bin/switchboard.js serve` (the ESM bundle, no snapshot), the bare SDK v2 server, the
// same server from a startup snapshot of its own (the fastest start the SDK alone can have) and
// the raw floor; optionally another build's two Switchboard starts (`--base <dir>`: a checkout with node_modules and
// `npm run build` done). Each start is measured idle and under oversubscription: `--load` × cores busy-loop
// children (default 4 ×), each bounded in time and killed at the end.
//
// The client is lean on purpose (it is this process, on the same cores): it spawns the server, writes the
// 2025-11-25 `initialize` request at once — as an agent does — and stops the clock when the answer's line arrives.
// The server's CPU until then is read from /proc. Medians; ratios are to the bare SDK of the same phase.
// Usage: `node bench/initialize.mjs [--runs 9] [--load 4] [--base <dir>]`. Never part of `npm test`.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { cpuMs, machine } from './lib/proc.mjs';
import { buildSdkSnapshot } from './lib/sdk-snapshot.mjs';
import { ROOT, switchboardEnv, tempProject } from './lib/servers.mjs';
import { alternating, median, sleep, withTimeout } from './lib/stats.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? dflt : argv[i + 1];
};
const RUNS = Number(opt('runs', '9'));
const LOAD = Number(opt('load', '4'));
const BASE = opt('base', undefined);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error(`--runs takes a positive integer, not '${opt('runs')}'`);
if (!(LOAD > 0)) throw new Error(`--load takes a positive number (busy loops per core), not '${opt('load')}'`);

const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'initialize-bench', version: '1' } },
})}\n`;

const project = tempProject();
// The SDK alone at its fastest start (no Switchboard): how much of the anchor a startup snapshot can save at all.
const sdk = await buildSdkSnapshot();
const sbEnv = switchboardEnv(project);
const serveArgs = (root) => ['--cwd', project, 'serve', '--handlers', join(root, 'bench/handlers')];
const switchboardStarts = (root, suffix) => [
  {
    name: `the \`switchboard\` command (snapshot)${suffix}`,
    command: join(root, 'bin/switchboard.js'),
    args: serveArgs(root),
    env: sbEnv,
    snapshot: true,
  },
  {
    name: `\`node bin/switchboard.js serve\`${suffix}`,
    command: process.execPath,
    args: [join(root, 'bin/switchboard.js'), ...serveArgs(root)],
    env: sbEnv,
  },
];
const variants = [
  ...switchboardStarts(ROOT, ''),
  ...(BASE ? switchboardStarts(BASE, ` (${BASE})`) : []),
  {
    name: 'bare SDK v2',
    command: process.execPath,
    args: [join(ROOT, 'bench/bare-sdk-server.mjs'), 'stdio'],
    bare: true,
  },
  { name: 'bare SDK v2 from a startup snapshot', command: process.execPath, args: ['--snapshot-blob', sdk.blob] },
  { name: 'raw floor', command: process.execPath, args: [join(ROOT, 'bench/raw-floor-server.mjs'), 'stdio'] },
];

/** Spawn, send `initialize` at once, time its answer; the server is stopped by closing its stdin (then killed). */
async function timeInitialize(v) {
  const t0 = performance.now();
  const child = spawn(v.command, v.args, { cwd: ROOT, env: v.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    if (stderr.length < 10_000) stderr += d;
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.stdin.write(INITIALIZE);
  try {
    const answer = await withTimeout(
      new Promise((resolve, reject) => {
        let buf = '';
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk) => {
          buf += chunk;
          const nl = buf.indexOf('\n');
          if (nl !== -1) resolve({ ms: performance.now() - t0, line: buf.slice(0, nl) });
        });
        exited.then((code) => reject(new Error(`${v.name} exited (${code}) before answering: ${stderr.slice(-2000)}`)));
      }),
      60_000,
      `${v.name} initialize`,
    );
    const cpu = cpuMs(child.pid);
    const message = JSON.parse(answer.line);
    if (message.id !== 1 || !message.result?.serverInfo)
      throw new Error(`${v.name}: not an initialize result: ${answer.line}`);
    // The command must really start from the snapshot, or its row measures the ESM bundle twice.
    if (v.snapshot && !readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').includes('--snapshot-blob'))
      throw new Error(`${v.name} did not start from the snapshot (is the Node on PATH the one that built dist/?)`);
    return { ms: answer.ms, cpu };
  } finally {
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

/** `LOAD` × cores busy loops, each ending by itself after `maxMs` in case this process dies first. */
function startBusyLoops(maxMs) {
  const n = Math.round(LOAD * cpus().length);
  const loop = `const end = Date.now() + ${maxMs}; while (Date.now() < end) {}`;
  return Array.from({ length: n }, () => spawn(process.execPath, ['-e', loop], { stdio: 'ignore' }));
}

async function stopBusyLoops(loops) {
  await Promise.all(
    loops.map((c) =>
      c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once('exit', r).kill('SIGKILL')),
    ),
  );
}

/** `RUNS` alternating rounds (the order reversed every other round); one discarded start of each first. */
async function phase(label) {
  const samples = new Map(variants.map((v) => [v, []]));
  for (const v of variants) await timeInitialize(v); // page cache, the project's state.db
  for (let round = 0; round < RUNS; round++) {
    for (const v of alternating(variants, round)) samples.get(v).push(await timeInitialize(v));
    process.stderr.write(`${label}: round ${round + 1}/${RUNS}\n`);
  }
  return samples;
}

function table(samples) {
  const bare = samples.get(variants.find((v) => v.bare));
  const bareMs = median(bare.map((s) => s.ms));
  const bareCpu = median(bare.map((s) => s.cpu));
  const rows = [
    '| start | answer ms (median) | min–max | ÷ bare SDK | server CPU ms | ÷ bare SDK |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const v of variants) {
    const s = samples.get(v);
    const ms = median(s.map((x) => x.ms));
    const cpu = median(s.map((x) => x.cpu));
    const lo = Math.min(...s.map((x) => x.ms));
    const hi = Math.max(...s.map((x) => x.ms));
    rows.push(
      `| ${v.name} | ${ms.toFixed(0)} | ${lo.toFixed(0)}–${hi.toFixed(0)} | ${(ms / bareMs).toFixed(2)}× | ${cpu.toFixed(0)} | ${(cpu / bareCpu).toFixed(2)}× |`,
    );
  }
  return rows.join('\n');
}

const m = machine();
const loads = [loadavg()[0]];
let idle;
let loaded;
try {
  idle = await phase('idle');
  loads.push(loadavg()[0]);
  // Long enough for every loaded round (a start takes seconds at 4×), bounded in case this process is killed.
  const loops = startBusyLoops(30 * 60_000);
  try {
    await sleep(500); // let the loops spin up
    loaded = await phase(`${LOAD}× oversubscribed`);
  } finally {
    await stopBusyLoops(loops);
  }
  loads.push(loadavg()[0]);
} finally {
  rmSync(project, { recursive: true, force: true });
  sdk.remove();
}

console.log(
  `\n${new Date().toISOString()}, ${m.cpu}, ${m.cores} cores, Node ${m.node}; load average ${loads.map((l) => l.toFixed(1)).join(' → ')}; medians of ${RUNS} alternating rounds\n`,
);
console.log(`Idle (no busy loops of the benchmark's own):\n\n${table(idle)}\n`);
console.log(
  `${LOAD}× oversubscribed (${Math.round(LOAD * m.cores)} busy loops on ${m.cores} cores):\n\n${table(loaded)}`,
);
