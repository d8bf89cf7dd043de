// `switchboard mcp search WORDS` and `switchboard mcp add --from-registry NAME[@VERSION]`: servers found in and
// installed by name from an MCP registry (`[registry] url`, docs/upstream.md#registry). An added server is written
// with `approval = "manual"`: its tools reach no client until someone has looked at them and approved them.
import { relative } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { addServer, type Scope } from '../config/server-entries.ts';
import { SwitchboardError } from '../core/errors.ts';
import { nearestNames } from '../core/nearest-names.ts';
import { RegistryClient } from '../registry/client.ts';
import { KINDS, type Kind, localName, pickEntry, Refusal } from '../registry/pick.ts';
import { officialMeta, REGISTRY_NAME, type ServerJson, type ServerResponse } from '../registry/schema.ts';
import type { Variable } from '../registry/values.ts';
import { onPath } from './init-detect.ts';
import { CliError, colour, printJson } from './output.ts';
import { table as makeTable } from './table.ts';

function client(cwd: string, refresh?: boolean): { registry: RegistryClient; url: string } {
  const { url, cache_ms } = loadConfig(cwd).config.registry;
  const warn = (m: string) => process.stderr.write(`${colour('stderr').yellow('registry')} ${m}\n`);
  return { registry: new RegistryClient({ url, cacheMs: cache_ms, refresh, warn }), url };
}

const kinds = (s: ServerJson) => [
  ...new Set([...(s.packages ?? []).map((p) => p.registryType), ...(s.remotes ?? []).map((r) => `remote ${r.type}`)]),
];

/** One entry per name: a registry that ignores `version=latest` lists every version. */
function latestOnly(list: ServerResponse[]): ServerResponse[] {
  const byName = new Map<string, ServerResponse>();
  for (const r of list) {
    const seen = byName.get(r.server.name);
    if (!seen || (officialMeta(r)?.isLatest && !officialMeta(seen)?.isLatest)) byName.set(r.server.name, r);
  }
  return [...byName.values()];
}

/** `mcp search WORDS [--limit N] [--json] [--refresh]`: every word in the name, title or description. */
export async function mcpSearch(
  words: string[],
  opts: { cwd: string; json?: boolean; limit?: string; refresh?: boolean },
): Promise<void> {
  const limit = opts.limit === undefined ? 20 : Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new CliError(`--limit: expected a whole number from 1 to 100, got '${opts.limit}'.`, 2);
  const wanted = words.map((w) => w.toLowerCase()).filter(Boolean);
  if (!wanted.length) throw new CliError('Say what to search for: switchboard mcp search WORDS…', 2);
  const { registry, url } = client(opts.cwd, opts.refresh);
  // The registry matches one substring; the longest word narrows most, the others filter here.
  const longest = [...wanted].sort((a, b) => b.length - a.length)[0];
  const found = await registry.search(longest, wanted.length > 1 ? 100 : limit);
  const matches = latestOnly(found.servers)
    .filter((r) => {
      const text = `${r.server.name} ${r.server.title ?? ''} ${r.server.description}`.toLowerCase();
      return wanted.every((w) => text.includes(w));
    })
    .slice(0, limit);
  if (opts.json)
    return printJson({
      registry: url,
      total: matches.length,
      servers: matches.map((r) => ({
        name: r.server.name,
        version: r.server.version,
        description: r.server.description,
        kinds: kinds(r.server),
        ...(officialMeta(r)?.status ? { status: officialMeta(r)?.status } : {}),
      })),
    });
  if (!matches.length) {
    process.stdout.write(`No server in the MCP registry at ${url} matches '${words.join(' ')}'.\n`);
    return;
  }
  const t = makeTable(['name', 'version', 'description', 'offers']);
  for (const r of matches) {
    const d = r.server.description;
    const status = officialMeta(r)?.status;
    t.push([
      r.server.name,
      r.server.version,
      `${d.length > 60 ? `${d.slice(0, 59)}…` : d}${status && status !== 'active' ? ` (${status})` : ''}`,
      kinds(r.server).join(', '),
    ]);
  }
  process.stdout.write(`${t.toString()}\nAdd one with: switchboard mcp add --from-registry NAME\n`);
}

export interface RegistryAddOptions {
  cwd: string;
  scope: Scope;
  /** The `[[servers]]` name (default: the registry name's last segment). */
  name?: string;
  /** Only this kind of offer: npm, pypi, oci or remote. */
  package?: string;
  refresh?: boolean;
  timeout?: string;
  /** `sandbox` and `idle_timeout_ms` from the flags (mcp.ts `stdioSettings`): for a package, not a remote. */
  stdio?: Record<string, unknown>;
}

/** Split `NAME[@VERSION]` (a registry name has no `@`). */
function parseSpec(spec: string): { name: string; version?: string } {
  const at = spec.lastIndexOf('@');
  const name = at > 0 ? spec.slice(0, at) : spec;
  const version = at > 0 ? spec.slice(at + 1) : undefined;
  if (!REGISTRY_NAME.test(name) || version === '')
    throw new CliError(
      `'${spec}' is not a registry name: expected NAME[@VERSION] such as io.github.user/server or io.github.user/server@1.2.3 (find names with switchboard mcp search WORDS).`,
      2,
    );
  return { name, ...(version ? { version } : {}) };
}

