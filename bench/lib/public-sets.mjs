// The public retrieval sets of issue 33, read from ../shared/datasets (never copied into the repository):
// - MetaTool (MIT): 20,615 user requests, each labelled with the one plugin of 199 that answers it. The plugins are
//   served as the tools of one upstream server, `plugins`, named by the plugin, described by plugin_des.json.
// - LiveMCPBench (Apache-2.0): 70 real MCP servers and their 527 tools, served as 70 upstream servers; the set has
//   no requests, so bench/lib/livemcp-queries.mjs holds ours, written before tuning.
// Each set is split by a hash of the request into a tuning part and a held-out part that tuning never looks at.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIVEMCP_QUERIES } from './livemcp-queries.mjs';

/** FNV-1a, 32 bits: a split that never changes with the order of the file or the machine. */
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** `tune` or `held-out`: half each, by the request's hash. */
export const partOf = (query) => (fnv1a(query) % 2 === 0 ? 'tune' : 'held-out');

/** A server or tool name as a hub's `[[servers]]` entry and upstream naming would have it. */
const segment = (raw) => raw.replace(/[^A-Za-z0-9_-]/g, '_');

/** RFC 4180 rows: quoted fields may hold commas, doubled quotes and line breaks. */
function csvRows(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = '';
  };
  const endRow = () => {
    endField();
    rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') endField();
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else field += c;
  }
  if (field || row.length) endRow();
  return rows;
}

/**
 * The two sets: `{ name, tools: [{ server, name, description, inputSchema }], queries: [{ query, expected, part }] }`,
 * `expected` holding hub tool names (`server__tool`).
 */
export function publicSets(shared) {
  const data = (...p) => join(shared, 'datasets', ...p);
  const des = JSON.parse(readFileSync(data('metatool/plugin_des.json'), 'utf8'));
  const metaTools = Object.entries(des).map(([name, description]) => ({
    server: 'plugins',
    name: segment(name),
    description,
    inputSchema: { type: 'object', properties: {} },
  }));
  const metaQueries = [];
  for (const [query, tool] of csvRows(readFileSync(data('metatool/all_clean_data.csv'), 'utf8')).slice(1)) {
    if (!query || !tool) continue;
    // catalog.search takes at most 500 characters: 62 of the requests are longer, and are cut there as a client would.
    const q = query.slice(0, 500);
    metaQueries.push({ query: q, expected: [`plugins__${segment(tool)}`], part: partOf(q) });
  }
  const servers = JSON.parse(readFileSync(data('livemcptool/tools.json'), 'utf8'));
  const liveTools = [];
  for (const entry of servers)
    for (const [server, listing] of Object.entries(entry.tools))
      for (const t of listing.tools)
        liveTools.push({
          server: segment(server),
          name: segment(t.name),
          description: t.description ?? '',
          inputSchema: t.inputSchema ?? { type: 'object', properties: {} },
        });
  const liveQueries = LIVEMCP_QUERIES.map((q) => ({ ...q, part: partOf(q.query) }));
  return [
    { name: 'MetaTool', tools: metaTools, queries: metaQueries },
    { name: 'LiveMCPBench', tools: liveTools, queries: liveQueries },
  ];
}

/**
 * Register `tools` as an upstream server's tools are (src/sources/upstream/register.ts): capability `server.tool`,
 * tool name `server__tool`, source `upstream:server`, the server's description and JSON Schema as listed.
 */
export function registerTools(registry, z, tools) {
  registry.batch(() => {
    for (const t of tools) {
      const added = registry.add({
        name: `${t.server}.${t.name}`,
        description: t.description || `${t.name} (from ${t.server})`,
        input: z.object({}).passthrough(),
        inputJsonSchema: t.inputSchema,
        source: `upstream:${t.server}`,
        feature: 'upstream',
        handle: () => ({}),
      });
      if (!added.ok) throw new Error(`${t.server}.${t.name}: ${added.message}`);
    }
  });
}

/** Top-1 and top-3 rates of `search(query) → names` over `queries`; the rows of the misses. */
export async function score(search, queries) {
  let first = 0;
  let three = 0;
  const misses = [];
  for (const q of queries) {
    const names = await search(q.query);
    const rank = names.slice(0, 3).findIndex((n) => q.expected.includes(n)) + 1;
    if (rank === 1) first++;
    if (rank >= 1) three++;
    if (rank !== 1) misses.push({ ...q, rank, names: names.slice(0, 3) });
  }
  const n = queries.length || 1;
  return { n: queries.length, top1: first / n, top3: three / n, misses };
}
