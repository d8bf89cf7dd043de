// What a session may do, decided on disk: the configuration caps every agent, an agent's agent.json grants its
// sessions up to that cap (a session without an agent gets what an empty agent.json grants), and a call may ask
// for less, never for more. Checked when a session starts and again before every resumed turn, so a definition
// narrowed since then wins.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { type AgentsConfig, type Config, PERMISSION_MODES, type PermissionMode } from '../../config/schema.ts';
import { confineDir, isInside, realDir, shownPath } from '../../core/confine.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { AgentDefinition, ProviderName } from './definitions.ts';

/** What an agent.json that says nothing grants: edits without commands, built-ins, no shell, the project only. */
const DEFAULT_PERMISSION_MODE: PermissionMode = 'acceptEdits';
const DEFAULT_DIRECTORIES = ['.'];

export interface GrantRequest {
  provider: ProviderName;
  /** claude-cli only; unset: the most the agent is granted. */
  permission_mode?: PermissionMode | undefined;
  builtins: boolean;
  shell: boolean;
}

export interface GrantContext {
  projectRoot: string;
  /** `[workspace] extra_dirs`. */
  extraDirs: readonly string[];
  config: AgentsConfig;
}

const rank = (mode: PermissionMode) => PERMISSION_MODES.indexOf(mode);

/** FORBIDDEN naming the agent.json setting that would allow `what`, or saying that it takes an agent. */
function refuse(
  ctx: GrantContext,
  agent: AgentDefinition | undefined,
  what: string,
  setting: string,
  note = '',
): SwitchboardError {
  if (!agent)
    return new SwitchboardError(
      'FORBIDDEN',
      `A session without agent_name does not allow ${what}: start it with an agent_name whose .switchboard/agents/<name>/agent.json sets ${setting}${note}.`,
    );
  if (agent.source === 'agent-orchestrator')
    return new SwitchboardError(
      'FORBIDDEN',
      `Agent '${agent.name}' (from .agent-orchestrator/agents, which grants only the defaults) does not allow ${what}: import it with \`switchboard agents import --from agent-orchestrator --agent ${agent.name}\` and set ${setting} in .switchboard/agents/${agent.name}/agent.json${note}.`,
    );
  const file = shownPath(realDir(ctx.projectRoot) ?? ctx.projectRoot, join(agent.dir, 'agent.json'));
  return new SwitchboardError(
    'FORBIDDEN',
    `Agent '${agent.name}' does not allow ${what}: set ${setting} in ${file}${note}.`,
  );
}

/** The claude-cli permission mode: the call's, the agent's, or the default, within the operator's limit. */
function permissionMode(
  ctx: GrantContext,
  agent: AgentDefinition | undefined,
  req: GrantRequest,
): PermissionMode | undefined {
  if (req.provider !== 'claude-cli') {
    if (req.permission_mode)
      throw new SwitchboardError(
        'INVALID_INPUT',
        `permission_mode is for the claude-cli provider; ${req.provider} sessions use enable_builtins and builtin_config.enable_shell instead.`,
      );
    return undefined;
  }
  const ceiling = ctx.config.providers['claude-cli'].permission_mode;
  const limitNote = `[agents.providers.claude-cli] permission_mode = "${ceiling}"`;
  const granted = agent?.permission_mode;
  if (granted && rank(granted) > rank(ceiling))
    throw new SwitchboardError(
      'FORBIDDEN',
      `Agent '${agent?.name}' is granted permission_mode "${granted}" in its agent.json, above the operator's limit ${limitNote}: raise that limit in the configuration, or lower the agent's.`,
    );
  // Unset in agent.json: the default, or the operator's limit when that is lower.
  const limit = granted ?? (rank(ceiling) < rank(DEFAULT_PERMISSION_MODE) ? ceiling : DEFAULT_PERMISSION_MODE);
  const asked = req.permission_mode ?? limit;
  if (rank(asked) <= rank(limit)) return asked;
  const order = `from least to most: ${PERMISSION_MODES.join(', ')}`;
  if (!granted && limit === ceiling)
    throw new SwitchboardError(
      'FORBIDDEN',
      `permission_mode "${asked}" is above the operator's limit ${limitNote} (${order}).`,
    );
  throw refuse(
    ctx,
    agent,
    `permission_mode "${asked}" (it allows at most "${limit}"; ${order})`,
    `"permission_mode": "${asked}"`,
    rank(asked) > rank(ceiling) ? `, and raise the operator's limit ${limitNote} in the configuration` : '',
  );
}

