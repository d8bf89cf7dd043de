// Catalog search (issue 19): what a client receives in `full` against `search` exposure, how often catalog.search
// puts the right tool first and in the top 3, and its latency on a 1,000-tool catalog. The catalog is the demo
// workspace plus four upstream servers from the registry (bench/lib/catalog-workspace.mjs), served by the built CLI
// over stdio to the official SDK client. Usage: `node bench/catalog.mjs [--calls N]` after `npm run build`.
// Prints Markdown for BENCHMARKS.md; never part of `npm test`.
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { HELD_OUT, scoreSearch, TASKS } from './catalog-tasks.mjs';
import { catalogWorkspace } from './lib/catalog-workspace.mjs';
import { machine } from './lib/proc.mjs';
import { BIN, switchboardEnv } from './lib/servers.mjs';
import { quantile } from './lib/stats.mjs';

const argv = process.argv.slice(2);
const CALLS = argv.includes('--calls') ? Number(argv[argv.indexOf('--calls') + 1]) : 2000;
/** The estimator of tokens: characters ÷ 4, the usual rule of thumb for English and JSON with Claude's tokenizers. */
const tokensOf = (chars) => Math.round(chars / 4);
const log = (msg) => process.stderr.write(`[catalog bench] ${msg}\n`);
const loadAtStart = loadavg()[0];

