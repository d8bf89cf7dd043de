// Cold start and memory of `switchboard serve` over stdio, in alternating rounds with its anchors: the raw floor,
// the bare SDK server (and the same server started from a V8 startup snapshot of its own, the fastest start the SDK
// alone can have), `node bin/switchboard.js` (the ESM bundle) and the `switchboard` command (the launcher in
// bin/switchboard.js, which starts from the V8 startup snapshot), and optionally another build (`--base <dir>`, a
// checkout of an earlier commit with node_modules and `npm run build` done). Each start is spawn + SDK client
// connect + one tools/call; server CPU is read from /proc. Idle RSS is read 300 ms after that first answer;
// warm RSS (`--warm`) after the benchmark's warm-up load. Alternating spreads the drift of a busy machine over every
// variant; the differences to the raw floor are the figures to compare.
// Usage: `node bench/cold-start.mjs [--runs 11] [--warm] [--base <dir>]`. Never part of `npm test`.
import { readdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cpuMs, machine, memMb } from './lib/proc.mjs';
import { buildSdkSnapshot } from './lib/sdk-snapshot.mjs';
import { buildSnapshot, ROOT, switchboardEnv, tempProject } from './lib/servers.mjs';
import { alternating, median, sleep, withTimeout } from './lib/stats.mjs';
import { StdioDriver } from './lib/stdio-driver.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? dflt : argv[i + 1];
};
const RUNS = Number(opt('runs', '11'));
const BASE = opt('base', undefined);

const project = tempProject();
// The command as a user has it from its second start on: its startup snapshot built in the cache.
buildSnapshot(ROOT);
// The SDK alone at its fastest start (no Switchboard): how much of the anchor a startup snapshot can save at all.
const sdk = await buildSdkSnapshot();
const sbEnv = switchboardEnv(project);
const serveArgs = (root) => ['--cwd', project, 'serve', '--handlers', join(root, 'bench/handlers')];
const variants = [
  { name: 'raw floor', command: process.execPath, args: [join(ROOT, 'bench/raw-floor-server.mjs'), 'stdio'] },
  { name: 'bare SDK v2', command: process.execPath, args: [join(ROOT, 'bench/bare-sdk-server.mjs'), 'stdio'] },
  { name: 'bare SDK v2 from a startup snapshot', command: process.execPath, args: ['--snapshot-blob', sdk.blob] },
  ...(BASE
    ? [
        {
          name: `node bin/switchboard.js (${BASE})`,
          command: process.execPath,
          args: [join(BASE, 'bin/switchboard.js'), ...serveArgs(BASE)],
          env: sbEnv,
        },
        {
          name: `switchboard command (snapshot) (${BASE})`,
          command: join(BASE, 'bin/switchboard.js'),
          args: serveArgs(BASE),
          env: sbEnv,
        },
      ]
    : []),
  {
    name: 'node bin/switchboard.js',
    command: process.execPath,
    args: [join(ROOT, 'bin/switchboard.js'), ...serveArgs(ROOT)],
    env: sbEnv,
  },
  {
    name: 'switchboard command (snapshot)',
    command: join(ROOT, 'bin/switchboard.js'),
    args: serveArgs(ROOT),
    env: sbEnv,
  },
  // The same handler in TypeScript, as users write them: not a guardrail row, the cost users with .ts handlers see.
  {
    name: 'switchboard command (snapshot), TypeScript handler',
    command: join(ROOT, 'bin/switchboard.js'),
    args: ['--cwd', project, 'serve', '--handlers', join(ROOT, 'bench/handlers-ts')],
    env: sbEnv,
  },
];

async function coldStart(v) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: v.command,
    args: v.args,
    env: v.env,
    cwd: ROOT,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'cold-start', version: '1.0.0' });
  try {
    await withTimeout(client.connect(transport), 20_000, `${v.name} connect`);
    const r = await withTimeout(client.callTool({ name: 'echo', arguments: { text: 'cold' } }), 10_000, v.name);
    const ms = performance.now() - t0;
    const cpu = cpuMs(transport.pid);
    if (r.isError || r.structuredContent?.text !== 'cold') throw new Error(`${v.name}: ${JSON.stringify(r)}`);
    await sleep(300);
    return { ms, cpu, rss: memMb(transport.pid).rss, threads: readdirSync(`/proc/${transport.pid}/task`).length };
  } finally {
    await client.close().catch(() => {});
  }
}

const load0 = loadavg()[0];
const samples = new Map(variants.map((v) => [v, []]));
try {
  for (const v of variants) await coldStart(v); // discarded: page cache, and the project's state.db
  for (let round = 0; round < RUNS; round++) {
    for (const v of alternating(variants, round)) samples.get(v).push(await coldStart(v));
    process.stderr.write(`round ${round + 1}/${RUNS}\n`);
  }
  if (argv.includes('--warm')) {
    for (const v of variants) {
      const d = new StdioDriver({ command: v.command, args: v.args, env: v.env, cwd: ROOT, tool: 'echo' });
      try {
        await d.initialize();
        await d.sequential(2000, 30_000);
        await d.concurrent(5000, 64, 30_000);
        await sleep(200);
        v.warmRss = memMb(d.pid).rss;
      } finally {
        await d.close();
      }
    }
  }
} finally {
  rmSync(project, { recursive: true, force: true });
  sdk.remove();
}

const m = machine();
const raw = samples.get(variants[0]);
const rawMs = median(raw.map((s) => s.ms));
const rawCpu = median(raw.map((s) => s.cpu));
const bare = samples.get(variants[1]);
const bareMs = median(bare.map((s) => s.ms));
const bareCpu = median(bare.map((s) => s.cpu));
console.log(
  `\n${new Date().toISOString()}, ${m.cpu}, ${m.cores} cores, Node ${m.node}; load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}; medians of ${RUNS} alternating rounds\n`,
);
console.log(
  '| start | first answer ms | ÷ bare SDK | − raw floor | server CPU ms | ÷ bare SDK | − raw floor | idle RSS MB | threads | warm RSS MB |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const v of variants) {
  const s = samples.get(v);
  const ms = median(s.map((x) => x.ms));
  const cpu = median(s.map((x) => x.cpu));
  console.log(
    `| ${v.name} | ${ms.toFixed(0)} | ${(ms / bareMs).toFixed(2)}× | ${(ms - rawMs).toFixed(0)} | ${cpu.toFixed(0)} | ${(cpu / bareCpu).toFixed(2)}× | ${(cpu - rawCpu).toFixed(0)} | ${median(s.map((x) => x.rss)).toFixed(1)} | ${median(s.map((x) => x.threads))} | ${v.warmRss?.toFixed(1) ?? '—'} |`,
  );
}
