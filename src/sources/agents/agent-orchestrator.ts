// agent-orchestrator's agent blueprints (github.com/rawe/claude-agent-orchestrator): its `.agent-orchestrator/agents/`
// folder, the agent.json keys Switchboard honours and the ones it cannot (each refused naming the file and key),
// and how it turns parameters into a prompt (`<inputs>` block, `${params.X}` placeholders).
import { join } from 'node:path';

/** agent-orchestrator's agents folder in a project (its coordinator's default, `AGENT_ORCHESTRATOR_AGENTS_DIR` unset). */
export function orchestratorAgentsDir(projectDir: string): string {
  return join(projectDir, '.agent-orchestrator', 'agents');
}

/** Where an agent definition was found. */
export type DefinitionSource = 'switchboard' | 'agent-orchestrator';

/** agent.json keys of agent-orchestrator that Switchboard cannot honour, and what to do instead. */
const UNSUPPORTED: Record<string, string> = {
  script:
    'a procedural agent runs an agent-orchestrator script, not a model session; Switchboard agents are model sessions: run the script as a Switchboard script (.switchboard/scripts) or from a shell step, and remove this agent folder',
  hooks:
    'Switchboard does not start another agent when a run starts or finishes: start the hook agent yourself with agent__start after this one (agent__result gives its answer), then remove "hooks"',
  demands:
    'Switchboard runs every session itself, so there is no runner to match against these demands: remove "demands" (the agent then runs on this host)',
  skills: 'agent-orchestrator does not use skills yet and neither does Switchboard: remove "skills"',
};

/** What `switchboard agents import` does with what a `.switchboard/agents` folder cannot resolve. */
const LIBRARY_HERE =
  "`switchboard agents import --from agent-orchestrator` writes the capabilities' texts and the resolved servers into the agent it imports";

/** Keys that grant a session powers (docs/agents.md#permissions): read only from `.switchboard/agents`. */
const GRANT_KEYS = ['permission_mode', 'shell', 'builtins', 'directories', 'roles'];

/**
 * The problem with an agent.json's keys, or undefined: a key agent-orchestrator uses that Switchboard cannot
 * honour, `type: "procedural"`, or — in an agent-orchestrator folder, which sessions are not kept from editing and
 * which never grants anything — a Switchboard grant key.
 *
 * @example
 * keyProblem({ name: 'x', hooks: {} }, 'switchboard') // '"hooks" is not supported: Switchboard does not start …'
 */
export function keyProblem(raw: unknown, source: DefinitionSource): string | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const json = raw as Record<string, unknown>;
  if (json.type === 'procedural') return `"type": "procedural" is not supported: ${UNSUPPORTED.script}`;
  for (const [key, what] of Object.entries(UNSUPPORTED)) if (key in json) return `"${key}" is not supported: ${what}`;
  if ('capabilities' in json) {
    if (source === 'switchboard')
      return `"capabilities" is read only in an agent-orchestrator folder (its capabilities folder is beside it): ${LIBRARY_HERE}`;
    const caps = json.capabilities;
    if (!Array.isArray(caps) || !caps.every((c) => typeof c === 'string' && c))
      return '"capabilities" must be a list of capability names, e.g. ["context-store"]';
  }
  if (source === 'agent-orchestrator')
    for (const key of GRANT_KEYS)
      if (key in json)
        return `"${key}" is not read from an agent-orchestrator folder: what an agent may do is granted only in .switchboard/agents (which sessions cannot edit). Import the agent with \`switchboard agents import\` and set "${key}" in .switchboard/agents/<name>/agent.json`;
  return undefined;
}

/**
 * The problem with one agent.mcp.json server of agent-orchestrator's form, or undefined. A `ref` is resolved from
 * the registry beside an agent-orchestrator folder (orchestrator-library.ts); a command server there only when the
 * operator approved it (`agents import --approve-commands`).
 */
