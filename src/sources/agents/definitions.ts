// Agent definitions: `.switchboard/agents/<name>/agent.json` with an optional system prompt and MCP servers.
// Read fresh on every use (they are small files people edit); a broken one is reported with its path, never hiding others.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { PERMISSION_MODES, type PermissionMode } from '../../config/schema.ts';
import { SwitchboardError } from '../../core/errors.ts';
import { describeIssues } from '../../core/pipeline.ts';

export const PROVIDERS = ['claude-cli', 'anthropic', 'openai', 'gemini'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

const AgentJson = z
  .object({
    name: z.string().min(1),
    description: z.string().default(''),
    provider: z.enum(PROVIDERS).optional(),
    model: z.string().min(1).optional(),
    max_tokens: z.number().int().min(1).optional(),
    /** Roles the agent acts with when it calls Switchboard's own capabilities (`enable_builtins`). */
    roles: z.array(z.string().min(1)).optional(),
    // What its sessions may do (docs/agents.md#permissions): a call may ask for less, never for more.
    /** The most a claude-cli session may use; unset: `acceptEdits`, or the configuration's limit when lower. */
    permission_mode: z.enum(PERMISSION_MODES).optional(),
    /** Whether a call may turn on the shell tool (`builtin_config.enable_shell`). */
    shell: z.boolean().default(false),
    /** Whether a call may use `enable_builtins`: all of them, none, or those whose capability name matches a glob. */
    builtins: z.union([z.boolean(), z.array(z.string().min(1)).min(1)]).default(true),
    /** Where sessions may work: relative to the project, or absolute; the first is the default `project_dir`. */
    directories: z.array(z.string().min(1)).min(1).default(['.']),
  })
  .strict();

/** One MCP server in `agent.mcp.json` (Claude Code's format): a command or a URL. */
export const McpServerSpec = z.union([
  z
    .object({
      type: z.literal('stdio').optional(),
      command: z.string().min(1),
      args: z.array(z.string()).default([]),
      env: z.record(z.string(), z.string()).default({}),
      cwd: z.string().optional(),
    })
    .strict(),
  z
    .object({
      /** Streamable HTTP unless `sse` (the legacy HTTP+SSE transport); both work on every provider. */
      type: z.enum(['http', 'streamable-http', 'sse']).optional(),
      url: z.string().url(),
      headers: z.record(z.string(), z.string()).default({}),
    })
    .strict(),
]);
export type McpServerSpec = z.output<typeof McpServerSpec>;
const McpJson = z.object({ mcpServers: z.record(z.string(), McpServerSpec).default({}) }).strict();

export interface AgentDefinition {
  name: string;
  description: string;
  provider?: ProviderName;
  model?: string;
  max_tokens?: number;
  roles?: string[];
  permission_mode?: PermissionMode;
  shell: boolean;
  builtins: boolean | string[];
  directories: string[];
  dir: string;
  systemPrompt?: string;
  /** Path of `agent.mcp.json` when present (claude-cli reads it itself). */
  mcpConfigPath?: string;
  mcpServers: Record<string, McpServerSpec>;
}

export interface BrokenDefinition {
  name: string;
  path: string;
  error: string;
}

export function agentsDir(projectDir: string): string {
  return join(projectDir, '.switchboard', 'agents');
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
}

/** Load one definition folder; throws an Error whose message starts with the offending path. */
function loadOne(dir: string, folder: string): AgentDefinition {
  const file = join(dir, 'agent.json');
  if (!existsSync(file)) throw new Error(`${file}: missing (every agent folder needs an agent.json)`);
  const parsed = AgentJson.safeParse(readJson(file));
  if (!parsed.success) throw new Error(`${file}: ${describeIssues(parsed.error.issues).message}`);
  if (parsed.data.name !== folder)
    throw new Error(`${file}: name '${parsed.data.name}' must equal the folder name '${folder}'`);
  const promptFile = join(dir, 'agent.system-prompt.md');
  const mcpFile = join(dir, 'agent.mcp.json');
  let mcpServers: Record<string, McpServerSpec> = {};
  if (existsSync(mcpFile)) {
    const mcp = McpJson.safeParse(readJson(mcpFile));
    if (!mcp.success) throw new Error(`${mcpFile}: ${describeIssues(mcp.error.issues).message}`);
    mcpServers = mcp.data.mcpServers;
  }
  return {
    ...parsed.data,
    dir,
    ...(existsSync(promptFile) ? { systemPrompt: readFileSync(promptFile, 'utf8') } : {}),
    ...(existsSync(mcpFile) ? { mcpConfigPath: mcpFile } : {}),
    mcpServers,
  };
}

/**
 * Every agent definition of a project, and the broken ones with their path and what is wrong.
 *
 * @example
 * const { agents, broken } = loadDefinitions('/repo');
 */
export function loadDefinitions(projectDir: string): { agents: AgentDefinition[]; broken: BrokenDefinition[] } {
  const root = agentsDir(projectDir);
  const agents: AgentDefinition[] = [];
  const broken: BrokenDefinition[] = [];
  if (!existsSync(root)) return { agents, broken };
  for (const entry of readdirSync(root, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory()) continue;
    const dir = join(root, entry.name);
    try {
      agents.push(loadOne(dir, entry.name));
    } catch (err) {
      broken.push({ name: entry.name, path: dir, error: (err as Error).message });
    }
  }
  return { agents, broken };
}

/** One definition by name; NOT_FOUND names the known agents, a broken one fails with its path. */
export function loadDefinition(projectDir: string, name: string): AgentDefinition {
  const dir = join(agentsDir(projectDir), name);
  if (!/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(name) || !existsSync(dir)) {
    const known = loadDefinitions(projectDir).agents.map((a) => a.name);
    throw new SwitchboardError(
      'NOT_FOUND',
      `No agent '${name}' in ${agentsDir(projectDir)}. ${known.length ? `Known agents: ${known.join(', ')}.` : 'No agents are defined; create .switchboard/agents/<name>/agent.json.'}`,
    );
  }
  try {
    return loadOne(dir, name);
  } catch (err) {
    throw new SwitchboardError('INVALID_INPUT', `Agent '${name}' is broken: ${(err as Error).message}`);
  }
}
