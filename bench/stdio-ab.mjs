// Side-by-side stdio load of two Switchboard builds (and the bare SDK server as the anchor), in alternating
// rounds so drift on this shared machine hits all of them alike: throughput at 64 in flight and server CPU per call.
// Usage: `node bench/stdio-ab.mjs --against <other checkout with a build> [--rounds 5] [--calls 20000]`.
// Used to decide whether a change to the stdio hot path is kept; never part of `npm test`.
import { cpuMs, memMb } from './lib/proc.mjs';
import { ROOT, serverDefs, tempProject } from './lib/servers.mjs';
import { alternating, median } from './lib/stats.mjs';
import { StdioDriver } from './lib/stdio-driver.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? dflt : argv[i + 1];
};
const against = opt('against', undefined);
const ROUNDS = Number(opt('rounds', '5'));
const CALLS = Number(opt('calls', '20000'));
const env = (extra) =>
  extra
    ? Object.fromEntries(extra.split(',').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]))
    : {};

const targets = [
  { label: 'this build', def: (p) => serverDefs(p).switchboard, env: env(opt('env', undefined)) },
  ...(against
    ? [
        {
          label: `against ${against}`,
          def: (p) => serverDefs(p, [], against).switchboard,
          env: env(opt('env-against', undefined)),
        },
      ]
    : []),
  { label: 'bare SDK v2', def: (p) => serverDefs(p).bare, env: {} },
];

async function measure(t) {
  const project = tempProject();
  const def = t.def(project);
  const [command, args] = def.stdio;
  const driver = new StdioDriver({ command, args, env: { ...def.env, ...t.env }, cwd: project, tool: def.tool });
  await driver.initialize();
  await driver.concurrent(5000, 64, 30_000); // warm-up
  const cpu0 = cpuMs(driver.pid);
  const { done, ms } = await driver.concurrent(CALLS, 64, 60_000);
  const cpu = cpuMs(driver.pid) - cpu0;
  const { rss, hwm } = memMb(driver.pid);
  const bad = driver.bad;
  await driver.close();
  if (bad) throw new Error(`${t.label}: ${bad} wrong answers, first ${driver.firstBad}`);
  return { rate: (done / ms) * 1000, cpuUs: (cpu * 1000) / done, rss, hwm };
}

const results = new Map(targets.map((t) => [t.label, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (const t of alternating(targets, r)) results.get(t.label).push(await measure(t));
  process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
}
const bare = results.get('bare SDK v2');
console.log(`stdio, ${CALLS} calls at 64 in flight, ${ROUNDS} rounds (medians; ROOT ${ROOT})`);
for (const [label, rs] of results) {
  const mid = (key) => median(rs.map((x) => x[key]));
  const ratios = rs.map((x, i) => x.rate / bare[i].rate);
  console.log(
    `${label.padEnd(40)} ${Math.round(mid('rate')).toString().padStart(7)} calls/s  ${mid('cpuUs').toFixed(1).padStart(5)} µs CPU/call  RSS ${mid('rss').toFixed(1)} MB (peak ${mid('hwm').toFixed(1)})  ×bare ${median(ratios).toFixed(2)} (${ratios.map((x) => x.toFixed(2)).join(' ')})`,
  );
}
