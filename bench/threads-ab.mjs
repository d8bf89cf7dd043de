// Two Switchboard stdio servers up at once — two builds, or one build with two settings — loaded in turn with the
// echo tool at 64 in flight, round by round in alternating order, so the machine's drift hits both alike. Reports
// throughput and CPU per call split by thread: the main thread (the event loop) and the others (the audit writer,
// V8's helpers). On a 2-core machine the client, the event loop and the writer share the cores, so both matter.
// Every policy is on (a rate limit checked on every call, the default breaker, metrics, the audit trail).
// Usage: `node bench/threads-ab.mjs [--against DIR] [--audit-b false] [--policy-off-b] [--rounds 10] [--calls 150000]`
// after `npm run build`; DIR is another checkout or a copy of bin/, dist/, bench/ and package.json with node_modules.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machine, threadCpuMs } from './lib/proc.mjs';
import { ROOT, switchboardEnv, tempProject } from './lib/servers.mjs';
import { alternating, median } from './lib/stats.mjs';
import { StdioDriver } from './lib/stdio-driver.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : dflt);
const ROUNDS = Number(opt('rounds', '10'));
const CALLS = Number(opt('calls', '150000'));
const variants = [
  { label: 'A: this build', root: ROOT, audit: true, policyOff: false },
  {
    label: `B: ${opt('against', 'this build')}${opt('audit-b', 'true') === 'false' ? ', audit off' : ''}${argv.includes('--policy-off-b') ? ', SWITCHBOARD_POLICY=off' : ''}`,
    root: opt('against', ROOT),
    audit: opt('audit-b', 'true') !== 'false',
    policyOff: argv.includes('--policy-off-b'),
  },
];

function start(v) {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'), { recursive: true });
  writeFileSync(
    join(dir, '.switchboard/config.toml'),
    `[policy.rate_limit]\nlimit = 100000000\nwindow_ms = 60000\n[audit]\nenabled = ${v.audit}\n`,
  );
  return new StdioDriver({
    command: process.execPath,
    args: [join(v.root, 'bin/switchboard.js'), '--cwd', dir, 'serve', '--handlers', join(v.root, 'bench/handlers')],
    env: { ...switchboardEnv(dir), ...(v.policyOff ? { SWITCHBOARD_POLICY: 'off' } : {}) },
    tool: 'echo',
  });
}

const drivers = variants.map(start);
for (const d of drivers) {
  await d.initialize();
  await d.concurrent(20_000, 64, 60_000);
}
const rounds = variants.map(() => []);
for (let r = 0; r < ROUNDS; r++) {
  for (const k of alternating([0, 1], r)) {
    const d = drivers[k];
    const before = threadCpuMs(d.pid);
    const { done, ms } = await d.concurrent(CALLS, 64, 120_000);
    const after = threadCpuMs(d.pid);
    rounds[k].push({
      rate: (done / ms) * 1000,
      main: ((after.main - before.main) * 1000) / done,
      other: ((after.other - before.other) * 1000) / done,
    });
  }
  process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
}
const bad = drivers.reduce((n, d) => n + d.bad, 0);
for (const d of drivers) await d.close();
if (bad) throw new Error(`${bad} wrong answers`);

const m = machine();
console.log(`${m.cpu}, ${m.cores} cores, Node ${m.node}; ${ROUNDS} rounds of ${CALLS} calls at 64 in flight (medians)`);
console.log('| variant | calls/s | main thread µs/call | other threads µs/call |');
console.log('|---|---:|---:|---:|');
for (const [k, v] of variants.entries()) {
  const med = (key) => median(rounds[k].map((x) => x[key]));
  console.log(`| ${v.label} | ${Math.round(med('rate'))} | ${med('main').toFixed(2)} | ${med('other').toFixed(2)} |`);
}
