// The `switchboard` command: parses arguments with commander and dispatches to one file per command group.
import { resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { version } from '../version.ts';
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
};

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

  program
    .command('serve')
    .description('Serve MCP over stdio (default), or Streamable HTTP + REST with --http.')
    .option('--http', 'serve Streamable HTTP at /mcp and REST at /v1 instead of stdio')
    .option('--host <host>', 'address to bind (loopback only until tokens are configured)')
    .option('--port <port>', 'port to listen on (0 = any free port)')
    .option('--handlers <dir...>', 'extra folders of handler modules to load')
    .option('--only <glob...>', 'expose only capabilities matching these globs (e.g. "task.*" "system.health")')
    .option('--except <glob...>', 'hide capabilities matching these globs')
    .addHelpText(
      'after',
      '\nExamples:\n  switchboard serve                    # stdio, for `claude mcp add switchboard -- npx switchboard serve`\n  switchboard serve --http --port 7777',
    )
    .action(async (o) =>
      (await cmd.serve()).serve({ cwd: cwd(), ...o, handlers: o.handlers?.map((h: string) => resolve(h)) }),
    );

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
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  switchboard token create ci-bot --roles agent --expires 30d')
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
