// What `switchboard init` finds on this machine: the MCP servers other clients have configured (read with the same
// importers as `mcp import`), and the coding agents that are installed (their config folder, or their command).
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { codexHome, userHome } from '../config/client-paths.ts';
import type { SecretVariable } from '../config/import-secrets.ts';
import { IMPORT_SOURCES, type ImportSource, importServers, SWITCHBOARD_ITSELF } from '../config/import-servers.ts';
import type { Raw } from '../config/load.ts';
import { executable } from '../sources/agents/providers/claude-cli.ts';
import type { AGENTS } from './install.ts';

export type Agent = (typeof AGENTS)[number];

export interface FoundServer {
  name: string;
  from: ImportSource;
  /** The file it was read from. */
  file: string;
  entry: Raw;
  /** The variables `entry` refers to in its secrets' place (import-secrets.ts). */
  secrets: SecretVariable[];
}

export interface NotImported {
  name: string;
  from: ImportSource;
  reason: string;
}

export interface Detected {
  servers: FoundServer[];
  notImported: NotImported[];
  /** The clients whose config already starts Switchboard (an earlier install). */
  connected: ImportSource[];
  /** Files that could not be read, with why. */
  unreadable: string[];
}

/**
 * Every server in every client's usual files, in the order claude-code, codex, gemini, meerkat; a name seen
 * earlier wins, later ones are listed as not imported. A file that cannot be read is reported, not fatal.
 */
export function detectServers(cwd: string, env: NodeJS.ProcessEnv = process.env): Detected {
  const servers: FoundServer[] = [];
  const notImported: NotImported[] = [];
  const connected = new Set<ImportSource>();
  const unreadable: string[] = [];
  for (const from of IMPORT_SOURCES) {
    let found: ReturnType<typeof importServers>;
    try {
      found = importServers(from, cwd, undefined, env);
    } catch (err) {
      unreadable.push((err as Error).message);
      continue;
    }
    for (const s of found.skipped)
      if (s.reason === SWITCHBOARD_ITSELF) connected.add(from);
      else notImported.push({ ...s, from });
    for (const entry of found.servers) {
      const name = String(entry.name);
      const first = servers.find((s) => s.name === name);
      if (first) notImported.push({ name, from, reason: `same name as the one from ${first.from} (${first.file})` });
      else
        servers.push({
          name,
          from,
          file: found.origins[name],
          entry,
          secrets: found.secrets.filter((s) => s.server === name),
        });
    }
  }
  return { servers, notImported, connected: [...connected], unreadable };
}

export const onPath = (command: string, env: NodeJS.ProcessEnv = process.env) =>
  (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => executable(join(dir, command)));

/** The agents present, each with what showed it: its config folder or file, or its command on PATH. */
export function detectAgents(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Array<{ agent: Agent; evidence: string }> {
  const home = userHome(env);
  const signs: Record<Agent, { paths: string[]; command: string }> = {
    'claude-code': { paths: [join(cwd, '.claude'), join(home, '.claude.json')], command: 'claude' },
    codex: { paths: [codexHome(env, home)], command: 'codex' },
    gemini: { paths: [join(cwd, '.gemini'), join(home, '.gemini')], command: 'gemini' },
  };
  const out: Array<{ agent: Agent; evidence: string }> = [];
  for (const [agent, sign] of Object.entries(signs) as Array<[Agent, (typeof signs)[Agent]]>) {
    const path = sign.paths.find((p) => existsSync(p));
    if (path) out.push({ agent, evidence: path });
    else if (onPath(sign.command, env)) out.push({ agent, evidence: `${sign.command} on PATH` });
  }
  return out;
}
