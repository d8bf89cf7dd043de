// The decisions of `switchboard init`, apart from any terminal: from the flags, whether a person can be asked,
// and what was found, which servers to import and which agents to connect — or that the person is to be asked.
// Without a terminal and without flags the answer is the safe one: nothing imported, nothing installed.
import { IMPORT_SOURCES, type ImportSource } from '../config/import-servers.ts';
import type { Agent, FoundServer } from './init-detect.ts';
import { AGENTS } from './install.ts';
import { CliError } from './output.ts';

export interface InitFlags {
  /** Accept what init would suggest: import every server found, connect every agent found. */
  yes?: boolean;
  /** `--import all|none|<client>,…`; false for `--no-import`. */
  import?: string | boolean;
  /** `--install detected|none|<agent>,…`; false for `--no-install`. */
  install?: string | boolean;
  /** Scope of the agents' config that install writes. */
  scope?: string;
  /** Install writes `npx -y switchboard-mcp` instead of this install's absolute path. */
  npx?: boolean;
  /** `--from-registry NAME[@VERSION]` (repeatable): servers to add from the MCP registry, withheld until approved. */
  fromRegistry?: string[];
}

/** A decision: what to do, or `ask` (a terminal and no flag that settles it). */
export type Decision<T> = { ask: false; chosen: T[] } | { ask: true; suggested: T[] };

const decided = <T>(chosen: T[]): Decision<T> => ({ ask: false, chosen });

function list<T extends string>(value: string, allowed: readonly T[], flag: string, extra: string[]): T[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = items.filter((i) => !allowed.includes(i as T));
  if (bad.length || items.length === 0)
    throw new CliError(
      `${flag}: expected ${[...extra, ...allowed].join(', ')} or a comma-separated list of ${allowed.join(', ')}, got '${value}'.`,
      2,
    );
  return items as T[];
}

/** Which of the found servers to import. */
export function decideImports(flags: InitFlags, interactive: boolean, found: FoundServer[]): Decision<FoundServer> {
  const given = flags.import;
  if (given === false || given === 'none') return decided([]);
  if (given === 'all') return decided(found);
  if (typeof given === 'string') {
    const from = list<ImportSource>(given, IMPORT_SOURCES, '--import', ['all', 'none']);
    return decided(found.filter((s) => from.includes(s.from)));
  }
  if (flags.yes) return decided(found);
  return interactive && found.length > 0 ? { ask: true, suggested: found } : decided([]);
}

/** Which agents to connect; `detected` are the ones found on this machine. */
export function decideInstalls(flags: InitFlags, interactive: boolean, detected: Agent[]): Decision<Agent> {
  const given = flags.install;
  if (given === false || given === 'none') return decided([]);
  if (given === 'detected') return decided(detected);
  if (typeof given === 'string') return decided(list<Agent>(given, AGENTS, '--install', ['detected', 'none']));
  if (flags.yes) return decided(detected);
  return interactive ? { ask: true, suggested: detected } : decided([]);
}

/** The scope installs write: `--scope`, else project (asked on a terminal when something is to be installed). */
export function decideScope(flags: InitFlags, interactive: boolean): Decision<'project' | 'user'> {
  if (flags.scope === 'project' || flags.scope === 'user') return decided([flags.scope]);
  if (flags.scope !== undefined) throw new CliError(`--scope: expected 'project' or 'user', got '${flags.scope}'.`, 2);
  return interactive && !flags.yes ? { ask: true, suggested: ['project'] } : decided(['project']);
}
