// A project's Meerkat server file, `.rkat/mcp.toml`, read as `serve` serves it: its `[[servers]]` are upstream
// servers beside the config files' own, re-read when it changes (as `.mekara/scripts` are). Switchboard's config
// files win on a name. Only the project's file: the user's `~/.rkat/mcp.toml` would apply to every project's hub,
// and `mcp import --from meerkat` copies its servers into a Switchboard config file once.
import { existsSync } from 'node:fs';
import { SwitchboardError } from '../core/errors.ts';
import { meerkatMcpFile } from './client-paths.ts';
import { type Raw, readToml } from './load.ts';
import { fromMeerkatSpelling } from './schema.ts';
import { serverEntryProblems } from './server-entries.ts';

export interface RkatServers {
  file: string;
  /** The entries in Switchboard's spelling, variables unexpanded (each server expands its own when it connects). */
  servers: Raw[];
}

const isPlain = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The servers of `<project>/.rkat/mcp.toml` (none when there is no such file). A file that does not parse, or an
 * entry Switchboard cannot serve, throws INVALID_INPUT naming the file, the server and the key — never skipped.
 *
 * @example
 * readRkatServers('/repo').servers // [{ name: 'filesystem', command: 'npx', args: [...] }]
 */
export function readRkatServers(projectDir: string): RkatServers {
  const file = meerkatMcpFile('project', projectDir);
  if (!existsSync(file)) return { file, servers: [] };
  const raw = readToml(file);
  const problems: string[] = [];
  const unknown = Object.keys(raw).filter((k) => k !== 'servers');
  if (unknown.length)
    problems.push(`unknown key ${unknown.map((k) => `'${k}'`).join(', ')} (Meerkat's file has [[servers]])`);
  if (raw.servers !== undefined && !Array.isArray(raw.servers)) problems.push('servers: expected [[servers]] tables');
  const servers: Raw[] = [];
  const seen = new Set<string>();
  for (const [i, entry] of (Array.isArray(raw.servers) ? raw.servers : []).entries()) {
    const name = isPlain(entry) && typeof entry.name === 'string' ? entry.name : undefined;
    const at = `servers.${name ?? i}`;
    if (!isPlain(entry) || !name) {
      problems.push(`${at}: expected a table with a name`);
      continue;
    }
    if (seen.has(name)) problems.push(`${at}: the name is given twice`);
    seen.add(name);
    if (typeof entry.oauth_account === 'string') {
      problems.push(`${at}.oauth_account: Meerkat's OAuth login is not Switchboard's; give the server its headers`);
      continue;
    }
    const { entry: spelled, issues } = fromMeerkatSpelling(entry);
    const wrong = issues.length ? issues.map((p) => `${p.path}: ${p.message}`) : serverEntryProblems(spelled);
    if (wrong.length) problems.push(...wrong.map((p) => `${at}: ${p}`));
    else servers.push(spelled);
  }
  if (problems.length)
    throw new SwitchboardError('INVALID_INPUT', `Invalid Meerkat server file (${file}): ${problems.join('; ')}`, {
      file,
    });
  return { file, servers };
}
