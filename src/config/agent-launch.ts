// How a coding agent starts Switchboard: the one command every `switchboard install <agent>` writes, and the test
// for "this MCP server entry is Switchboard itself" (never imported as an upstream of itself).

/** The command line prefix agents run (`npx -y switchboard-mcp …`): the registry package name, so npx finds it. */
export const RUN = 'npx -y switchboard-mcp';

/** The stdio MCP server agents start: `npx -y switchboard-mcp serve`, in the directory the agent runs in. */
export const SERVE = { command: 'npx', args: ['-y', 'switchboard-mcp', 'serve'] } as const;

/** The stdio server entry an install writes: `serve`, or `serve --profile NAME` for a profile's tool set. */
export function serveEntry(profile?: string): { command: string; args: string[] } {
  return { command: SERVE.command, args: [...SERVE.args, ...(profile ? ['--profile', profile] : [])] };
}

const OURS = /^(switchboard|switchboard-mcp)(@[^/\s]*)?$|(^|\/)bin\/switchboard\.js$/;

/**
 * Whether a stdio server entry starts Switchboard's own `serve` (what an install wrote, or a hand-written
 * `switchboard serve` / `node …/bin/switchboard.js serve`): importing it would make Switchboard its own upstream.
 */
export function isSwitchboardItself(entry: { command?: unknown; args?: unknown }): boolean {
  if (typeof entry.command !== 'string') return false;
  const words = [entry.command, ...(Array.isArray(entry.args) ? entry.args.map(String) : [])];
  const at = words.findIndex((w) => OURS.test(w));
  return at >= 0 && words.slice(at + 1).includes('serve');
}
