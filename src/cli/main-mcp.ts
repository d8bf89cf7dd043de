// `switchboard mcp …`: the commands that manage upstream MCP servers (add, search, remove, list, get, import, login,
// approve), wired into the program by main.ts; each loads its module only when run.
import type { Command } from 'commander';

const load = {
  mcp: () => import('./mcp.ts'),
  mcpLogin: () => import('./mcp-login.ts'),
  mcpApprove: () => import('./mcp-approve.ts'),
};

/** Add the `mcp` command group to `program`; `cwd` is the project folder, `collect` gathers a repeated option. */
export function addMcpCommands(
  program: Command,
  cwd: () => string,
  collect: (v: string, prev?: string[]) => string[],
): void {
  const cmd = load;
  const mcp = program
    .command('mcp')
    .description('Manage the upstream MCP servers Switchboard aggregates (their tools appear as server__tool).');
  mcp
    .command('add')
    .description('Add a server: a command after -- (stdio) or a URL (-u; Streamable HTTP unless -t sse).')
    .argument('<name>', 'server name (1-64 of A-Z a-z 0-9 _ -); its tools become <name>__<tool>')
    .argument('[command...]', 'the command and its arguments, after --')
    .option('-t, --transport <kind>', 'stdio | http | sse (default: stdio for a command, http for a URL)')
    .option('-u, --url <url>', 'URL of a remote server')
    .option('-H, --header <header>', 'HTTP header "Key: Value" (repeatable; ${VAR} expands at connect)', collect)
    .option('-e, --env <pair>', 'environment variable KEY=VALUE for the child (repeatable)', collect)
    .option('--timeout <ms>', 'per-call timeout in milliseconds (progress extends it)')
    .option('--sandbox <mode>', 'stdio fence: on (the [sandbox] default), off, or required (refuse to run unfenced)')
    .option(
      '--allow-read <path>',
      'a path the fenced server may read (repeatable; ~/ and project-relative work)',
      collect,
    )
    .option('--allow-write <path>', 'a path the fenced server may read and write (repeatable)', collect)
    .option('--no-network', 'the fenced server may open no network connection, loopback included')
    .option('--idle-timeout <ms>', 'stop the stdio server after this long unused (0: never; default [stdio])')
    .option('--user', 'add to the user scope (~/.switchboard/config.toml) instead of the project')
    .option('--scope <scope>', 'project (default) or user')
    .option(
      '--from-registry',
      'NAME is a registry name, NAME[@VERSION]: install it from the MCP registry ([registry] url)',
    )
    .option('--name <local>', 'with --from-registry: the server name here (default: the last part of NAME)')
    .option('--package <kind>', 'with --from-registry: npm, pypi, oci or remote (default: the first that runs here)')
    .option('--refresh', 'with --from-registry: ask the registry, not its cached answer')
    .addHelpText(
      'after',
      '\nExamples:\n  switchboard mcp add filesystem -- npx -y @modelcontextprotocol/server-filesystem /srv/docs\n  switchboard mcp add notes --no-network --allow-read ~/notes -- npx -y @modelcontextprotocol/server-memory\n  switchboard mcp add tickets -u https://tickets.example.org/mcp -H "Authorization: Bearer ${TICKETS_TOKEN}"\n  switchboard mcp add archive -t sse -u https://archive.example.org/sse --user\n  switchboard mcp add --from-registry io.github.user/weather@1.4.0',
    )
    .action(async (name, command, o) => (await cmd.mcp()).mcpAdd(name, command, { cwd: cwd(), ...o }));
  mcp
    .command('search')
    .description('Search the MCP registry ([registry] url) for servers whose name or description has every word.')
    .argument('<words...>', 'what to look for')
    .option('--limit <n>', 'at most n servers (1-100, default 20)')
    .option('--refresh', 'ask the registry, not its cached answer')
    .option('--json', 'print JSON')
    .action(async (words, o) => (await import('./registry.ts')).mcpSearch(words, { cwd: cwd(), ...o }));
  mcp
    .command('remove')
    .description('Remove a server from its scope.')
    .argument('<name>', 'server name')
    .option('--scope <scope>', 'project or user (needed when the name is in both)')
    .action(async (name, o) => (await cmd.mcp()).mcpRemove(name, { cwd: cwd(), ...o }));
  mcp
    .command('list')
    .description('List configured servers; --status connects to each and shows its state, tool count and round trip.')
    .option('--scope <scope>', 'only project or only user')
    .option('--status', 'connect and report connected / failed (with the reason), tools and milliseconds')
    .option('--json', 'print JSON')
    .action(async (o) => (await cmd.mcp()).mcpList({ cwd: cwd(), ...o }));
  mcp
    .command('get')
    .description('Show one server as configured (secrets in env and headers masked).')
    .argument('<name>', 'server name')
    .option('--json', 'print JSON')
    .action(async (name, o) => (await cmd.mcp()).mcpGet(name, { cwd: cwd(), ...o }));
  mcp
    .command('login')
    .description(
      'Log in to an OAuth-protected server: prints the URL, opens a browser, stores the tokens sealed (and adds oauth = {} to its entry when it has none).',
    )
    .argument('<name>', 'server name')
    .option(
      '--principal <id>',
      'log in for this caller of a team hub (a token name, oauth:SUBJECT or agent:SESSION; default: you)',
    )
    .option(
      '--port <port>',
      'loopback port for the redirect (default: a free one; a pre-registered client may need a fixed one)',
    )
    .option('--no-browser', 'only print the URL')
    .option('--json', 'print JSON')
    .action(async (name, o) => (await cmd.mcpLogin()).mcpLogin(name, { cwd: cwd(), ...o }));
  mcp
    .command('logout')
    .description("Forget a server's stored login (its tokens are deleted from the store).")
    .argument('<name>', 'server name')
    .option('--principal <id>', "forget this caller's login instead of yours")
    .option('--all', "forget every caller's login to the server")
    .action(async (name, o) => (await cmd.mcpLogin()).mcpLogout(name, { cwd: cwd(), ...o }));
  mcp
    .command('approve')
    .description("Review a server's tool definitions withheld since they changed (a diff), and approve them.")
    .argument('<name>', 'server name')
    .option('--tool <tool>', "approve only this tool (the server's own name; repeatable)", collect)
    .option('--dry-run', 'show the withheld definitions without approving them')
    .option('--json', 'print JSON')
    .action(async (name, o) => (await cmd.mcpApprove()).mcpApprove(name, { cwd: cwd(), ...o }));
  mcp
    .command('import')
    .description("Copy another client's MCP servers into Switchboard (names already present are skipped).")
    .argument('[file]', "the file to read (default: the client's usual files)")
    .requiredOption('--from <client>', 'claude-code | codex | gemini | meerkat')
    .option('--user', 'import into the user scope instead of the project')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nReads: claude-code .mcp.json and ~/.claude.json; codex .codex/config.toml and $CODEX_HOME/config.toml; gemini .gemini/settings.json and ~/.gemini/settings.json; meerkat .rkat/mcp.toml and ~/.rkat/mcp.toml.',
    )
    .action(async (file, o) => (await cmd.mcp()).mcpImport(file, { cwd: cwd(), ...o }));
}
