// Benchmark: what a script tool call costs when the run continues on another instance. Two hubs in this process
// share one Redis prefix and one project; a client key both share (as a 2025 session id is shared) drives runs of
// LLM steps, every call on one hub (pinned) or alternating (each call rebuilds the run from its journal).
// Anchor: the same pinned loop on a SQLite hub, measured in the same run.
// Run: node --import tsx bench/scale-out-runs.mjs [--steps 40] [--runs 5]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHub } from '../src/hub.ts';
import { createLogger } from '../src/observe/logger.ts';
import { RedisStore } from '../src/store/redis/index.ts';
import { machine } from './lib/proc.mjs';
import { median, quantile } from './lib/stats.mjs';

const argv = process.argv.slice(2);
const arg = (name, dflt) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const STEPS = arg('--steps', 40);
const RUNS = arg('--runs', 5);
const REDIS = process.env.SWITCHBOARD_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const SRC = resolve(import.meta.dirname, '../src/index.ts');
const log = (msg) => process.stderr.write(`[scale-out-runs bench] ${msg}\n`);

const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-runs-'));
mkdirSync(join(dir, '.switchboard/scripts/compiled'), { recursive: true });
mkdirSync(join(dir, '.switchboard/scripts/nl'), { recursive: true });
writeFileSync(join(dir, '.switchboard/scripts/nl/steps.md'), '# Steps\n');
writeFileSync(
  join(dir, '.switchboard/scripts/compiled/steps.mjs'),
  `import { llm } from ${JSON.stringify(SRC)};\nexport default function* () { for (let i = 0; i < ${STEPS}; i++) yield llm('step ' + i); }\n`,
);

const prefix = `sbbench:${Date.now().toString(36)}:`;
const env = { ...process.env, SWITCHBOARD_HOME: join(dir, '.home') };
let restored = 0;
const counting = { write: (line) => (restored += line.includes('restored from its journal') ? 1 : 0) };
const open = async (store) =>
  createHub({ cwd: dir, env, logger: createLogger('info', counting), ...(store ? { store } : {}) });
const principal = { id: 'bench', roles: ['*'] };
const call = async (hub, name, input) => {
  const out = await hub.pipeline.call({ principal, name, input, transport: 'cli' });
  if (!out.ok) throw new Error(`${name}: ${out.error.message}`);
  return out.value;
};

/** Drive RUNS runs to the end; `pick(i)` chooses the hub for call i. Returns ms per continue call, by step. */
async function drive(pick) {
  const byStep = Array.from({ length: STEPS }, () => []);
  for (let r = 0; r < RUNS; r++) {
    await call(pick(0), 'script.start', { name: 'steps' });
    for (let i = 1; i <= STEPS; i++) {
      const t0 = performance.now();
      await call(pick(i), 'script.continue_compiled_script', { outputs: {} });
      byStep[i - 1].push(performance.now() - t0);
    }
  }
  return byStep;
}

const summary = (byStep) => {
  const all = byStep.flat();
  return {
    p50: median(all),
    p95: quantile(all, 0.95),
    first: median(byStep[0]),
    last: median(byStep[STEPS - 1]),
  };
};

const results = {};
try {
  const sqlite = await open();
  await drive(() => sqlite); // warm-up
  results['SQLite, one hub, pinned (anchor)'] = summary(await drive(() => sqlite));
  await sqlite.close();

  const a = await open(await RedisStore.open({ url: REDIS, prefix }));
  const b = await open(await RedisStore.open({ url: REDIS, prefix }));
  await drive(() => a); // warm-up
  results['Redis, two hubs, every call on one (pinned)'] = summary(await drive(() => a));
  restored = 0;
  results['Redis, two hubs, calls alternating (rebuild per call)'] = summary(await drive((i) => (i % 2 ? b : a)));
  // Proof the alternating leg measured what it claims: one rebuild per call after the start.
  log(`rebuilt from the journal ${restored} times in ${RUNS * STEPS} alternating calls`);
  await a.close();
  await b.close();
} finally {
  const cleaner = await RedisStore.open({ url: REDIS, prefix });
  await cleaner.dropAll();
  await cleaner.close();
  rmSync(dir, { recursive: true, force: true });
}

const m = machine();
console.log(
  `\n${new Date().toISOString()} · ${m.cores} × ${m.cpu}, Node ${m.node} · load average ${loadavg()[0].toFixed(1)} · ${STEPS} LLM steps per run, ${RUNS} runs\n`,
);
console.log('| setup | continue p50 ms | p95 ms | first step p50 ms | last step p50 ms |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, s] of Object.entries(results))
  console.log(`| ${name} | ${s.p50.toFixed(2)} | ${s.p95.toFixed(2)} | ${s.first.toFixed(2)} | ${s.last.toFixed(2)} |`);
log('done');
