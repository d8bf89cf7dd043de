// Sub-agent benchmark (issue 7): Switchboard's own overhead per model turn, and whether 20 sessions running at
// once leave the hub responsive. The model is the fake Messages API answering at once; the anchor is the same
// model call made directly with @anthropic-ai/sdk in the same run, so the difference is Switchboard's cost.
// Usage: `npm run -s build && node --import tsx bench/agents.mjs [--turns N] [--store redis://…] [--root DIR]`.
// --store puts the sessions on a Redis store (a fresh key prefix, dropped afterwards) instead of the project's files;
// --root serves from another built checkout (an A/B against a baseline build). Prints a table; never part of `npm test`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { RedisStore } from '../src/store/redis/index.ts';
import { startFakeAnthropic } from '../test/helpers/fake-anthropic.ts';
import { cpuMs, machine } from './lib/proc.mjs';
import { BIN, switchboardEnv, tempProject } from './lib/servers.mjs';
import { median, quantile, withTimeout } from './lib/stats.mjs';

const argv = process.argv.slice(2);
const TURNS = Number(argv[argv.indexOf('--turns') + 1]) || 300;
const STORE = argv.includes('--store') ? argv[argv.indexOf('--store') + 1] : undefined;
const SERVE_BIN = argv.includes('--root') ? join(resolve(argv[argv.indexOf('--root') + 1]), 'bin/switchboard.js') : BIN;
const PREFIX = `sbbench:agents:${process.pid}:`;
const WARM = 50;
const PARALLEL = 20;

const log = (msg) => process.stderr.write(`[agents bench] ${msg}\n`);
const ms = (t0) => performance.now() - t0;
const fmt = (v, d = 2) => v.toFixed(d);

// Turns answer at once unless the prompt asks to be slow (the parallel phase's long-running turns).
const api = await startFakeAnthropic({
  respond: (req) => {
    const text = req.body.messages.at(-1)?.content?.at?.(-1)?.text ?? '';
    return text.startsWith('slow') ? { content: [{ type: 'text', text: 'done slowly' }], delayMs: 3000 } : 'ok';
  },
});
const project = tempProject();
mkdirSync(join(project, '.switchboard/agents/bench'), { recursive: true });
writeFileSync(
  join(project, '.switchboard/agents/bench/agent.json'),
  JSON.stringify({ name: 'bench', description: 'Benchmark agent', provider: 'anthropic', model: 'claude-bench' }),
);
writeFileSync(
  join(project, '.switchboard/config.toml'),
  `[agents]\nmax_running = 64\n${STORE ? `[store]\nkind = "redis"\nurl = "${STORE}"\nprefix = "${PREFIX}"\n` : ''}`,
);

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [SERVE_BIN, '--cwd', project, 'serve'],
  env: { ...switchboardEnv(project), ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'bench' },
  stderr: 'inherit',
});
const client = new Client({ name: 'agents-bench', version: '1.0.0' });
await client.connect(transport);
const serverPid = transport.pid;

