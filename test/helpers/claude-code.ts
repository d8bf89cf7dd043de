// Test helper: the real `claude` binary (Claude Code 2.x) run once in print mode against the fake Anthropic API
// (fake-anthropic.ts) on 127.0.0.1, and what the fake model was last shown.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BIN, ROOT } from './cli.ts';
import type { FakeAnthropic, FakeReply, RecordedRequest } from './fake-anthropic.ts';

const CLAUDE = resolve(import.meta.dirname, '../../node_modules/.bin/claude');

/** Run `claude -p PROMPT` in `cwd` against the fake API; resolves with the stream-json events. */
export function claude(
  cwd: string,
  prompt: string,
  args: string[],
  api: FakeAnthropic,
  extraEnv: Record<string, string> = {},
): Promise<any[]> {
  return new Promise((ok, fail) => {
    const child = execFile(
      CLAUDE,
      ['-p', prompt, ...args, '--output-format', 'stream-json', '--verbose'],
      {
        cwd,
        timeout: 120_000,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: cwd,
          ANTHROPIC_BASE_URL: api.url,
          ANTHROPIC_API_KEY: 'x',
          SWITCHBOARD_HOME: join(cwd, '.home'),
          // No telemetry, update or error-report traffic: a test talks to the fake API only.
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          // In print mode Claude Code connects its MCP servers in the background and sends the first turn without
          // waiting: on a busy machine the model was first offered no Switchboard tools. Blocking, it waits until each
          // server's connection settles (connected or failed) — bounded by its own connect timeout (MCP_TIMEOUT,
          // 30 s by default), not by the 5 s after which it otherwise gives up waiting and goes on.
          MCP_CONNECTION_NONBLOCKING: '0',
          MCP_TIMEOUT: '30000',
          MCP_CONNECT_TIMEOUT_MS: '30000',
          ...extraEnv,
        },
      },
      (err, out, errOut) =>
        err
          ? fail(new Error(`${err.message}\n${errOut}\n${out}`))
          : ok(
              out
                .trim()
                .split('\n')
                .map((l) => JSON.parse(l)),
            ),
    );
    child.stdin?.end();
  });
}

/** The newest tool result the model got, or the whole conversation before the first tool call. */
export function lastMessage(req: RecordedRequest): string {
  const messages: { role: string; content: unknown }[] = req.body?.messages ?? [];
  const results = messages.filter((m) => JSON.stringify(m.content).includes('"tool_result"'));
  return JSON.stringify(results.at(-1) ?? messages);
}

/** A scripted reply that calls one tool. */
export const toolUse = (name: string, input: Record<string, unknown>): FakeReply => ({
  content: [{ type: 'tool_use', name, input }],
});

/** Write `PROJECT/mcp.json` for `--mcp-config`: Switchboard as the stdio server `switchboard` of `project`. */
export function switchboardMcpConfig(project: string): string {
  const file = join(project, 'mcp.json');
  const env = { SWITCHBOARD_HOME: join(project, '.home'), SWITCHBOARD_LOG_LEVEL: 'warn', PATH: process.env.PATH ?? '' };
  const switchboard = { type: 'stdio', command: process.execPath, args: [BIN, '--cwd', project, 'serve'], env };
  writeFileSync(file, JSON.stringify({ mcpServers: { switchboard } }));
  return file;
}

/**
 * A new project whose hub lists only the catalog tools (`exposure = "search"`) over the reference `everything`
 * server; its first list (and search) waits for that server, however busy the machine.
 */
export function everythingSearchProject(prefix: string): string {
  const project = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(project, '.switchboard'));
  const everything = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
  writeFileSync(
    join(project, '.switchboard/config.toml'),
    `[server]\nfirst_list_wait_ms = 60000\n\n[catalog]\nexposure = "search"\n\n[[servers]]\nname = "everything"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(everything)}, "stdio"]\n`,
  );
  return project;
}
