// agent-orchestrator's library beside its agents folder: the MCP server registry (`mcp-servers/<id>/mcp-server.json`)
// its `ref` servers point into, and the capabilities (`capabilities/<name>/capability.{json,text.md,mcp.json}`) an
// agent.json lists. Its coordinator merges them into the blueprint when a run is created; Switchboard does the same
// when it reads the agent: capability texts after the system prompt, capability and agent servers in one table, each
// `ref` made the server itself (`{type: "http", url, headers}`, the registry's default_config overridden by the ref's
// config), and the orchestrator's own MCP server (`${runner.orchestrator_mcp_url}`) made Switchboard's `serve`.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { serveEntry } from '../../config/agent-launch.ts';

/** Between the system prompt and each capability text, as its coordinator joins them. */
const CAPABILITY_SEPARATOR = '\n\n---\n\n';

/** The placeholder its runner fills with the URL of its own MCP server (start_agent_session and the rest). */
const ORCHESTRATOR_URL = '${runner.orchestrator_mcp_url}';

/** Placeholders Switchboard fills for each session (fillPlaceholders); any other stays as written, so it never is. */
const FILLED = /^\$\{(params\.[^}]+|runtime\.session_id)\}$/;

type Raw = Record<string, unknown>;

/** The registry and capabilities folders of an agents folder: its siblings, as its coordinator finds them. */
export function orchestratorLibrary(agentsRoot: string): { registry: string; capabilities: string } {
  const base = dirname(agentsRoot);
  return { registry: join(base, 'mcp-servers'), capabilities: join(base, 'capabilities') };
}

function readObject(file: string): Raw {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${file}: expected a JSON object`);
  return value as Raw;
}

/** What a blueprint becomes once its library is merged in. */
export interface MergedBlueprint {
  /** Capability texts, in the order agent.json lists them (joined after the agent's own prompt). */
  promptParts: string[];
  /** Every server: the capabilities', then the agent's; `ref` ones made the server itself. */
  servers: Record<string, unknown>;
  /** Whether anything came from the library (a capability or a `ref`). */
  merged: boolean;
}

/**
 * Merge an agent's capabilities and resolve its `ref` servers from the library beside `agentsRoot`. Throws an Error
 * whose message starts with the file at fault: a capability or registry entry that is not there, a capability that
 * runs a script (no equivalent), a server name given twice, a required config key left empty.
 *
 * @example
 * mergeLibrary('/p/.agent-orchestrator/agents', ['context-store'], { orchestrator: { ref: 'orchestrator' } }, files)
 */
export function mergeLibrary(
  agentsRoot: string,
  capabilities: string[],
  agentServers: Record<string, unknown>,
  files: { agentFile: string; mcpFile: string },
  /** A capability server's problem (a command the operator has not approved), as for the agent's own servers. */
  serverProblem: (name: string, spec: unknown) => string | undefined = () => undefined,
): MergedBlueprint {
  const lib = orchestratorLibrary(agentsRoot);
  const promptParts: string[] = [];
  const raw: Record<string, { spec: unknown; from: string }> = {};
  const add = (servers: Record<string, unknown>, from: string) => {
    for (const [name, spec] of Object.entries(servers)) {
      const before = raw[name];
      if (before)
        throw new Error(
          `${from}: server '${name}' is also given by ${before.from}; agent-orchestrator refuses a server name given twice too: rename one of them`,
        );
      raw[name] = { spec, from };
    }
  };
  for (const cap of capabilities) {
    const dir = join(lib.capabilities, cap);
    const file = join(dir, 'capability.json');
    if (!existsSync(file))
      throw new Error(
        `${files.agentFile}: capability '${cap}' is not in agent-orchestrator's capabilities folder (${file} is missing): copy its folder there, or remove it from "capabilities"`,
      );
    const json = readObject(file);
    if (json.script !== undefined || json.type === 'script')
      throw new Error(
        `${file}: capability '${cap}' runs an agent-orchestrator script (its runner's scripts folder), which Switchboard has no equivalent for: run the script as a Switchboard script (.switchboard/scripts) and remove '${cap}' from "capabilities" in ${files.agentFile}`,
      );
    const text = join(dir, 'capability.text.md');
    if (existsSync(text)) promptParts.push(readFileSync(text, 'utf8'));
    const mcp = join(dir, 'capability.mcp.json');
    if (existsSync(mcp)) {
      const servers = serversOf(readObject(mcp), mcp);
      // A capability's folder is as open to sessions' edits as the agent's: the same rule for command servers.
      for (const [name, spec] of Object.entries(servers)) {
        const problem = serverProblem(name, spec);
        if (problem) throw new Error(`${mcp}: ${problem}`);
      }
      add(servers, mcp);
    }
  }
  add(agentServers, files.mcpFile);
  const servers: Record<string, unknown> = {};
  let merged = capabilities.length > 0;
  for (const [name, { spec, from }] of Object.entries(raw)) {
    const ref = spec && typeof spec === 'object' ? (spec as Raw).ref : undefined;
    if (ref === undefined) {
      servers[name] = spec;
      continue;
    }
    servers[name] = resolveRef(lib.registry, name, spec as Raw, from);
    merged = true;
  }
  return { promptParts, servers, merged };
}