/** `switchboard serve` over stdio in a fresh copy of the workspace with `extra` TOML; the SDK client on it. */
async function serve(extra) {
  const dir = catalogWorkspace(extra);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--cwd', dir, 'serve'],
    env: switchboardEnv(dir),
    stderr: 'inherit',
  });
  const client = new Client({ name: 'catalog-bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    async close() {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every page of tools/list: what the client hands its model. */
async function listAll(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

const sizeOf = (tools) => {
  const chars = JSON.stringify(tools).length;
  return { tools: tools.length, bytes: Buffer.byteLength(JSON.stringify(tools)), tokens: tokensOf(chars) };
};

// ── 1. What a client receives: full, search, search with the task board pinned ─────────────────────────────
log('full exposure: starting the workspace and its four upstream servers');
const full = await serve('');
const fullTools = await listAll(full.client);
await full.close();
const sizes = { full: sizeOf(fullTools) };
for (const [label, extra] of [
  ['search', '[catalog]\nexposure = "search"\n'],
  ['search, pin = ["task.*"]', '[catalog]\nexposure = "search"\npin = ["task.*"]\n'],
]) {
  log(`${label}: listing`);
  const s = await serve(extra);
  sizes[label] = sizeOf(await listAll(s.client));
  await s.close();
}

// ── 2. Quality and round-trip latency over stdio, in search exposure ────────────────────────────────────────
log('search exposure: quality sets and stdio round trips');
const searching = await serve('[catalog]\nexposure = "search"\n');
const answerChars = [];
const searchOverStdio = async (query) => {
  const result = await searching.client.callTool({ name: 'catalog__search', arguments: { query, limit: 3 } });
  if (result.isError) throw new Error(`catalog__search failed: ${JSON.stringify(result.content)}`);
  answerChars.push(JSON.stringify(result.content).length);
  return result.structuredContent.tools.map((t) => t.name);
};
const quality = await scoreSearch(searchOverStdio, TASKS);
const heldOut = await scoreSearch(searchOverStdio, HELD_OUT);
const stdioMs = [];
for (let i = 0; i < 500; i++) {
  const t0 = performance.now();
  await searching.client.callTool({
    name: 'catalog__search',
    arguments: { query: TASKS[i % TASKS.length].query, limit: 5 },
  });
  if (i >= 100) stdioMs.push(performance.now() - t0);
}
await searching.close();

// ── 3. catalog.search on a 1,000-tool catalog, in process through the pipeline ─────────────────────────────
log('1,000-tool catalog: in-process latency');
process.env.SWITCHBOARD_LOG_LEVEL = 'silent';
const { createHub, z } = await import('../dist/index.js');
const dir = catalogWorkspace('');
const hub = await createHub({ cwd: join(dir, 'packages'), env: switchboardEnv(dir) });
const registry = hub.services.registry;
// Copies of the real catalog's upstream and workspace tools under other server names, until there are 1,000.
const copies = fullTools.filter((t) => !t.name.startsWith('catalog__'));
for (let k = 0; registry.size < 1000; k++) {
  registry.batch(() => {
    for (const t of copies) {
      if (registry.size >= 1000) break;
      registry.add({
        name: `mirror${k}.${t.name.replaceAll('__', '_')}`,
        title: t.title,
        description: t.description ?? '',
        input: z.object({}).passthrough(),
        inputJsonSchema: t.inputSchema,
        source: `upstream:mirror${k}`,
        handle: () => ({}),
      });
    }
  });
}
const principal = { id: 'bench', roles: ['*'] };
const search = (query) =>
  hub.pipeline.call({ principal, name: 'catalog.search', input: { query, limit: 5 }, transport: 'internal' });
let t0 = performance.now();
const first = await search('warm up: build the index');
const buildMs = performance.now() - t0;
if (!first.ok) throw new Error(`catalog.search failed: ${first.error.message}`);
const inProcessMs = [];
for (let i = 0; i < CALLS + 200; i++) {
  t0 = performance.now();
  const out = await search(TASKS[i % TASKS.length].query);
  if (i >= 200) inProcessMs.push(performance.now() - t0);
  if (!out.ok) throw new Error(out.error.message);
}
const catalogSize = registry.size;
await hub.close();
rmSync(dir, { recursive: true, force: true });

// ── Report ───────────────────────────────────────────────────────────────────────────────────────────────────
const pct = (x, digits = 1) => `${(x * 100).toFixed(digits)} %`;
const fmt = (ms) => (ms < 10 ? ms.toFixed(2) : ms.toFixed(0));
const m = machine();
const cut = (label) => 1 - sizes[label].bytes / sizes.full.bytes;
const lines = [
  `- **Date:** ${new Date().toISOString()}`,
  `- **Machine:** ${m.cpu}, ${m.cores} cores, ${m.memGb} GB memory, ${process.platform} ${process.arch}, Node ${process.version}`,
  `- **Command:** \`npm run -s build && node bench/catalog.mjs\` (--calls ${CALLS})`,
  `- **Load average** (1 min) at start / end: ${loadAtStart.toFixed(2)} / ${loadavg()[0].toFixed(2)} (2 shared cores: p95 and p99 are mostly the scheduler).`,
  '- **Tokens** are estimated as characters ÷ 4 of the JSON of the tool definitions.',
  '',
  '| tools/list as a client receives it | tools | bytes | ~tokens | cut against full |',
  '|---|---:|---:|---:|---:|',
  ...Object.entries(sizes).map(
    ([label, s]) =>
      `| ${label} | ${s.tools} | ${s.bytes.toLocaleString('en')} | ${s.tokens.toLocaleString('en')} | ${label === 'full' ? '—' : pct(cut(label), 2)} |`,
  ),
  '',
  `A \`catalog__search\` answer (limit 3) averages ${Math.round(answerChars.reduce((a, b) => a + b, 0) / answerChars.length)} characters (~${tokensOf(answerChars.reduce((a, b) => a + b, 0) / answerChars.length)} tokens).`,
  '',
  '| search quality (catalog__search over stdio, limit 3) | tasks | right tool first | in the top 3 |',
  '|---|---:|---:|---:|',
  `| the fixed set (bench/catalog-tasks.mjs, TASKS) | ${TASKS.length} | ${pct(quality.top1)} | ${pct(quality.top3)} |`,
  `| held out (HELD_OUT, written after tuning) | ${HELD_OUT.length} | ${pct(heldOut.top1)} | ${pct(heldOut.top3)} |`,
  '',
  '| catalog.search latency | p50 (ms) | p95 (ms) | p99 (ms) |',
  '|---|---:|---:|---:|',
  `| ${catalogSize} tools, in process through the pipeline, ${CALLS} calls | ${fmt(quantile(inProcessMs, 0.5))} | ${fmt(quantile(inProcessMs, 0.95))} | ${fmt(quantile(inProcessMs, 0.99))} |`,
  `| ${sizes.full.tools} tools (the real catalog), over stdio round trip, 400 calls | ${fmt(quantile(stdioMs, 0.5))} | ${fmt(quantile(stdioMs, 0.95))} | ${fmt(quantile(stdioMs, 0.99))} |`,
  '',
  `Building the index of ${catalogSize} tools (the first search after a change of the whole catalog): ${fmt(buildMs)} ms.`,
  '',
  'Misses in the fixed set (rank 0 = not in the top 3):',
  '',
  ...quality.rows.filter((r) => r.rank !== 1).map((r) => `- ${r.rank}: "${r.query}" → ${r.names.join(', ')}`),
];
console.log(lines.join('\n'));
