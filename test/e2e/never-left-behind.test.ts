// End-to-end (issue 32 §2): every process a hub starts ends when the hub ends, even by `kill -9`, which runs none of
// its exit handlers. A real `switchboard serve --http` runs an upstream stdio server, a plugin hook, a script's shell
// step and an agent's `claude` turn (the real binary against the fake Messages API) with claude's own MCP server;
// the hub is SIGKILLed and none of its descendants may be left two seconds later.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServerProcess, startHttpServer, tempProject } from '../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { writePlugin } from '../helpers/plugins.ts';
import { alive, commandLine, descendants, describeProcesses } from '../helpers/proc.ts';
import { until } from '../helpers/until.ts';
import { projectScripts } from '../sources/scripts/helpers.ts';

const FIXTURE_SERVER = resolve(import.meta.dirname, '../fixtures/upstream/fixture-server.mjs');
const CLAUDE = resolve(import.meta.dirname, '../../node_modules/.bin/claude');

let api: FakeAnthropic;
let server: HttpServerProcess | undefined;
let client: Client | undefined;

beforeAll(async () => {
  // The model never answers: claude stays in its first turn until it is killed.
  api = await startFakeAnthropic({ replies: [{ content: [{ type: 'text', text: 'never' }], delayMs: 120_000 }] });
});
afterAll(async () => {
  await client?.close().catch(() => {});
  await server?.stop();
  await api?.close();
});

function project(): string {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'), { recursive: true });
  const q = JSON.stringify;
  writeFileSync(
    join(dir, '.switchboard/config.toml'),
    [
      '[[servers]]',
      'name = "up"',
      `command = ${q(process.execPath)}`,
      `args = [${q(FIXTURE_SERVER)}]`,
      '',
      '[agents.providers.claude-cli]',
      `command = ${q(CLAUDE)}`,
      'permission_mode = "bypassPermissions"',
      // Claude Code connects its MCP servers before the first turn (test/helpers/claude-code.ts says why).
      `env = { HOME = ${q(join(dir, '.home'))}, IS_SANDBOX = "1", MCP_CONNECTION_NONBLOCKING = "0", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = "1" }`,
      '',
    ].join('\n'),
  );
  const agent = join(dir, '.switchboard/agents/worker');
  mkdirSync(agent, { recursive: true });
  writeFileSync(
    join(agent, 'agent.json'),
    q({ name: 'worker', description: 'Works', provider: 'claude-cli', permission_mode: 'bypassPermissions' }),
  );
  writeFileSync(
    join(agent, 'agent.mcp.json'),
    q({
      mcpServers: {
        claudes: { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_NAME: 'claudes-own' } },
      },
    }),
  );
  writePlugin(dir, 'slow', 'hooks:\n  build: { command: "sleep 300" }\n');
  projectScripts(dir, {
    'nl/hang.md': '# Hang\n',
    'compiled/hang.mjs':
      "import { auto } from 'switchboard';\nexport default function* () { yield auto('sleep 301'); }\n",
  });
  return dir;
}

describe('children never outlive the hub', () => {
  it('kill -9 of the hub ends its upstream server, hook, script step, claude and claude’s MCP server', async () => {
    const dir = project();
    server = await startHttpServer(dir, [], { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' });
    const hub = server.child.pid as number;
    client = new Client({ name: 'left-behind', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    // Three calls that run until something kills them; none is awaited.
    const pending = [
      client.callTool({ name: 'slow__build', arguments: {} }),
      client.callTool({ name: 'script__start', arguments: { name: 'hang' } }),
      client.callTool({
        name: 'agent__start',
        arguments: { session_name: 'w1', agent_name: 'worker', prompt: 'work', async: true },
      }),
    ];
    for (const p of pending) p.catch(() => {});
    const running = () => descendants(hub).map((pid) => ({ pid, cmd: commandLine(pid) }));
    const kinds = {
      upstream: (cmd: string) => cmd.includes(FIXTURE_SERVER) && !cmd.includes('claudes'),
      hook: (cmd: string) => cmd.includes('sleep 300'),
      step: (cmd: string) => cmd.includes('sleep 301'),
      claude: (cmd: string) => cmd.includes('claude') && !cmd.includes(FIXTURE_SERVER),
    };
    // Claude's own MCP server is a fixture server too; it is told apart by its parent being claude.
    await until(
      () => {
        const procs = running();
        const all = Object.values(kinds).every((k) => procs.some((p) => k(p.cmd)));
        return all && api.messages().length > 0 && procs.filter((p) => p.cmd.includes(FIXTURE_SERVER)).length >= 2;
      },
      { timeoutMs: 60_000, what: () => `every kind of child to run: ${describeProcesses(descendants(hub))}` },
    );
    const before = descendants(hub);
    expect(before.filter((pid) => commandLine(pid).includes(FIXTURE_SERVER)).length).toBeGreaterThanOrEqual(2);
    const killedAt = performance.now();
    process.kill(hub, 'SIGKILL');
    await until(() => before.every((pid) => !alive(pid)), {
      timeoutMs: 2_000,
      what: () => `every child of the killed hub to end: left ${describeProcesses(before.filter(alive))}`,
    });
    expect(performance.now() - killedAt).toBeLessThan(2_000);
  });
});