async function call(name, args) {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${r.content?.[0]?.text}`);
  return r.structuredContent;
}

// ── Anchor: the same model call made directly (no Switchboard) ──────────────────────────────────────────
const sdk = new Anthropic({ baseURL: api.url, apiKey: 'bench', maxRetries: 0 });
async function directTurn() {
  const stream = sdk.messages.stream({
    model: 'claude-bench',
    max_tokens: 4096,
    messages: [{ role: 'user', content: 'hi' }],
  });
  await stream.finalMessage();
}

async function timed(fn, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(ms(t0));
  }
  return out;
}

log(`warming up (${WARM} turns each)`);
await timed(() => directTurn(), WARM);
await timed((i) => call('agent__start', { session_name: `warm-${i}`, agent_name: 'bench', prompt: 'hi' }), WARM);

// Alternate the anchor and the measured path in rounds so machine noise hits both alike.
const direct = [];
const starts = [];
const resumes = [];
const cpuStart = cpuMs(serverPid);
const ROUNDS = 5;
const per = Math.ceil(TURNS / ROUNDS);
for (let r = 0; r < ROUNDS; r++) {
  log(`round ${r + 1}/${ROUNDS}`);
  direct.push(...(await timed(() => directTurn(), per)));
  starts.push(
    ...(await timed(
      (i) => call('agent__start', { session_name: `s${r}-${i}`, agent_name: 'bench', prompt: 'hi' }),
      per,
    )),
  );
  // Resume the sessions just started: a two-turn history each, like a conversation's second turn.
  resumes.push(...(await timed((i) => call('agent__resume', { session_name: `s${r}-${i}`, prompt: 'again' }), per)));
}
const cpuPerTurn = (cpuMs(serverPid) - cpuStart) / (starts.length + resumes.length);

// ── 20 sessions at once ────────────────────────────────────────────────────────────────────────────────
log(`${PARALLEL} parallel turns answering at once`);
const t0 = performance.now();
const burst = await Promise.all(
  Array.from({ length: PARALLEL }, async (_, i) => {
    const t = performance.now();
    await call('agent__start', { session_name: `par-${i}`, agent_name: 'bench', prompt: 'hi' });
    return ms(t);
  }),
);
const burstWall = ms(t0);

log('responsiveness: agent__status idle, then with 20 long turns running');
const probe = () => call('agent__status', { session_name: 'par-0' });
const idle = await timed(probe, 200);
await Promise.all(
  Array.from({ length: PARALLEL }, (_, i) =>
    call('agent__start', { session_name: `long-${i}`, agent_name: 'bench', prompt: 'slow please', async: true }),
  ),
);
const busy = await timed(probe, 200);
const list = await timed(() => call('session__list', { response_format: 'json' }), 20);
const waited = await withTimeout(
  Promise.all(
    Array.from({ length: PARALLEL }, (_, i) => call('agent__status', { session_name: `long-${i}`, wait_seconds: 30 })),
  ),
  40_000,
  'the long turns',
);
const completed = waited.filter((s) => s.status === 'completed').length;

await client.close();
await api.close();
if (STORE) {
  const store = await RedisStore.open({ url: STORE, prefix: PREFIX });
  await store.dropAll();
  await store.close();
}

const m = machine();
const directP50 = median(direct);
const rows = [
  ['direct SDK call to the fake model (anchor), p50 / p99 ms', `${fmt(directP50)} / ${fmt(quantile(direct, 0.99))}`],
  [
    'agent__start over stdio (new session, one model call), p50 / p99 ms',
    `${fmt(median(starts))} / ${fmt(quantile(starts, 0.99))}`,
  ],
  ['agent__resume over stdio (second turn), p50 / p99 ms', `${fmt(median(resumes))} / ${fmt(quantile(resumes, 0.99))}`],
  ['Switchboard overhead per turn, start: p50 − anchor p50 (ms)', fmt(median(starts) - directP50)],
  ['Switchboard overhead per turn, resume: p50 − anchor p50 (ms)', fmt(median(resumes) - directP50)],
  ['Switchboard server CPU per turn (ms)', fmt(cpuPerTurn)],
  [`${PARALLEL} turns at once: wall time / per-turn p50 (ms)`, `${fmt(burstWall, 0)} / ${fmt(median(burst), 1)}`],
  ['agent__status idle, p50 / p99 ms', `${fmt(median(idle))} / ${fmt(quantile(idle, 0.99))}`],
  [`agent__status with ${PARALLEL} turns running, p50 / p99 ms`, `${fmt(median(busy))} / ${fmt(quantile(busy, 0.99))}`],
  [`session__list (${PARALLEL * 2 + TURNS + WARM} sessions) with ${PARALLEL} running, p50 ms`, fmt(median(list))],
  [`long turns completed after the probes`, `${completed} / ${PARALLEL}`],
];
const table = ['| metric | value |', '|---|---:|', ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join('\n');
process.stdout.write(
  `${table}\n\nturns measured: ${starts.length} starts + ${resumes.length} resumes (${ROUNDS} alternating rounds with the anchor)\n` +
    `sessions: ${STORE ? `Redis (${STORE})` : 'files'}; served by ${SERVE_BIN}\n` +
    `machine: ${m.cpu}, ${m.cores} cores, ${m.memGb} GB, ${m.platform}, Node ${m.node}; load average ${loadavg()[0].toFixed(2)}\n`,
);
const target = median(starts) - directP50 <= 5 && median(resumes) - directP50 <= 5;
process.stdout.write(`target overhead ≤ 5 ms p50: ${target ? 'met' : 'NOT met'}\n`);
