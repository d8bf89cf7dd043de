// `npm test`: the build, the vitest suite, then the MCP conformance run, stopping at the first that fails with its
// exit code (arguments go to the conformance run, as when the script was one `&&` chain). A run that passes writes
// how long each phase took to .test-times.json (not committed); bench/run.mjs puts it in BENCHMARKS.md, so the
// suite's growth shows beside the benchmarks.
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const phases = [
  ['build', ['scripts/build.mjs']],
  ['vitest', ['node_modules/vitest/vitest.mjs', 'run']],
  ['conformance', ['test/conformance/run.mjs', ...process.argv.slice(2)]],
];
const tenths = (ms) => Math.round(ms / 100) / 10;

const seconds = {};
const started = performance.now();
for (const [phase, args] of phases) {
  const t0 = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
  seconds[phase] = tenths(performance.now() - t0);
}
const total = tenths(performance.now() - started);

/** The commit tested, and whether what the suite builds or runs had uncommitted changes (read-only git queries). */
function commitInfo() {
  try {
    const git = (...args) =>
      execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = git('status', '--porcelain', '--', 'src', 'test', 'scripts', 'bin') !== '';
    return { commit: git('rev-parse', '--short', 'HEAD'), dirty };
  } catch {
    return { commit: null, dirty: false };
  }
}
const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
writeFileSync(
  resolve(root, '.test-times.json'),
  `${JSON.stringify({ date, ...commitInfo(), total, seconds }, null, 2)}\n`,
);
