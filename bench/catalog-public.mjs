// Catalog search on public data (issue 33): MetaTool's requests over its 199 plugins, and our requests over
// LiveMCPBench's 70 real MCP servers (bench/lib/public-sets.mjs), each catalog served beside every built-in tool of a
// hub, as in any real hub. Reports the right tool first and in the first three, for the tuning part and the held-out
// part of each set. Needs ../shared (or SWITCHBOARD_SHARED_DIR) and a build:
//   npm run -s build && node bench/catalog-public.mjs [--sample N] [--part tune|held-out] [--misses N] [--servers-only]
// --servers-only leaves the built-ins out of the answers (the "without the built-ins" comparison of the issue).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { machine } from './lib/proc.mjs';
import { publicSets, registerTools, score } from './lib/public-sets.mjs';
import { switchboardEnv } from './lib/servers.mjs';

const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const SAMPLE = Number(opt('--sample', 0));
const PARTS = opt('--part', 'tune,held-out').split(',');
const MISSES = Number(opt('--misses', 0));
const SERVERS_ONLY = argv.includes('--servers-only');
const shared = process.env.SWITCHBOARD_SHARED_DIR ?? resolve(import.meta.dirname, '../../shared');
if (!existsSync(join(shared, 'datasets'))) {
  console.error(`${shared}/datasets is missing: this benchmark measures on the public data sets kept there.`);
  process.exit(1);
}

process.env.SWITCHBOARD_LOG_LEVEL = 'silent';
const { createHub, z } = await import('../dist/index.js');
const principal = { id: 'bench', roles: ['*'] };
const rows = [];
for (const set of publicSets(shared)) {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-public-'));
  const hub = await createHub({ cwd: dir, env: switchboardEnv(dir) });
  const builtins = hub.services.registry.size;
  registerTools(hub.services.registry, z, set.tools);
  const search = async (query) => {
    const out = await hub.pipeline.call({
      principal,
      name: 'catalog.search',
      input: { query, limit: SERVERS_ONLY ? 50 : 3 },
      transport: 'internal',
    });
    if (!out.ok) throw new Error(out.error.message);
    const names = out.value.tools.map((t) => t.name);
    return SERVERS_ONLY ? names.filter((n) => set.tools.some((t) => `${t.server}__${t.name}` === n)) : names;
  };
  for (const part of PARTS) {
    let queries = set.queries.filter((q) => q.part === part);
    // Every k-th request: the same sample on every run.
    if (SAMPLE && queries.length > SAMPLE)
      queries = queries.filter((_, i) => i % Math.ceil(queries.length / SAMPLE) === 0);
    const r = await score(search, queries);
    rows.push({ set: set.name, part, builtins, tools: set.tools.length, ...r });
    if (MISSES)
      for (const m of r.misses.slice(0, MISSES))
        console.error(
          `[${set.name} ${part}] ${m.rank}: "${m.query}" → ${m.names.join(', ')} (want ${m.expected.join(' | ')})`,
        );
  }
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
}

const pct = (x) => `${(x * 100).toFixed(1)} %`;
const m = machine();
console.log(
  [
    `- **Date:** ${new Date().toISOString()}`,
    `- **Machine:** ${m.cpu}, ${m.cores} cores, ${m.memGb} GB memory, ${process.platform} ${process.arch}, Node ${process.version}`,
    `- **Command:** \`npm run -s build && node bench/catalog-public.mjs${argv.length ? ` ${argv.join(' ')}` : ''}\``,
    '',
    `| set | part | requests | catalog | right tool first | in the first three |`,
    '|---|---|---:|---|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.set} | ${r.part === 'tune' ? 'tuning' : 'held out'} | ${r.n} | ${r.tools} tools${SERVERS_ONLY ? '' : ` + ${r.builtins} built-in`} | ${pct(r.top1)} | ${pct(r.top3)} |`,
    ),
  ].join('\n'),
);
