// The `.switchboard/config.toml` that `switchboard init` writes: every main section explained, its settings
// commented out at their default values (read from the schema, so the file cannot drift from it), and the
// `[[servers]]` section last, where imported servers are appended.
import { ConfigSchema } from '../config/schema.ts';

/** A TOML value for the simple defaults (strings, numbers, booleans, arrays of them); JSON writes them the same. */
const v = (value: unknown) => JSON.stringify(value).replace(/,/g, ', ');

/** A commented-out `key = value`, its comment aligned. */
const setting = (key: string, value: unknown, comment?: string) => {
  const text = `# ${key} = ${v(value)}`;
  return comment ? `${text.padEnd(40)} # ${comment}` : text;
};

export function configTemplate(): string {
  const d = ConfigSchema.parse({});
  const claude = d.agents.providers['claude-cli'];
  return `# Switchboard project configuration, written by \`switchboard init\`.
# Every setting is optional: the commented-out lines show the defaults; uncomment a line to change it.
# A user-wide file (~/.switchboard/config.toml) is read first; this one wins. Every key, including the sections
# not shown here ([policy], [audit], [expose], [stdio], [workspace], …): docs/configuration.md.

# ── [server] ─ HTTP transport (\`switchboard serve --http\`); stdio needs none of it.
# [server]
${setting('host', d.server.host, 'off loopback only once a token exists (switchboard token create)')}
${setting('port', d.server.port, '0 = any free port')}
${setting('allowed_hosts', d.server.allowed_hosts, 'extra Host names accepted besides loopback')}

# ── [store] ─ where tasks, sessions, audit records and tokens live.
# [store]
${setting('kind', d.store.kind, '"redis" shares state between several instances (docs/scale-out.md)')}
${setting('path', d.store.path, 'the SQLite file, relative to this project')}
${setting('url', d.store.url, 'kind = "redis" only')}

# ── [handlers] ─ folders of typed handler modules (*.ts, *.js); each exported handler becomes a tool.
# [handlers]
${setting('paths', d.handlers.paths)}

# ── [plugins] ─ plugins: hooks run at agent events (checks on Stop, …); .switchboard/plugins is always read.
# [plugins]
${setting('paths', d.plugins.paths, 'extra plugin folders, relative to this project')}
${setting('disabled', d.plugins.disabled, 'plugins that never load, by name')}
${setting('watch', d.plugins.watch, 're-read manifests when they change')}

# ── [scripts] ─ step-based scripts in .switchboard/scripts (docs/scripts.md).
# [scripts]
${setting('enabled', d.scripts.enabled, 'false: no script.* tools and no script prompts')}
${setting('step_timeout_ms', d.scripts.step_timeout_ms, 'one shell step is killed after this')}

# ── [agents] ─ sub-agent sessions defined in .switchboard/agents (docs/agents.md).
# [agents]
${setting('default_provider', d.agents.default_provider, 'claude-cli | anthropic | openai | gemini')}
${setting('max_running', d.agents.max_running, 'turns that may run at once')}
# [agents.providers.claude-cli]
${setting('permission_mode', claude.permission_mode, 'the most any claude-cli session may be granted')}

# ── [[servers]] ─ other MCP servers Switchboard aggregates; their tools appear as <name>__<tool>.
# Add them with \`switchboard mcp add\` or \`switchboard mcp import --from claude-code|codex|gemini|meerkat\`,
# or by hand, for example:
#
# [[servers]]
# name = "filesystem"
# command = "npx"
# args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
#
# [[servers]]
# name = "tickets"
# url = "https://tickets.example.org/mcp"
# headers = { Authorization = "Bearer \${TICKETS_TOKEN}" }   # \${VAR} expands when the server connects
`;
}