/** The agent's own prompt followed by its capabilities' texts. */
export function mergedPrompt(own: string | undefined, parts: string[]): string | undefined {
  const all = [own, ...parts].filter((p): p is string => p !== undefined);
  return all.length ? all.join(CAPABILITY_SEPARATOR) : undefined;
}

function serversOf(json: Raw, file: string): Record<string, unknown> {
  const servers = json.mcpServers ?? {};
  if (!servers || typeof servers !== 'object' || Array.isArray(servers))
    throw new Error(`${file}: "mcpServers" must be an object of servers`);
  return servers as Record<string, unknown>;
}

/**
 * One `ref` server as its coordinator and runner resolve it: the registry entry's url, its default_config overridden
 * by the ref's config, the config keys sent as HTTP headers. The orchestrator's own MCP server is Switchboard here.
 */
function resolveRef(registry: string, name: string, spec: Raw, from: string): unknown {
  const ref = String(spec.ref);
  const file = join(registry, ref, 'mcp-server.json');
  if (!/^[A-Za-z0-9_.-]+$/.test(ref) || !existsSync(file))
    throw new Error(
      `${from}: server '${name}': "ref" names '${ref}' of agent-orchestrator's MCP server registry, and ${file} is not there: copy the registry's folder beside the agents folder (its repository keeps it in config/mcp-servers), or give the server itself, {"type": "http", "url": "…", "headers": {…}}`,
    );
  const entry = readObject(file);
  if (typeof entry.url !== 'string' || !entry.url) throw new Error(`${file}: "url" is required (the server's URL)`);
  const config = {
    ...objectOf(entry.default_config, file, 'default_config'),
    ...objectOf(spec.config, from, 'config'),
  };
  for (const [key, value] of Object.entries(config))
    if (typeof value !== 'string')
      throw new Error(`${from}: server '${name}': config '${key}' must be a string (it is sent as an HTTP header)`);
  const schema = objectOf(entry.config_schema, file, 'config_schema');
  for (const [key, field] of Object.entries(schema)) {
    if (!(field as Raw | null)?.required) continue;
    const value = config[key] as string | undefined;
    const unfilled = value?.match(/\$\{[^}]+\}/g)?.filter((p) => !FILLED.test(p) && p !== ORCHESTRATOR_URL);
    if (value === undefined || unfilled?.length)
      throw new Error(
        `${from}: server '${name}': config '${key}' is required by ${file}${value === undefined ? ' and not given' : `, and Switchboard never fills ${unfilled?.join(', ')} (only \${params.X} and \${runtime.session_id})`}: give it in the ref's "config"`,
      );
  }
  if (entry.url === ORCHESTRATOR_URL) return orchestratorServer();
  const runner = entry.url.match(/\$\{runner\.[^}]+\}/);
  if (runner)
    throw new Error(
      `${file}: "url" uses ${runner[0]}, which only agent-orchestrator's runner knows (Switchboard fills ${ORCHESTRATOR_URL}, as the hub itself): give the URL`,
    );
  return { type: 'http', url: entry.url, headers: config };
}

/**
 * The orchestrator's own MCP server — child agents started, resumed and read — is Switchboard's: its `serve`, started
 * for the turn like any command server of agent.mcp.json (with the caller's limit in its environment). The ref's
 * headers have no counterpart there: X-Agent-Session-Id links callbacks to the parent run, X-Agent-Tags narrows what
 * list_agent_blueprints shows (agent__list takes `tags` itself), X-Additional-Demands matches runners.
 */
function orchestratorServer(): { command: string; args: string[] } {
  return serveEntry();
}

function objectOf(value: unknown, file: string, key: string): Raw {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${file}: "${key}" must be an object`);
  return value as Raw;
}
