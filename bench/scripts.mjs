// Script executor cost: how much an auto step costs beyond the command's own run time, and whether a long script
// grows memory. Runs the real hub in this process (built dist/), with the journal in a real SQLite file.
// Usage: `node --expose-gc bench/scripts.mjs [--steps N]` after `npm run build`. Prints a table; it does not touch
// BENCHMARKS.md (copy the figures there by hand with the date and machine).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHub } from '../dist/index.js';
import { machine } from './lib/proc.mjs';
import { tempProject } from './lib/servers.mjs';
import { median, quantile } from './lib/stats.mjs';

const argv = process.argv.slice(2);
const STEPS = Number(argv[argv.indexOf('--steps') + 1]) || 1000;
const SHELL_STEPS = 300;
const principal = { id: 'bench', roles: ['*'] };

if (typeof globalThis.gc !== 'function') {
  process.stderr.write('run with node --expose-gc so the memory figures are after a full collection\n');
  process.exit(2);
}

const dir = tempProject();
const scripts = join(dir, '.switchboard', 'scripts');
mkdirSync(scripts, { recursive: true });
// The hub keeps the last 1000 call events in memory (each with its output, here a 1000-step answer); that ring is
// bounded but would fill during the memory rounds, so it is off to show the executor's own footprint.
writeFileSync(join(dir, '.switchboard', 'config.toml'), '[events]\nretain = 0\n');
mkdirSync(join(scripts, 'nl'), { recursive: true });
mkdirSync(join(scripts, 'compiled'), { recursive: true });
// Function steps that do nothing but stamp the time: the gap between two stamps is all executor (generator
// resume, result recording, the journal's SQLite append), no command.
writeFileSync(join(scripts, 'nl', 'noop.md'), '# Many no-op steps\n');
writeFileSync(
  join(scripts, 'compiled', 'noop.mjs'),
  `import { auto, llm } from 'switchboard';
   function stamp() { globalThis.__stamps.push(performance.now()); return 1; }
   export default function* (n) { for (let i = 0; i < Number(n); i++) yield auto(stamp, { i }); yield llm('done?'); }`,
);
// Shell steps running \`true\`, each followed by a function step that runs the same command directly through
// core/process (the anchor) and stamps the time around it. The time from one probe's end to the next probe's start
// is one shell step through the executor; the probe's own span is the bare command, measured right beside it, so
// the machine's noise (2 shared cores) hits both alike.
writeFileSync(join(scripts, 'nl', 'shell.md'), '# Many shell steps\n');
writeFileSync(
  join(scripts, 'compiled', 'shell.mjs'),
  `import { auto, llm, minimalEnv, runCommand } from 'switchboard';
   async function probe(_args, { cwd, signal }) {
     const t0 = performance.now();
     await runCommand('sh', ['-c', 'true'], { signal, cwd, env: minimalEnv() });
     globalThis.__pairs.push([t0, performance.now()]);
   }
   export default function* (n) { for (let i = 0; i < Number(n); i++) { yield auto('true'); yield auto(probe, {}); } yield llm('done?'); }`,
);

const hub = await createHub({
  cwd: dir,
  env: { ...process.env, SWITCHBOARD_HOME: join(dir, '.home'), SWITCHBOARD_LOG_LEVEL: 'silent' },
});
const call = (name, input) => hub.pipeline.call({ principal, name, input, transport: 'cli' });

async function runScript(name, steps) {
  const started = performance.now();
  const out = await call('script.start', { name, arguments: String(steps) });
  if (!out.ok || out.value.state !== 'llm')
    throw new Error(`script ${name} did not reach its LLM step: ${JSON.stringify(out)}`);
  const ms = performance.now() - started;
  const done = await call('script.continue_compiled_script', { outputs: {} });
  if (!done.ok || done.value.state !== 'finished') throw new Error('script did not finish');
  return ms;
}

// 1. Executor overhead per step (no command): gaps between consecutive stamps.
globalThis.__stamps = [];
await runScript('noop', 50); // warm-up: module load, statements prepared
const gaps = [];
for (let round = 0; round < 3; round++) {
  globalThis.__stamps = [];
  await runScript('noop', STEPS);
  const s = globalThis.__stamps;
  for (let i = 1; i < s.length; i++) gaps.push(s[i] - s[i - 1]);
}

// 2. Shell steps through the executor against the same command run directly right beside each one.
const viaExecutor = [];
const direct = [];
const overhead = [];
for (let round = 0; round < 3; round++) {
  globalThis.__pairs = [];
  await runScript('shell', SHELL_STEPS);
  const p = globalThis.__pairs;
  for (let i = 1; i < p.length; i++) {
    const step = p[i][0] - p[i - 1][1];
    const bare = p[i][1] - p[i][0];
    viaExecutor.push(step);
    direct.push(bare);
    overhead.push(step - bare);
  }
}

// 3. Memory: the same long script again and again; heap after a full collection should stay flat.
const heap = [];
for (let round = 0; round < 6; round++) {
  globalThis.__stamps = [];
  await runScript('noop', STEPS);
  globalThis.__stamps = [];
  globalThis.gc();
  heap.push(process.memoryUsage().heapUsed / 1024 / 1024);
}
await hub.close();
rmSync(dir, { recursive: true, force: true });

const f = (n, d = 3) => n.toFixed(d);
const m = machine();
process.stdout.write(
  `Scripts benchmark — ${new Date().toISOString()} — ${m.cores} × ${m.cpu}, ${m.memGb} GB, Node ${m.node}\n\n` +
    `| metric | value |\n|---|---:|\n` +
    `| executor overhead per auto step, no command: p50 (ms) | ${f(median(gaps))} |\n` +
    `| … p95 (ms) | ${f(quantile(gaps, 0.95))} |\n` +
    `| … p99 (ms) | ${f(quantile(gaps, 0.99))} |\n` +
    `| shell step \`true\` through the executor: p50 (ms, ${viaExecutor.length} steps) | ${f(median(viaExecutor))} |\n` +
    `| same command run directly with runCommand beside it (anchor): p50 (ms) | ${f(median(direct))} |\n` +
    `| executor overhead per shell step beyond the command (step − anchor): p50 (ms) | ${f(median(overhead))} |\n` +
    `| … p95 (ms) | ${f(quantile(overhead, 0.95))} |\n` +
    `| heap after each ${STEPS}-step run, after GC (MB) | ${heap.map((h) => f(h, 1)).join(', ')} |\n` +
    `| heap growth from run 2 to run 6 (MB) | ${f(heap[5] - heap[1], 2)} |\n`,
);
