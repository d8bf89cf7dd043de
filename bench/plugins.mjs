// Plugin hook cost: calling a hook through MCP (the official SDK client over stdio to `switchboard serve`) against
// running the hook's command directly (`sh -c` in the same directory), alternating so machine noise hits both alike.
// Target: the MCP path costs at most 20 ms more at p50. Usage: `node bench/plugins.mjs [--calls N] [--rounds N]`
// after `npm run build`. Prints a table; copy it to BENCHMARKS.md with the date and machine.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { machine } from './lib/proc.mjs';
import { BIN, switchboardEnv, tempProject } from './lib/servers.mjs';
import { quantile } from './lib/stats.mjs';

const argv = process.argv.slice(2);
const arg = (name, fallback) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : fallback);
const CALLS = arg('--calls', 40);
const ROUNDS = arg('--rounds', 3);

/** Two hooks: a trivial command (overhead dominates) and a Node script (a realistic small check). */
const SCENARIOS = [
  { hook: 'noop', command: 'true' },
  { hook: 'node', command: "node -e \"require('node:fs').readdirSync('.')\"" },
];

function project() {
  const dir = tempProject();
  mkdirSync(join(dir, 'pkg'), { recursive: true });
  writeFileSync(join(dir, 'pkg/package.json'), '{}');
  mkdirSync(join(dir, '.switchboard/plugins/bench'), { recursive: true });
  const hooks = SCENARIOS.map(
    (s) => `  ${s.hook}:\n    command: '${s.command.replaceAll("'", "''")}'\n    dirs_with: [package.json]\n`,
  );
  writeFileSync(
    join(dir, '.switchboard/plugins/bench/switchboard-plugin.yml'),
    `name: bench\nhooks:\n${hooks.join('')}`,
  );
  return dir;
}

/** The variables a hook gets (src/core/process.ts minimalEnv): the anchor gets the same, so only MCP differs. */
const HOOK_ENV = Object.fromEntries(
  ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'TMPDIR', 'USER', 'SHELL']
    .filter((k) => process.env[k] !== undefined)
    .map((k) => [k, process.env[k]]),
);

/** The anchor: the command run directly, as a shell would, in the directory the hook runs in. */
function direct(command, cwd) {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { cwd, env: HOOK_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`exit ${code}`)),
    );
  });
}

async function viaMcp(client, hook) {
  const started = performance.now();
  const result = await client.callTool({ name: `bench__${hook}`, arguments: { cache: false } });
  if (result.isError) throw new Error(`hook failed: ${result.content?.[0]?.text}`);
  return performance.now() - started;
}

const dir = project();
const client = new Client({ name: 'bench', version: '1' });
await client.connect(
  new StdioClientTransport({ command: process.execPath, args: [BIN, '--cwd', dir, 'serve'], env: switchboardEnv(dir) }),
);
const results = Object.fromEntries(SCENARIOS.map((s) => [s.hook, { direct: [], mcp: [] }]));
// Warm up both paths (JIT, page cache, the SQLite file).
for (const s of SCENARIOS)
  for (let i = 0; i < 5; i++) {
    await direct(s.command, join(dir, 'pkg'));
    await viaMcp(client, s.hook);
  }
for (let round = 0; round < ROUNDS; round++) {
  for (const s of SCENARIOS) {
    for (let i = 0; i < CALLS; i++) {
      results[s.hook].direct.push(await direct(s.command, join(dir, 'pkg')));
      results[s.hook].mcp.push(await viaMcp(client, s.hook));
    }
  }
}
await client.close();

const ms = (v) => v.toFixed(2);
const m = machine();
console.log(
  `\nPlugin hook via MCP vs direct — ${new Date().toISOString()} — ${m.cpu}, ${m.cores} cores, Node ${m.node}`,
);
console.log(`node bench/plugins.mjs --calls ${CALLS} --rounds ${ROUNDS} (${CALLS * ROUNDS} calls per path and hook)\n`);
console.log('| hook command | direct p50 (ms) | MCP p50 (ms) | p50 delta (ms) | direct p95 | MCP p95 | target |');
console.log('|---|---:|---:|---:|---:|---:|---|');
let pass = true;
for (const s of SCENARIOS) {
  const r = results[s.hook];
  const d50 = quantile(r.direct, 0.5);
  const m50 = quantile(r.mcp, 0.5);
  const ok = m50 - d50 <= 20;
  pass &&= ok;
  console.log(
    `| \`${s.command}\` | ${ms(d50)} | ${ms(m50)} | ${ms(m50 - d50)} | ${ms(quantile(r.direct, 0.95))} | ${ms(quantile(r.mcp, 0.95))} | ${ok ? '≤ 20 ms ✓' : '> 20 ms ✗'} |`,
  );
}
process.exitCode = pass ? 0 : 1;