/** Names the registry has that are close to one it has not: searched by the name's last segment and its words. */
async function suggestions(registry: RegistryClient, name: string): Promise<string[]> {
  const slash = name.lastIndexOf('/');
  const last = name.slice(slash + 1).toLowerCase();
  // The registry matches substrings: a typo in the server part is found through its namespace, one in the namespace
  // through the server part and its words.
  const words = last.split(/[-_.]/).filter((w) => w.length > 2 && w !== 'mcp' && w !== 'server');
  const terms = [name.slice(0, slash + 1).toLowerCase(), last, ...words];
  const known = new Set<string>();
  for (const term of [...new Set(terms)].slice(0, 4)) {
    for (const r of (await registry.search(term, 100)).servers) known.add(r.server.name);
    if (known.size >= 5) break;
  }
  const near = nearestNames(name, known, 5);
  return near.length ? near : [...known].slice(0, 5);
}

/** Find, pick and write one registry server; answers the lines to tell the user. */
export async function addFromRegistry(spec: string, opts: RegistryAddOptions): Promise<string[]> {
  const { name, version } = parseSpec(spec);
  if (opts.package !== undefined && !KINDS.includes(opts.package as Kind))
    throw new CliError(`--package: expected ${KINDS.join(', ')}, got '${opts.package}'.`, 2);
  const { registry, url } = client(opts.cwd, opts.refresh);
  const found = await registry.server(name, version);
  if (!found) {
    const known = version ? await registry.versions(name) : undefined;
    if (known?.servers.length)
      throw new CliError(
        `${name} has no version ${version} in the MCP registry at ${url}. Its versions: ${known.servers.map((r) => r.server.version).join(', ')}.`,
      );
    const near = await suggestions(registry, name);
    throw new CliError(
      `No server '${name}' in the MCP registry at ${url}.${near.length ? ` Did you mean: ${near.join(', ')}?` : ''} Search with: switchboard mcp search WORDS`,
    );
  }
  const server = found.server;
  const status = officialMeta(found)?.status;
  if (status === 'deleted')
    throw new CliError(`${server.name}@${server.version} is deleted from the MCP registry at ${url}; it is not added.`);
  const local = opts.name ?? localName(server.name);
  let picked: ReturnType<typeof pickEntry>;
  try {
    picked = pickEntry(server, { name: local, kind: opts.package as Kind | undefined, onPath: (c) => onPath(c) });
  } catch (err) {
    if (err instanceof Refusal) throw new CliError(`Not added: ${err.message}`);
    throw err;
  }
  if (opts.timeout !== undefined) {
    const ms = Number(opts.timeout);
    if (!Number.isInteger(ms) || ms < 1)
      throw new CliError(`--timeout: expected milliseconds (a positive integer), got '${opts.timeout}'.`, 2);
    picked.entry.timeout_ms = ms;
  }
  if (opts.stdio && Object.keys(opts.stdio).length) {
    if (!picked.entry.command)
      throw new CliError(
        `${server.name} is added as a remote server (a URL): --sandbox, --allow-read, --allow-write, --no-network and --idle-timeout are for a package Switchboard starts.`,
        2,
      );
    Object.assign(picked.entry, opts.stdio);
  }
  let file: string;
  try {
    file = addServer(opts.scope, opts.cwd, picked.entry);
  } catch (err) {
    if (err instanceof SwitchboardError && err.code === 'CONFLICT')
      throw new CliError(`${err.message} Or add it under another name: --name OTHER`);
    throw err;
  }
  const lines = [
    `Added MCP server '${local}' from the MCP registry (${server.name}@${server.version}: ${picked.summary}) to ${opts.scope} scope: ${relative(opts.cwd, file) || file}`,
    `It starts withheld (approval = "manual"): no client sees its tools until you have checked them and run: switchboard mcp approve ${local}`,
  ];
  if (status === 'deprecated')
    lines.push(`${colour().yellow('deprecated')} the registry marks this version deprecated.`);
  lines.push(...variableLines(picked.variables));
  for (const n of picked.notes) lines.push(`${colour().dim('note')} ${n}`);
  return lines;
}

function variableLines(variables: Variable[]): string[] {
  const out: string[] = [];
  const width = Math.max(0, ...variables.map((v) => v.name.length));
  const describe = (v: Variable) =>
    `  ${v.name.padEnd(width)}  ${[v.secret ? 'secret' : '', v.default !== undefined ? `default ${JSON.stringify(v.default)}` : '', v.where].filter(Boolean).join(', ')}${v.description ? ` — ${v.description}` : ''}`;
  const required = variables.filter((v) => v.required);
  const optional = variables.filter((v) => !v.required);
  if (required.length)
    out.push(
      'Set these environment variables where Switchboard runs (it connects once they are set):',
      ...required.map(describe),
    );
  if (optional.length) out.push('Optional:', ...optional.map(describe));
  return out;
}

/** `mcp add --from-registry NAME[@VERSION] [--name LOCAL] [--package KIND] [--refresh]` */
export async function mcpAddFromRegistry(
  spec: string,
  command: string[],
  opts: Omit<RegistryAddOptions, 'scope'> & {
    scope: Scope;
    url?: string;
    header?: string[];
    env?: string[];
    transport?: string;
  },
): Promise<void> {
  const extra = [
    command.length ? 'a command after --' : '',
    opts.url ? '-u' : '',
    opts.header?.length ? '-H' : '',
    opts.env?.length ? '-e' : '',
    opts.transport ? '-t' : '',
  ].filter(Boolean);
  if (extra.length)
    throw new CliError(
      `--from-registry takes the command, URL and variables from the registry; drop ${extra.join(', ')} (edit the entry afterwards to change them).`,
      2,
    );
  const lines = await addFromRegistry(spec, opts);
  process.stdout.write(`${lines.join('\n')}\n`);
}
