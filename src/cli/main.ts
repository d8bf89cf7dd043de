// The `switchboard` command: parses arguments with commander and dispatches to one file per command group.
import { resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { version } from '../version.ts';
import { addMcpCommands } from './main-mcp.ts';
import { fail } from './output.ts';

// Each command's module is loaded when that command runs: `serve` over stdio should not pay for the MCP client,
// the HTTP server or the table printer at start-up.
const cmd = {
  serve: () => import('./serve.ts'),
  tools: () => import('./tools.ts'),
  events: () => import('./events.ts'),
  token: () => import('./token.ts'),
  audit: () => import('./audit.ts'),
  stats: () => import('./stats.ts'),
  hook: () => import('./hook.ts'),
  vcr: () => import('./vcr.ts'),
  install: () => import('./install.ts'),
  init: () => import('./init.ts'),
  agents: () => import('./agents.ts'),
  sessions: () => import('./sessions.ts'),
  snapshot: () => import('./snapshot.ts'),
};

/**
 * The command groups that act on a project's files and store. Not `serve` (its banner names the project; over
 * stdio its stderr is an agent's log), `hook` (run by an agent), `events` and `stats` (a running server), nor
 * `install`/`uninstall`: they touch an agent's config, never the store, and name every file they write.
 */
const PROJECT_COMMANDS = new Set(['tools', 'token', 'audit', 'mcp', 'vcr', 'agents', 'sessions']);

export function buildProgram(): Command {
  const program = new Command('switchboard')
    .description(
      'One MCP server for your coding agent: typed handlers, a shared task board, and everything else behind one endpoint.',
    )
    .version(version, '-v, --version')
    .option('-C, --cwd <dir>', 'project directory (where .switchboard/ lives)', process.cwd())
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .exitOverride();

  const cwd = () => resolve(program.opts().cwd as string);
  // Commands that read or write a project say which one (and its store) when it is not plainly the current
  // directory (src/cli/project.ts); with --url they act on that server instead.
  program.hook('preAction', async (_program, action) => {
    let top = action;
    while (top.parent && top.parent !== program) top = top.parent;
    if (PROJECT_COMMANDS.has(top.name()) && !action.opts().url) (await import('./project.ts')).sayActingOn(cwd());
  });

  program
    .command('serve')
    .description('Serve MCP over stdio (default), or Streamable HTTP + REST with --http.')
    .option('--http', 'serve Streamable HTTP at /mcp and REST at /v1 instead of stdio')
    .option('--host <host>', 'address to bind (loopback only until tokens are configured)')
    .option('--port <port>', 'port to listen on (0 = any free port)')
    .option('--handlers <dir...>', 'extra folders of handler modules to load')
    .option('--only <glob...>', 'expose only capabilities matching these globs (e.g. "task.*" "system.health")')
    .option('--except <glob...>', 'hide capabilities matching these globs')
    .option('--profile <name>', 'stdio: serve the [profiles.NAME] tool set (default: $SWITCHBOARD_PROFILE)')
    .option(
      '--store <url>',
      'share state through Redis (redis://host:port) instead of the SQLite file; see docs/scale-out.md',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  switchboard serve                    # stdio, for `claude mcp add switchboard -- "$(command -v switchboard)" serve`\n  switchboard serve --http --port 7777\n  switchboard serve --http --store redis://127.0.0.1:6379   # one of several instances behind a load balancer',
    )
    .action(async (o) => {
      // For the next start: the startup snapshot of this install, built in the background when there is none.
      (await import('./snapshot-cache.ts')).buildLaterIfMissing();
      return (await cmd.serve()).serve({ cwd: cwd(), ...o, handlers: o.handlers?.map((h: string) => resolve(h)) });
    });

  const snapshot = program
    .command('snapshot')
    .description(
      'The startup snapshot serve starts from, built in your cache on first start (see docs/performance.md).',
    );
  snapshot
    .command('build')
    .description('Build it now (serve does it by itself in the background when there is none).')
    .option('--quiet', 'print nothing on success')
    .action(async (o) => (await cmd.snapshot()).build(o));
  snapshot
    .command('status')
    .description('Where it is, and whether the next serve starts from it.')
    .action(async () => (await cmd.snapshot()).status());
  snapshot
    .command('clear')
    .description('Remove it; the next serve starts without it and builds it again.')
    .action(async () => (await cmd.snapshot()).clear());

  const tools = program.command('tools').description('List and call tools.');
  tools
    .command('list')
    .description('List the tools (in-process, or from a running server with --url).')
    .option('--json', 'print JSON')
    .option('--url <url>', 'a running Switchboard (e.g. http://127.0.0.1:7777)')
    .option('--token <token>', 'bearer token for --url (default: $SWITCHBOARD_TOKEN)')
    .action(async (o) => (await cmd.tools()).toolsList({ cwd: cwd(), ...o }));
  tools
    .command('call')
    .description('Call a tool with --input JSON or key=value pairs; prints the result as JSON.')
    .argument('<name>', 'tool or capability name (task__create or task.create)')
    .argument('[pairs...]', 'input as key=value (values are parsed as JSON when they can be)')
    .option('-i, --input <json>', 'input as a JSON object')
    .option('--url <url>', 'call a running Switchboard instead of in-process')
    .option('--token <token>', 'bearer token for --url (default: $SWITCHBOARD_TOKEN)')
    .addHelpText(
      'after',
      '\nExamples:\n  switchboard tools call task.create text="Write the docs" priority=80\n  switchboard tools call task__list --input \'{"status":"pending"}\'',
    )
    .action(async (name, pairs, o) => (await cmd.tools()).toolsCall(name, pairs, { cwd: cwd(), ...o }));

  const events = program.command('events').description('Watch what happens.');
  events
    .command('tail')
    .description('Print events from a running server as they happen.')
    .option('--url <url>', 'the running Switchboard', 'http://127.0.0.1:7777')
    .option('--token <token>', 'bearer token of an admin (default: $SWITCHBOARD_TOKEN)')
    .option('--recent <n>', 'first print the last n stored events')
    .option('-n, --limit <n>', 'exit after n events')
    .addOption(new Option('--json', 'one JSON object per line'))
    .action(async (o) => (await cmd.events()).eventsTail(o));

  const token = program
    .command('token')
    .description('API tokens for HTTP callers (stored hashed in the project store).');
  token
    .command('create')
    .description('Create a token and print it once.')
    .argument('<name>', 'a name for the token (1-64 of A-Z a-z 0-9 _ . -)')
    .option('--roles <roles>', "comma-separated roles, e.g. 'agent' or 'agent,admin'")
    .option('--expires <duration>', 'lifetime such as 30d, 12h, 45m (default: never)')
    .option('--profile <name>', 'bind the token to a [profiles.NAME] tool set: every request it makes runs under it')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  switchboard token create ci-bot --roles agent --expires 30d\n  switchboard token create review-bot --roles agent --profile reviewer',
    )
    .action(async (name, o) => (await cmd.token()).tokenCreate(name, { cwd: cwd(), ...o }));
  token
    .command('list')
    .description('List tokens (never their secrets).')
    .option('--json', 'print JSON')
    .action(async (o) => (await cmd.token()).tokenList({ cwd: cwd(), ...o }));
  token
    .command('revoke')
    .description('Revoke a token; requests presenting it are refused at once.')
    .argument('<name>', 'the token name')
    .action(async (name) => (await cmd.token()).tokenRevoke(name, { cwd: cwd() }));

  program
    .command('audit')
    .description('Show the audit trail: one record per call, newest first.')
    .option('--since <when>', 'a duration back from now (1h, 7d) or an ISO time')
    .option('--tool <name>', 'only this capability or tool')
    .option('--principal <id>', 'only this caller (token name, stdio, cli, anonymous)')
    .option('--outcome <ok|error>', 'only successes or only failures')
    .option('--limit <n>', 'at most n records (default 100)')
    .option('--json', 'print JSON')
    .action(async (o) => (await cmd.audit()).audit({ cwd: cwd(), ...o }));

  program
    .command('stats')
    .description('Per-capability call metrics of a running server.')
    .option('--url <url>', 'the running Switchboard', 'http://127.0.0.1:7777')
    .option('--token <token>', 'bearer token (default: $SWITCHBOARD_TOKEN)')
    .option('--json', 'print JSON')
    .action(async (o) => (await cmd.stats()).stats(o));

  const collect = (v: string, prev: string[] = []) => [...prev, v];
  addMcpCommands(program, cwd, collect);
  // Coding-agent hook events. One subcommand per kind of answer; each reads the event JSON on stdin.
  const hook = program
    .command('hook')
    .description("Run as a coding agent's hook command (Claude Code settings.json hooks); reads the event on stdin.");
  const hookOptions = () => ({ cwd: cwd(), cwdGiven: program.getOptionValueSource('cwd') === 'cli' });
  hook
    .command('dispatch')
    .description(
      'Run the plugin hooks whose event matches (default Stop and SubagentStop); a failing check answers {"decision":"block","reason":…}.',
    )
    .addHelpText(
      'after',
      '\nIn .claude/settings.json:\n  {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "switchboard hook dispatch"}]}]}}',
    )
    .action(async () => (await cmd.hook()).hookDispatch(hookOptions()));
  const vcr = program.command('vcr').description('Record and replay script runs (VCR cassettes).');
  vcr
    .command('replay')
    .description(
      "Replay a cassette recorded with SWITCHBOARD_VCR_CASSETTE=FILE or MEKARA_VCR_CASSETTE=FILE (or one of mekara's) against this project's scripts; no command runs. Exits 1 on the first difference.",
    )
    .argument('<file>', 'the cassette (YAML)')
    .action(async (file) => (await cmd.vcr()).vcrReplay(file, { cwd: cwd() }));

  hook
    .command('user-prompt-submit')
    .description('UserPromptSubmit: route /name of a compiled script to mcp__switchboard__script__start.')
    .action(async () => (await cmd.hook()).userPromptSubmit(hookOptions()));
  hook
    .command('pre-tool-use')
    .description('PreToolUse (matcher "Skill"): deny running a compiled script as a skill; say to use script__start.')
    .action(async () => (await cmd.hook()).preToolUse(hookOptions()));

  program
    .command('install')
    .description('Connect an agent to Switchboard.')
    .argument('<agent>', 'claude-code | codex | gemini')
    .addOption(
      new Option(
        '--scope <scope>',
        'project (.mcp.json + .claude/, .codex/config.toml, .gemini/settings.json) or user (~/.claude.json + ~/.claude/, $CODEX_HOME/config.toml, ~/.gemini/settings.json)',
      )
        .choices(['project', 'user'])
        .default('project'),
    )
    .option('--profile <name>', 'the agent starts `serve --profile NAME`: it sees the [profiles.NAME] tool set')
    .option(
      '--npx',
      'write `npx -y switchboard-mcp` (the package name, for a config file a team shares) instead of this install’s absolute path',
    )
    .action(async (agent, o) =>
      (await cmd.install()).install(agent, { cwd: cwd(), scope: o.scope, profile: o.profile, npx: o.npx }),
    );
  program
    .command('uninstall')
    .description('Remove what `switchboard install` added (and the files it created, when nothing else is in them).')
    .argument('<agent>', 'claude-code | codex | gemini')
    .addOption(new Option('--scope <scope>', 'project or user').choices(['project', 'user']).default('project'))
    .action(async (agent, o) => (await cmd.install()).uninstall(agent, { cwd: cwd(), scope: o.scope }));
  program
    .command('init')
    .description(
      'Set up this project: a commented .switchboard/config.toml, the MCP servers other clients have, and the agents to connect.',
    )
    .option('-y, --yes', 'no questions: import every server found and connect every agent found')
    .option('--import <clients>', "import servers: 'all', 'none' or clients (claude-code,codex,gemini,meerkat)")
    .option('--no-import', 'import no servers')
    .option('--install <agents>', "connect agents: 'detected', 'none' or agents (claude-code,codex,gemini)")
    .option('--no-install', 'connect no agent')
    .option('--scope <scope>', 'where install writes the agents’ config: project (default) or user')
    .option(
      '--from-registry <name>',
      'add NAME[@VERSION] from the MCP registry, withheld until approved (repeatable; find names with mcp search)',
      collect,
    )
    .option(
      '--npx',
      'write `npx -y switchboard-mcp` (the package name, for a config file a team shares) instead of this install’s absolute path',
    )
    .addHelpText(
      'after',
      '\nOn a terminal, init asks what the flags leave open; without one it imports and installs nothing unless told.\nExamples:\n  switchboard init\n  switchboard init --yes\n  switchboard init --import claude-code,codex --install claude-code --scope user',
    )
    .action(async (o) => (await cmd.init()).init({ cwd: cwd(), ...o }));
  const agents = program.command('agents').description('Sub-agents: run a turn, list definitions, import them.');
  agents
    .command('run')
    .description('Run a turn of an agent with a live view of its events; the answer goes to stdout.')
    .argument('<agent>', 'an agent from .switchboard/agents/')
    .argument('[prompt...]', 'what to ask (optional with --param for an agent with a parameters_schema)')
    .option(
      '-s, --session <name>',
      'session name; an existing session is resumed (default: a new session, <agent>-<time>, -2, -3… within one second)',
    )
    .option('--provider <provider>', 'claude-cli, anthropic, openai or gemini (default: the agent’s, then [agents])')
    .option('--model <model>', 'model to use')
    .option('--max-tokens <n>', 'max tokens per model call')
    .option('--builtins', "give the agent Switchboard's own tools (API providers)")
    .option('--param <key=value...>', 'parameters for an agent with a parameters_schema (new sessions)')
    .option('-q, --quiet', 'no live view, only the answer')
    .option('--json', 'print the whole result as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  switchboard agents run reviewer "Review src/serve for error handling"\n  switchboard agents run reviewer --session rev-1 "Now the tests"\n  switchboard agents run parametric-agent --param topic="Queues" format=summary max_words=200',
    )
    .action(async (agent, prompt, o) => (await cmd.agents()).agentsRun(agent, prompt, { cwd: cwd(), ...o }));
  agents
    .command('list')
    .description('List agent definitions (broken ones with their path and problem).')
    .option('--json', 'print JSON')
    .action(async (o) => (await cmd.agents()).agentsList({ cwd: cwd(), ...o }));
  agents
    .command('import')
    .description(
      "Copy agent-orchestrator's agents into .switchboard/agents (existing ones are kept; ones Switchboard cannot use are named with why).",
    )
    .argument(
      '[dir]',
      'its agents folder (default: .agent-orchestrator/agents; its repository keeps them in config/agents)',
    )
    .requiredOption('--from <tool>', 'agent-orchestrator')
    .option('--agent <name...>', 'only these agents')
    .option(
      '--approve-commands',
      'import agent.mcp.json servers that run a command (each is named when skipped: review it first)',
    )
    .option('--json', 'print JSON')
    .action(async (dir, o) => (await cmd.agents()).agentsImport(dir, { cwd: cwd(), ...o }));

  const sessions = program.command('sessions').description('Read and clean sub-agent sessions.');
  sessions
    .command('list')
    .description('List sessions with status, provider and usage.')
    .option('--json', 'print JSON')
    .action(async (o) => (await cmd.sessions()).sessionsList({ cwd: cwd(), ...o }));
  sessions
    .command('show')
    .description('Show a session: agent, provider, usage and its last result.')
    .argument('<session>', 'session name')
    .option('--json', 'print JSON')
    .action(async (name, o) => (await cmd.sessions()).sessionsShow(name, { cwd: cwd(), ...o }));
  sessions
    .command('tail')
    .description("Print a session's transcript events; --follow keeps printing while a turn runs.")
    .argument('<session>', 'session name')
    .option('-n, --lines <n>', 'how many recent events to print first (default 20)')
    .option('-f, --follow', 'print new events until the turn ends')
    .option('--json', 'print raw JSON lines')
    .action(async (name, o) => (await cmd.sessions()).sessionsTail(name, { cwd: cwd(), ...o }));
  sessions
    .command('clean')
    .description('Delete a session, or every session with --all (running sessions are kept).')
    .argument('[session]', 'session name')
    .option('--all', 'delete every session')
    .option('--json', 'print JSON')
    .action(async (name, o) => (await cmd.sessions()).sessionsClean(name, { cwd: cwd(), ...o }));

  return program;
}

export async function main(argv = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; every usage error (unknown command or option, missing argument) exits 2.
      process.exit(err.exitCode === 0 ? 0 : 2);
    }
    fail(err);
  }
}
