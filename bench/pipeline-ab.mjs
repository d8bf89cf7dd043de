// The pipeline's own CPU per call, without any transport: `hub.pipeline.call(echo)` in-process, 64 calls in flight,
// every policy on (a rate limit checked on every call, the default breaker, metrics, the audit trail and its writer
// thread). With no pipes and no client, its rounds vary by about 0.1 µs where a stdio load varies by 0.5 µs, so it
// decides whether a change to the pipeline, the policy step or the audit trail pays. Builds are measured in turn,
// each in a fresh process, alternating.
// Usage: `node bench/pipeline-ab.mjs [--against DIR] [--runs 3] [--env-b KEY=VALUE,...]` after `npm run build`
// (DIR: another checkout, or a copy of bin/, dist/, bench/ and package.json with node_modules).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machine, threadCpuMs } from './lib/proc.mjs';
import { ROOT, switchboardEnv, tempProject } from './lib/servers.mjs';
import { alternating, median } from './lib/stats.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : dflt);
const CALLS = 200_000;
const ROUNDS = 5;

if (argv[0] === '--child') {
  // One build, in this process: warm up, then ROUNDS rounds; prints the per-round figures as JSON.
  const root = argv[1];
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'), { recursive: true });
  writeFileSync(
    join(dir, '.switchboard/config.toml'),
    '[policy.rate_limit]\nlimit = 100000000\nwindow_ms = 60000\n[audit]\nenabled = true\n',
  );
  Object.assign(process.env, switchboardEnv(dir));
  const { createHub } = await import(join(root, 'dist/switchboard.js'));
  const hub = await createHub({ cwd: dir, handlerPaths: [join(root, 'bench/handlers')] });
  const principal = { id: 'stdio', roles: ['agent', 'admin'], kind: 'stdio' };
  let id = 0;
  const run = async (total) => {
    let started = 0;
    const chain = async () => {
      while (started++ < total) {
        const outcome = await hub.pipeline.call({
          principal,
          name: 'echo',
          input: { text: 'bench' },
          transport: 'stdio',
          requestId: String(id++),
        });
        if (!outcome.ok) throw new Error(`echo failed: ${JSON.stringify(outcome.error)}`);
      }
    };
    await Promise.all(Array.from({ length: 64 }, chain));
  };
  await run(100_000);
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const before = threadCpuMs(process.pid);
    await run(CALLS);
    const after = threadCpuMs(process.pid);
    rounds.push({
      main: ((after.main - before.main) * 1000) / CALLS,
      other: ((after.other - before.other) * 1000) / CALLS,
    });
  }
  process.stdout.write(JSON.stringify(rounds));
  process.exit(0);
}

const RUNS = Number(opt('runs', '3'));
const envOf = (spec) =>
  spec
    ? Object.fromEntries(spec.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]))
    : {};
const variants = [
  { label: 'A: this build', root: ROOT, env: {} },
  {
    label: `B: ${opt('against', 'this build')} ${opt('env-b', '')}`.trim(),
    root: opt('against', ROOT),
    env: envOf(opt('env-b')),
  },
];
const rounds = variants.map(() => []);
for (let r = 0; r < RUNS; r++) {
  for (const k of alternating([0, 1], r)) {
    const out = execFileSync(process.execPath, [import.meta.filename, '--child', variants[k].root], {
      env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'error', ...variants[k].env },
      maxBuffer: 1 << 20,
    });
    rounds[k].push(...JSON.parse(out.toString()));
  }
  process.stderr.write(`run ${r + 1}/${RUNS} done\n`);
}
const m = machine();
console.log(
  `${m.cpu}, ${m.cores} cores, Node ${m.node}; ${RUNS} processes × ${ROUNDS} rounds of ${CALLS} calls (medians)`,
);
console.log('| variant | main thread µs/call | other threads µs/call |');
console.log('|---|---:|---:|');
for (const [k, v] of variants.entries()) {
  const med = (key) => median(rounds[k].map((x) => x[key])).toFixed(2);
  console.log(`| ${v.label} | ${med('main')} | ${med('other')} |`);
}
