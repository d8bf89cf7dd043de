// The `switchboard` command: parses arguments with commander and dispatches to one file per command group.
import { resolve } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { version } from '../version.ts';
import { eventsTail } from './events.ts';
import { fail } from './output.ts';
import { serve } from './serve.ts';
import { toolsCall, toolsList } from './tools.ts';

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
    .addHelpText(
      'after',
      '\nExamples:\n  switchboard serve                    # stdio, for `claude mcp add switchboard -- npx switchboard serve`\n  switchboard serve --http --port 7777',
    )
    .action((o) => serve({ cwd: cwd(), ...o, handlers: o.handlers?.map((h: string) => resolve(h)) }));

  const tools = program.command('tools').description('List and call tools.');
  tools
    .command('list')
    .description('List the tools (in-process, or from a running server with --url).')
    .option('--json', 'print JSON')
    .option('--url <url>', 'a running Switchboard (e.g. http://127.0.0.1:7777)')
    .action((o) => toolsList({ cwd: cwd(), ...o }));
  tools
    .command('call')
    .description('Call a tool with --input JSON or key=value pairs; prints the result as JSON.')
    .argument('<name>', 'tool or capability name (task__create or task.create)')
    .argument('[pairs...]', 'input as key=value (values are parsed as JSON when they can be)')
    .option('-i, --input <json>', 'input as a JSON object')
    .option('--url <url>', 'call a running Switchboard instead of in-process')
    .addHelpText(
      'after',
      '\nExamples:\n  switchboard tools call task.create text="Write the docs" priority=80\n  switchboard tools call task__list --input \'{"status":"pending"}\'',
    )
    .action((name, pairs, o) => toolsCall(name, pairs, { cwd: cwd(), ...o }));

  const events = program.command('events').description('Watch what happens.');
  events
    .command('tail')
    .description('Print events from a running server as they happen.')
    .option('--url <url>', 'the running Switchboard', 'http://127.0.0.1:7777')
    .option('--recent <n>', 'first print the last n stored events')
    .option('-n, --limit <n>', 'exit after n events')
    .addOption(new Option('--json', 'one JSON object per line'))
    .action((o) => eventsTail(o));

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
