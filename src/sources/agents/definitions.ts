// Agent definitions: `.switchboard/agents/<name>/agent.json` with an optional system prompt and MCP servers, and
// agent-orchestrator's blueprints in `.agent-orchestrator/agents/` as they are (agent-orchestrator.ts).
// Read fresh on every use (they are small files people edit); a broken one is reported with its path, never hiding others.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { z } from 'zod';
import { PERMISSION_MODES, type PermissionMode, PROFILE_NAME } from '../../config/schema.ts';
import { SwitchboardError } from '../../core/errors.ts';
import { describeIssues } from '../../core/pipeline.ts';
import { CALLER_LIMIT_ENV } from '../../policy/caller-limit.ts';
import {
  type DefinitionSource,
  hasSessionPlaceholders,
  keyProblem,
  mcpServerProblem,
  orchestratorAgentsDir,
} from './agent-orchestrator.ts';
import { mergedPrompt, mergeLibrary } from './orchestrator-library.ts';

export const PROVIDERS = ['claude-cli', 'anthropic', 'openai', 'gemini'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** A JSON Schema object (checked with Ajv where it is used). */
const JsonSchema = z.record(z.string(), z.unknown());

const AgentJson = z
  .object({
    name: z.string().min(1),
    description: z.string().default(''),
    /** agent-orchestrator's agent type: Switchboard's agents are `autonomous` (procedural is refused by name). */
    type: z.literal('autonomous').optional(),
    /** Labels to find agents by (agent__list `tags`); agent-orchestrator's `internal` / `external` among them. */
    tags: z.array(z.string().min(1)).default([]),
    /** The parameters a start must pass (JSON Schema, type object); they become the first prompt's `<inputs>`. */
    parameters_schema: JsonSchema.optional(),
    /** The JSON Schema a session's final answer must match unless the call gives its own. */
    output_schema: JsonSchema.optional(),
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
    /**
     * The `[profiles.NAME]` tool set its sessions see: the built-ins it is offered, and the Switchboard its MCP
     * servers start (they get SWITCHBOARD_PROFILE).
     */
    profile: z
      .string()
      .regex(PROFILE_NAME, "a profile name is 1 to 64 characters from A-Z, a-z, 0-9, '_' and '-'")
      .optional(),
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
  source: DefinitionSource;
  tags: string[];
  parameters_schema?: Record<string, unknown>;
  output_schema?: Record<string, unknown>;
  provider?: ProviderName;
  model?: string;
  max_tokens?: number;
  roles?: string[];
  permission_mode?: PermissionMode;
  shell: boolean;
  builtins: boolean | string[];
  directories: string[];
  profile?: string;
  dir: string;
  systemPrompt?: string;
  /** Path of `agent.mcp.json` when present (claude-cli reads it itself unless `mcpInline`). */
  mcpConfigPath?: string;
  mcpServers: Record<string, McpServerSpec>;
  /**
   * The servers are not the file's as written — merged from agent-orchestrator's library, or with placeholders filled
   * per session — so claude-cli is given them as JSON (`--mcp-config '{"mcpServers": …}'`), not the file's path.
   */
  mcpInline?: true;
}

export interface BrokenDefinition {
  name: string;
  path: string;
  source: DefinitionSource;
  error: string;
}

export function agentsDir(projectDir: string): string {
  return join(projectDir, '.switchboard', 'agents');
}

/** The folders agents are read from, first wins a name clash: Switchboard's own, then agent-orchestrator's. */
export function definitionRoots(projectDir: string): { source: DefinitionSource; dir: string }[] {
  return [
    { source: 'switchboard', dir: agentsDir(projectDir) },
    { source: 'agent-orchestrator', dir: orchestratorAgentsDir(projectDir) },
  ];
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: ${(err as Error).message}`);
  }
}

/**
 * Load one definition folder; throws an Error whose message starts with the offending path. An agent-orchestrator
 * folder's capabilities and registry `ref` servers are merged in from beside it (orchestrator-library.ts); its
 * command servers are taken only with `commandsApproved` (the operator's `agents import --approve-commands`).
 */
export function loadOne(
  dir: string,
  folder: string,
  source: DefinitionSource,
  opts: { commandsApproved?: boolean } = {},
): AgentDefinition {
  const file = join(dir, 'agent.json');
  if (!existsSync(file)) throw new Error(`${file}: missing (every agent folder needs an agent.json)`);
  // agent-orchestrator marks an inactive agent with this file; it is not started, and says so.
  const disabled = join(dir, '.disabled');
  if (existsSync(disabled))
    throw new Error(
      `${disabled}: the agent is switched off (agent-orchestrator's "inactive"); delete the file to use it`,
    );
  const raw = readJson(file);
  const unsupported = keyProblem(raw, source);
  if (unsupported) throw new Error(`${file}: ${unsupported}`);
  // keyProblem let `capabilities` through only in an agent-orchestrator folder, as a list of names.
  const { capabilities = [], ...own } = raw as { capabilities?: string[] };
  const parsed = AgentJson.safeParse(own);
  if (!parsed.success) throw new Error(`${file}: ${describeIssues(parsed.error.issues).message}`);
  if (parsed.data.name !== folder)
    throw new Error(`${file}: name '${parsed.data.name}' must equal the folder name '${folder}'`);
  if (parsed.data.parameters_schema && parsed.data.parameters_schema.type !== 'object')
    throw new Error(
      `${file}: parameters_schema must have "type": "object" (parameters are named), e.g. {"type": "object", "properties": {…}}`,
    );
  const promptFile = join(dir, 'agent.system-prompt.md');
  const mcpFile = join(dir, 'agent.mcp.json');
  type RawMcp = { mcpServers?: Record<string, unknown> } | null;
  let rawMcp: RawMcp = null;
  if (existsSync(mcpFile)) {
    rawMcp = readJson(mcpFile) as RawMcp;
    for (const [name, spec] of Object.entries(rawMcp?.mcpServers ?? {})) {
      const problem = mcpServerProblem(name, spec, source, folder, opts);
      if (problem) throw new Error(`${mcpFile}: ${problem}`);
    }
  }
  let ownPrompt = existsSync(promptFile) ? readFileSync(promptFile, 'utf8') : undefined;
  let merged = false;
  const serverProblem = (name: string, spec: unknown) => mcpServerProblem(name, spec, source, folder, opts);
  if (source === 'agent-orchestrator' && rawMcp !== null && typeof rawMcp === 'object' && !Array.isArray(rawMcp)) {
    const servers = rawMcp.mcpServers;
    if (servers && typeof servers === 'object' && !Array.isArray(servers)) {
      const lib = mergeLibrary(dirname(dir), capabilities, servers, { agentFile: file, mcpFile }, serverProblem);
      rawMcp = { ...rawMcp, mcpServers: lib.servers };
      ownPrompt = mergedPrompt(ownPrompt, lib.promptParts);
      merged = lib.merged;
    }
  } else if (capabilities.length) {
    const lib = mergeLibrary(dirname(dir), capabilities, {}, { agentFile: file, mcpFile }, serverProblem);
    rawMcp = { mcpServers: lib.servers };
    ownPrompt = mergedPrompt(ownPrompt, lib.promptParts);
    merged = true;
  }
  let mcpServers: Record<string, McpServerSpec> = {};
  if (rawMcp !== null) {
    const mcp = McpJson.safeParse(rawMcp);
    if (!mcp.success) throw new Error(`${mcpFile}: ${describeIssues(mcp.error.issues).message}`);
    mcpServers = mcp.data.mcpServers;
    for (const [name, spec] of Object.entries(mcpServers)) {
      // The hub sets it for every turn; a file that set it could widen what a caller reaches (docs/security.md rule 2).
      if ('env' in spec && Object.hasOwn(spec.env, CALLER_LIMIT_ENV))
        throw new Error(
          `${mcpFile}: server '${name}': env ${CALLER_LIMIT_ENV} is set by Switchboard for each turn (what the caller may call); remove it`,
        );
    }
  }
  return {
    ...parsed.data,
    source,
    dir,
    ...(ownPrompt !== undefined ? { systemPrompt: ownPrompt } : {}),
    ...(existsSync(mcpFile) ? { mcpConfigPath: mcpFile } : {}),
    mcpServers,
    // claude-cli reads agent.mcp.json itself unless what it must start differs from the file.
    ...(merged || hasSessionPlaceholders(mcpServers) ? { mcpInline: true } : {}),
  };
}

/** Agent folders under a root, sorted by name. */
function foldersIn(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort((a, b) => a.localeCompare(b));
}

/**
 * Every agent definition of a project (Switchboard's folder, then agent-orchestrator's), the broken ones with their
 * path and what is wrong, and the folders a same-named one of Switchboard's hides (`hidden`, one message each).
 *
 * @example
 * const { agents, broken, hidden } = loadDefinitions('/repo');
 */
export function loadDefinitions(projectDir: string): {
  agents: AgentDefinition[];
  broken: BrokenDefinition[];
  hidden: string[];
} {
  const agents: AgentDefinition[] = [];
  const broken: BrokenDefinition[] = [];
  const hidden: string[] = [];
  const seen = new Map<string, string>();
  for (const { source, dir: root } of definitionRoots(projectDir))
    for (const name of foldersIn(root)) {
      const dir = join(root, name);
      const winner = seen.get(name);
      if (winner) {
        hidden.push(
          `${relative(projectDir, dir)} is not used: ${relative(projectDir, winner)} has the same agent name and Switchboard's own folder wins. Rename or delete one of them.`,
        );
        continue;
      }
      seen.set(name, dir);
      try {
        agents.push(loadOne(dir, name, source));
      } catch (err) {
        broken.push({ name, path: dir, source, error: (err as Error).message });
      }
    }
  agents.sort((a, b) => a.name.localeCompare(b.name));
  broken.sort((a, b) => a.name.localeCompare(b.name));
  return { agents, broken, hidden };
}

/** One definition by name; NOT_FOUND names the known agents, a broken one fails with its path. */
export function loadDefinition(projectDir: string, name: string): AgentDefinition {
  const found = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(name)
    ? definitionRoots(projectDir).find(({ dir }) => existsSync(join(dir, name)))
    : undefined;
  if (!found) {
    const known = loadDefinitions(projectDir).agents.map((a) => a.name);
    throw new SwitchboardError(
      'NOT_FOUND',
      `No agent '${name}' in ${agentsDir(projectDir)} or ${orchestratorAgentsDir(projectDir)}. ${known.length ? `Known agents: ${known.join(', ')}.` : 'No agents are defined; create .switchboard/agents/<name>/agent.json.'}`,
    );
  }
  try {
    return loadOne(join(found.dir, name), name, found.source);
  } catch (err) {
    throw new SwitchboardError('INVALID_INPUT', `Agent '${name}' is broken: ${(err as Error).message}`);
  }
}