export function mcpServerProblem(
  name: string,
  spec: unknown,
  source: DefinitionSource,
  agent: string,
  opts: { commandsApproved?: boolean } = {},
): string | undefined {
  if (spec === null || typeof spec !== 'object') return undefined;
  const s = spec as Record<string, unknown>;
  if ('ref' in s) {
    if (source === 'switchboard')
      return `server '${name}': "ref" is resolved only in an agent-orchestrator folder (its MCP server registry is beside it): ${LIBRARY_HERE}`;
    if (typeof s.ref !== 'string' || !s.ref)
      return `server '${name}': "ref" must name an entry of the MCP server registry`;
    return undefined;
  }
  if (source === 'agent-orchestrator' && 'command' in s && !opts.commandsApproved)
    return `server '${name}': a server that runs a command (${commandText(s)}) is read only from .switchboard/agents, which sessions cannot edit (this folder they can; agent-orchestrator itself now takes only "ref" servers). Review the command, then import the agent with it approved: switchboard agents import --from agent-orchestrator --agent ${agent} --approve-commands`;
  return undefined;
}

/** A command server's command line, as its file gives it, for the operator to review. */
export function commandText(spec: Record<string, unknown>): string {
  const args = Array.isArray(spec.args) ? spec.args.map(String) : [];
  return [String(spec.command), ...args].join(' ');
}

/**
 * Fill agent-orchestrator's placeholders in a system prompt, as its coordinator does for the whole blueprint:
 * `${params.X}` from the session's parameters, `${runtime.session_id}` with the session name. Any other placeholder
 * (`${scope.X}`, `${env.X}`, `${runtime.run_id}`, `${runner.X}`) and a parameter not given stay as written, as there.
 * `${env.X}` is deliberately not filled: the hub's environment holds credentials a prompt must not carry.
 *
 * @example
 * fillPlaceholders('Topic: ${params.topic}', { params: { topic: 'AI' }, sessionId: 's1' }) // 'Topic: AI'
 */
export function fillPlaceholders(text: string, ctx: { params?: Record<string, unknown>; sessionId: string }): string {
  return text.replace(/\$\{([^}]+)\}/g, (whole, inner: string) => {
    const dot = inner.indexOf('.');
    if (dot < 0) return whole;
    const source = inner.slice(0, dot);
    const key = inner.slice(dot + 1);
    if (source === 'runtime' && key === 'session_id') return ctx.sessionId;
    if (source === 'params' && ctx.params && Object.hasOwn(ctx.params, key)) {
      const value = ctx.params[key];
      if (value === undefined) return whole;
      return typeof value === 'string' ? value : pythonStr(value);
    }
    return whole;
  });
}

/** Whether a server table holds placeholders {@link fillPlaceholders} fills for each session. */
export function hasSessionPlaceholders(servers: Record<string, unknown>): boolean {
  return /\$\{(params\.[^}]+|runtime\.session_id)\}/.test(JSON.stringify(servers));
}

/**
 * A session's MCP servers: every string of them with its placeholders filled as in the system prompt (a registry
 * entry's headers carry `${runtime.session_id}`, a ref's config may carry `${params.X}`).
 */
export function fillServers<T>(servers: T, ctx: { params?: Record<string, unknown>; sessionId: string }): T {
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') return fillPlaceholders(value, ctx);
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
    return value;
  };
  return fill(servers) as T;
}

/**
 * The first prompt of an agent with a parameters_schema: every parameter in an `<inputs>` block, as
 * agent-orchestrator's runner writes it (`format_autonomous_inputs`): `key: value`, a multi-line string indented
 * under `key:`, lists and objects as JSON, null as `null`.
 *
 * @example
 * inputsBlock({ topic: 'AI', max_words: 200 }) // '<inputs>\ntopic: AI\nmax_words: 200\n</inputs>'
 */
export function inputsBlock(parameters: Record<string, unknown>): string {
  const lines = ['<inputs>'];
  for (const [key, value] of Object.entries(parameters)) {
    if (typeof value === 'string' && value.includes('\n')) {
      lines.push(`${key}:`);
      for (const line of value.split('\n')) lines.push(`  ${line}`);
    } else if (typeof value === 'string') lines.push(`${key}: ${value}`);
    else if (value === null) lines.push(`${key}: null`);
    else if (typeof value === 'object') lines.push(`${key}: ${pythonJson(value)}`);
    else lines.push(`${key}: ${pythonStr(value)}`);
  }
  lines.push('</inputs>');
  return lines.join('\n');
}

/** Python's `str()` of a JSON scalar (the runner is Python): booleans are True / False. */
function pythonStr(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value !== null && typeof value === 'object') return pythonJson(value);
  return String(value);
}

/** Python's `json.dumps` default form: `, ` and `: ` between items (non-ASCII escaped, as ensure_ascii does). */
function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${pythonJson(k)}: ${pythonJson(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
