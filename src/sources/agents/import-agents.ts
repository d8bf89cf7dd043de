// `switchboard agents import --from agent-orchestrator`: copy agent-orchestrator's agent folders into
// `.switchboard/agents`, where the project owner can then grant them more than the defaults. An agent whose
// capabilities or registry `ref` servers were merged in is written as merged (its library stays behind); a command
// server is taken only when the operator approves it (`approveCommands`, having read it in the skip reason). A folder
// Switchboard cannot use (a key it cannot honour, switched off) is not copied, and the reason names the file.
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { commandText, orchestratorAgentsDir } from './agent-orchestrator.ts';
import { type AgentDefinition, agentsDir, loadOne } from './definitions.ts';

export interface AgentImport {
  /** The folder read. */
  from: string;
  imported: string[];
  skipped: { name: string; reason: string }[];
  /** The command servers imported with the operator's approval: agent, server and command line. */
  commands: { agent: string; server: string; command: string }[];
}

/**
 * Copy the agents of an agent-orchestrator agents folder (default: the project's `.agent-orchestrator/agents`; its
 * repository's `config/agents` works too) into `.switchboard/agents`; only `names` when given. Existing Switchboard
 * agents are kept. Each copied folder is checked as agent-orchestrator's first, so nothing arrives that grants more.
 *
 * @example
 * importOrchestratorAgents('/repo') // { from: '/repo/.agent-orchestrator/agents', imported: ['web-researcher'], skipped: [] }
 */
export function importOrchestratorAgents(
  projectDir: string,
  folder?: string,
  names: string[] = [],
  opts: { approveCommands?: boolean } = {},
): AgentImport {
  const from = folder ? resolve(projectDir, folder) : orchestratorAgentsDir(projectDir);
  const out: AgentImport = { from, imported: [], skipped: [], commands: [] };
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
    let agent: AgentDefinition;
    try {
      agent = loadOne(join(from, name), name, 'agent-orchestrator', { commandsApproved: opts.approveCommands });
    } catch (err) {
      out.skipped.push({ name, reason: (err as Error).message });
      continue;
    }
    cpSync(join(from, name), target, { recursive: true });
    if (agent.mcpInline) writeMerged(agent, target);
    for (const [server, spec] of Object.entries(rawServers(join(from, name))))
      if (spec && typeof spec === 'object' && 'command' in spec)
        out.commands.push({ agent: name, server, command: commandText(spec as Record<string, unknown>) });
    out.imported.push(name);
  }
  return out;
}

/** The servers of a folder's agent.mcp.json as written (loadOne has checked the file). */
function rawServers(dir: string): Record<string, unknown> {
  const file = join(dir, 'agent.mcp.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')).mcpServers ?? {}) : {};
}

/**
 * An agent as merged with agent-orchestrator's library, in `.switchboard/agents`' own terms: agent.json without
 * `capabilities`, their texts in the system prompt, every server itself in agent.mcp.json (placeholders Switchboard
 * fills per session kept as written).
 */
function writeMerged(agent: AgentDefinition, target: string): void {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const file = join(target, 'agent.json');
  const { capabilities: _, ...own } = JSON.parse(readFileSync(file, 'utf8'));
  writeFileSync(file, json(own));
  if (agent.systemPrompt !== undefined) writeFileSync(join(target, 'agent.system-prompt.md'), agent.systemPrompt);
  writeFileSync(join(target, 'agent.mcp.json'), json({ mcpServers: agent.mcpServers }));
}
