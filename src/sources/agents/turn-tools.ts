// The tools a turn runs itself (providers with their own tool loop): the hub's capabilities as built-ins, the shell,
// and the tools of the MCP servers its agent.json names. Callback tools are the caller's: they travel in the
// session's options and come back as pending calls.
import { join } from 'node:path';
import { expandAll } from '../../config/load.ts';
import type { Config } from '../../config/schema.ts';
import type { Principal, Services } from '../../core/context.ts';
import { toErrorInfo } from '../../core/errors.ts';
import { exposureFilter } from '../../core/name-globs.ts';
import type { Pipeline } from '../../core/pipeline.ts';
import { minimalEnv } from '../../core/process.ts';
import { type EffectiveProfile, requireProfile, withProfile } from '../../core/profile.ts';
import type { Registry } from '../../core/registry.ts';
import type { TraceContext } from '../../core/trace-context.ts';
import { type CallerLimit, callerLimit, narrowRoles } from '../../policy/caller-limit.ts';
import { builtinTools, shellTool } from './builtin-tools.ts';
import type { AgentDefinition } from './definitions.ts';
import type { McpToolOpener } from './mcp-tools.ts';
import type { LocalTool } from './providers/provider.ts';
import type { SessionMeta, TranscriptEvent } from './session-types.ts';

export interface TurnToolDeps {
  services: Services;
  pipeline: Pipeline;
  env: NodeJS.ProcessEnv;
  openMcp: McpToolOpener;
}

/** A turn's own tools, and what closes the MCP servers opened for them once the turn ends. */
export interface TurnTools {
  tools: LocalTool[];
  close?: () => Promise<void>;
}

/**
 * Assemble a turn's tools: built-ins (and the shell) when the session enabled them, bounded by `caller`; the
 * agent's MCP servers opened in the session's directory, with `limitEnv` (the caller's limit, {@link
 * turnCallerLimit}) in their environment. A server that cannot start is noted through `emit` as `mcp_unavailable`
 * and left out; the others still open.
 */
export async function turnTools(
  deps: TurnToolDeps,
  meta: SessionMeta,
  agent: AgentDefinition | undefined,
  caller: Principal | undefined,
  signal: AbortSignal,
  emit: (events: TranscriptEvent[]) => void,
  limitEnv: Record<string, string> = {},
  trace?: TraceContext,
): Promise<TurnTools> {
  const tools: LocalTool[] = [];
  const profile = agentProfile(deps.services.config.get(), agent);
  if (meta.options.enable_builtins) {
    const builtins = Array.isArray(agent?.builtins) ? agent.builtins : undefined;
    const principal = agentPrincipal(meta.session_name, agent?.roles ?? ['agent'], caller, builtins, profile);
    tools.push(...builtinTools(deps.services.registry, deps.services.config.get(), deps.pipeline, principal, trace));
    if (meta.options.builtin_config.enable_shell)
      tools.push(
        shellTool(meta.project_dir, meta.options.builtin_config.shell_timeout_secs, childEnv(deps.env, profile)),
      );
  }
  if (!agent || !Object.keys(agent.mcpServers).length) return { tools };
  // `${VAR}` expands as in Claude Code's .mcp.json (claude-cli expands the file itself); a server whose variable is
  // missing is left out and noted, the others still open.
  const servers: typeof agent.mcpServers = {};
  // SWITCHBOARD_PROFILE expands too: `"url": "http://127.0.0.1:7777/mcp/${SWITCHBOARD_PROFILE}"`.
  const env = profile ? { ...deps.env, SWITCHBOARD_PROFILE: profile.name } : deps.env;
  for (const [server, spec] of Object.entries(agent.mcpServers)) {
    try {
      servers[server] = expandAll(
        spec,
        `${agent.mcpConfigPath ?? agent.dir}: mcpServers.${server}`,
        env,
      ) as typeof spec;
    } catch (err) {
      emit([{ type: 'mcp_unavailable', server, error: toErrorInfo(err).message }]);
    }
  }
  const mcp = await deps.openMcp(servers, {
    cwd: meta.project_dir,
    env: { ...childEnv(deps.env, profile), ...limitEnv },
    signal,
  });
  tools.push(...mcp.tools);
  for (const f of mcp.failures) emit([{ type: 'mcp_unavailable', server: f.server, error: f.error }]);
  return { tools, close: mcp.close };
}

/**
 * Environment for children Switchboard starts for an agent (shell tool, MCP servers): no secrets by default, and
 * the agent's profile as SWITCHBOARD_PROFILE, which a `switchboard serve` among them serves.
 */
export function childEnv(env: NodeJS.ProcessEnv, profile: EffectiveProfile | undefined): Record<string, string> {
  return minimalEnv(profile ? { SWITCHBOARD_PROFILE: profile.name } : {}, env);
}

/** The profile an agent definition names (agent.json `profile`); NOT_FOUND naming the file when none is defined. */
export function agentProfile(config: Config, agent: AgentDefinition | undefined): EffectiveProfile | undefined {
  return agent?.profile
    ? requireProfile(config, agent.profile, `"profile" in ${join(agent.dir, 'agent.json')}`)
    : undefined;
}

/**
 * The principal an agent's built-in tool calls run as: the roles of its definition, but never more than the
 * caller's (a caller cannot gain a role by starting an agent that has it), the caller's exposure filter (its
 * profile's included), the capability globs its agent.json `builtins` lists (when it lists some), and the profile
 * its agent.json names.
 *
 * @example
 * agentPrincipal('s1', ['admin', 'agent'], { id: 'tok', roles: ['agent'] }).roles // → ['agent']
 */
export function agentPrincipal(
  session: string,
  agentRoles: string[],
  caller: Principal | undefined,
  builtins?: string[],
  profile?: EffectiveProfile,
): Principal {
  const roles = narrowRoles(agentRoles, caller?.roles ?? ['*']);
  const listed = builtins ? exposureFilter([{ allow: builtins }]) : undefined;
  const callerSees = caller?.sees;
  const sees = listed && callerSees ? (name: string) => listed(name) && callerSees(name) : (listed ?? callerSees);
  const principal: Principal = { id: `agent:${session}`, roles, kind: 'internal', ...(sees ? { sees } : {}) };
  return profile ? withProfile(principal, profile) : principal;
}

/**
 * What a Switchboard started for a turn may serve (docs/security.md rule 2): what the turn's principal may call —
 * the agent's roles narrowed to the caller's, with the caller's exposure. Not the agent's `builtins` (they choose
 * built-ins) nor its profile (the `serve` gets SWITCHBOARD_PROFILE and applies it itself).
 */
export function turnCallerLimit(
  registry: Registry,
  session: string,
  agent: AgentDefinition | undefined,
  caller: Principal | undefined,
): CallerLimit {
  return callerLimit(registry, agentPrincipal(session, agent?.roles ?? ['agent'], caller));
}