/**
 * The real directory a session works in: inside the workspace (INVALID_INPUT otherwise) and inside one of the
 * agent's `directories` (FORBIDDEN otherwise). Unset: the agent's first directory.
 *
 * @example
 * sessionDirectory(ctx, undefined, 'src') // '/repo/src'
 */
export function sessionDirectory(
  ctx: GrantContext,
  agent: AgentDefinition | undefined,
  requested: string | undefined,
): string {
  const directories = agent?.directories ?? DEFAULT_DIRECTORIES;
  const dir = confineDir(ctx.projectRoot, ctx.extraDirs, requested ?? (directories[0] as string), 'project_dir');
  const root = realDir(ctx.projectRoot) ?? ctx.projectRoot;
  const allowed = directories.flatMap((d) => realDir(resolve(root, d)) ?? []);
  if (allowed.some((a) => isInside(a, dir))) return dir;
  // As the caller wrote it (relative to the project, as agent.json's directories are too).
  const shown = requested ?? shownPath(root, dir);
  throw refuse(
    ctx,
    agent,
    `project_dir '${shown}' (its sessions work in ${directories.join(', ')})`,
    `"directories": ${JSON.stringify([...directories, shown])}`,
  );
}

/**
 * The claude-cli permission mode a session's turn runs with (undefined on the API providers); FORBIDDEN naming the
 * setting when the request asks for more than the agent, or the configuration, allows.
 *
 * @example
 * grant(ctx, undefined, { provider: 'claude-cli', builtins: false, shell: false }) // 'acceptEdits'
 */
export function grant(
  ctx: GrantContext,
  agent: AgentDefinition | undefined,
  req: GrantRequest,
): PermissionMode | undefined {
  if (req.builtins && !ctx.config.builtins)
    throw new SwitchboardError('FORBIDDEN', 'Built-in tools for agents are turned off ([agents] builtins = false).');
  if (req.builtins && agent?.builtins === false)
    throw refuse(ctx, agent, 'built-in tools', '"builtins": true (or a list of capability names)');
  if (req.shell && !ctx.config.shell)
    throw new SwitchboardError('FORBIDDEN', 'The shell tool for agents is turned off ([agents] shell = false).');
  if (req.shell && !agent?.shell) throw refuse(ctx, agent, 'the shell', '"shell": true');
  return permissionMode(ctx, agent, req);
}

/** `path` with its nearest existing ancestor's symlinks resolved (a folder not made yet keeps its name). */
function realish(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realish(parent), basename(path));
  }
}

/**
 * The folders whose files decide what the hub runs and what agents are granted: the project's `.switchboard`
 * (configuration, agent definitions, scripts, plugins, handlers), the user's (`SWITCHBOARD_HOME`, `~/.switchboard`)
 * and the configured `[plugins] paths` and `[handlers] paths`, absolute, as given and with symlinks resolved. A
 * session must not edit them: that would let whoever starts it write a script, a hook or an agent.json and then
 * run it, widening its own powers.
 *
 * @example
 * hubFileDirs('/repo', config, { HOME: '/home/me' }) // ['/repo/.switchboard', '/home/me/.switchboard', …]
 */
export function hubFileDirs(projectRoot: string, config: Config, env: NodeJS.ProcessEnv): string[] {
  const root = resolve(projectRoot);
  const dirs = [
    join(root, '.switchboard'),
    // The originals' folders Switchboard reads what it runs from, live: mekara's scripts (their auto steps are
    // commands) and Meerkat's project servers (the hub starts a command server as soon as the file lists it).
    join(root, '.mekara'),
    join(root, '.rkat'),
    env.SWITCHBOARD_HOME && resolve(root, env.SWITCHBOARD_HOME),
    env.HOME && join(env.HOME, '.switchboard'),
    env.HOME && join(env.HOME, '.mekara'),
    join(homedir(), '.switchboard'),
    ...config.plugins.paths.map((p) => resolve(root, p)),
    ...config.handlers.paths.map((p) => resolve(root, p)),
  ].filter((d): d is string => Boolean(d));
  return [...new Set(dirs.flatMap((d) => [d, realish(d)]))];
}
