// `switchboard agents import --from agent-orchestrator`: copy agent-orchestrator's agent folders into
// `.switchboard/agents`, where the project owner can then grant them more than the defaults. A folder Switchboard
// cannot use (a key it cannot honour, a registry `ref`, switched off) is not copied, and the reason names the file.
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { orchestratorAgentsDir } from './agent-orchestrator.ts';
import { agentsDir, loadOne } from './definitions.ts';

export interface AgentImport {
  /** The folder read. */
  from: string;
  imported: string[];
  skipped: { name: string; reason: string }[];
}

/**
 * Copy the agents of an agent-orchestrator agents folder (default: the project's `.agent-orchestrator/agents`; its
 * repository's `config/agents` works too) into `.switchboard/agents`; only `names` when given. Existing Switchboard
 * agents are kept. Each copied folder is checked as agent-orchestrator's first, so nothing arrives that grants more.
 *
 * @example
 * importOrchestratorAgents('/repo') // { from: '/repo/.agent-orchestrator/agents', imported: ['web-researcher'], skipped: [] }
 */
export function importOrchestratorAgents(projectDir: string, folder?: string, names: string[] = []): AgentImport {
  const from = folder ? resolve(projectDir, folder) : orchestratorAgentsDir(projectDir);
  const out: AgentImport = { from, imported: [], skipped: [] };
  if (!existsSync(from)) return out;
  const present = readdirSync(from, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort((a, b) => a.localeCompare(b));
  for (const name of names.filter((n) => !present.includes(n)))
    out.skipped.push({ name, reason: `no folder ${join(from, name)}` });
  for (const name of names.length ? present.filter((n) => names.includes(n)) : present) {
    const target = join(agentsDir(projectDir), name);
    if (existsSync(target)) {
      out.skipped.push({ name, reason: `already in ${target} (kept as it is)` });
      continue;
    }
    try {
      loadOne(join(from, name), name, 'agent-orchestrator');
    } catch (err) {
      out.skipped.push({ name, reason: (err as Error).message });
      continue;
    }
    cpSync(join(from, name), target, { recursive: true });
    out.imported.push(name);
  }
  return out;
}
