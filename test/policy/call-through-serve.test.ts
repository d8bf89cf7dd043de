// Rule 2 across a process (docs/security.md, "Reaching a tool through another"): the `switchboard serve` an agent's
// turn starts — from agent.mcp.json, by the real claude or by the hub's MCP client for an API provider — serves at
// most what the caller of agent__start could call directly. The hub passes that in SWITCHBOARD_CALLER_LIMIT; each case
// gives a caller whose exposure hides the plugin `myplug` the way to run its hooks through that server and checks
// that none ran, and that an unrestricted caller on the same hub does run them, so no case passes because the route
// is broken. Then what `serve` makes of the variable itself: a name that appears later is hidden, a long limit
// travels in an owner-only file, and a value it cannot read stops it.
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/context.ts';
import { exposureFilter } from '../../src/core/name-globs.ts';
import { CALLER_LIMIT_ENV, passCallerLimit } from '../../src/policy/caller-limit.ts';
import { BIN, childEnv, runCli, tempProject } from '../helpers/cli.ts';
import { type FakeAnthropic, type RecordedRequest, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import type { TestHub } from '../helpers/hub.ts';
import { writePlugin } from '../helpers/plugins.ts';
import { until } from '../helpers/until.ts';
import { agentHub } from '../sources/agents/agent-hub.ts';

/** A token whose `expose` hides `myplug.*`, as `[policy.tokens.x.expose] deny = ["myplug.*"]` or a profile does. */
const limited: Principal = {
  id: 'limited',
  roles: ['agent'],
  kind: 'token',
  sees: exposureFilter([{ deny: ['myplug.*'] }]),
};
const open: Principal = { id: 'open', roles: ['agent'], kind: 'token' };

/** Hooks that each leave a file in the project when they run: one called directly, one on every PostToolUse. */
const MANIFEST = `hooks:
  direct: { command: 'touch RAN-direct' }
  post: { event: PostToolUse, command: 'touch RAN-post' }
`;
/** The built CLI as an agent's MCP server, as an agent.mcp.json would start it. */
const SWITCHBOARD = { command: process.execPath, args: [BIN, 'serve'] };

let api: FakeAnthropic | undefined;
let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  await api?.close();
  hub = api = undefined;
});

const ran = (h: TestHub, hook: string) => existsSync(join(h.dir, `RAN-${hook}`));
const forget = (h: TestHub, hook: string) => rmSync(join(h.dir, `RAN-${hook}`), { force: true });
const toolsOf = (req: RecordedRequest) => (req.body.tools as { name: string }[]).map((t) => t.name);

/** What each tool the model called answered, by the tool's name, as the request carries it back to the model. */
function answers(req: RecordedRequest): Map<string, string> {
  type Block = { type: string; id?: string; name?: string; tool_use_id?: string; content?: unknown };
  const blocks = (req.body.messages as { content: unknown }[]).flatMap((m) =>
    Array.isArray(m.content) ? (m.content as Block[]) : [],
  );
  const names = new Map(blocks.filter((b) => b.type === 'tool_use').map((b) => [b.id, b.name as string]));
  const out = new Map<string, string>();
  for (const b of blocks.filter((b) => b.type === 'tool_result')) {
    const name = names.get(b.tool_use_id);
    if (name) out.set(name, typeof b.content === 'string' ? b.content : JSON.stringify(b.content));
  }
  return out;
}

/** A hub with `myplug` loaded and one agent whose agent.mcp.json starts Switchboard as `server`. */
async function hubWithAgent(agent: Record<string, unknown>, api: FakeAnthropic, server: string): Promise<TestHub> {
  const h = await agentHub({
    anthropic: api.url,
    // The claude agent must run the MCP tools the model asks for without a prompt.
    claudePermissionLimit: 'bypassPermissions',
    agents: {
      agent: {
        json: { name: 'agent', description: 'Works', ...agent },
        mcp: { mcpServers: { [server]: SWITCHBOARD } },
      },
    },
  });
  hub = h;
  writePlugin(h.dir, 'myplug', MANIFEST);
  await until(() => h.services.registry.get('myplug.direct') !== undefined, { what: 'the plugin to load' });
  return h;
}

describe('rule 2 through a Switchboard the agent starts', () => {
  it("claude-cli: the serve in agent.mcp.json hides and refuses what the caller's exposure hides; the open caller's turn runs it", async () => {
    const DIRECT = 'mcp__switchboard__myplug__direct';
    const POST = 'mcp__switchboard__hook__post_tool';
    // claude connects its MCP servers in the background: the model waits for them (WaitForMcpServers, asked again at
    // most 10 times a turn) until a request carries Switchboard's tools, then calls the plugin's hook directly and
    // through the hook tool, whether it was offered them or not, then ends.
    let waits = 0;
    api = await startFakeAnthropic({
      respond: (req) => {
        const connected = toolsOf(req).includes('mcp__switchboard__task__list');
        if (!connected && waits++ < 10)
          return { content: [{ type: 'tool_use', name: 'WaitForMcpServers', input: { servers: ['switchboard'] } }] };
        if (!connected || JSON.stringify(req.body.messages).includes(`"name":"${DIRECT}"`)) return 'done';
        return {
          content: [
            { type: 'tool_use', name: DIRECT, input: {} },
            { type: 'tool_use', name: POST, input: { tool: 'Edit', params: { file_path: 'a.txt' }, result: null } },
          ],
        };
      },
    });
    const h = await hubWithAgent(
      { provider: 'claude-cli', permission_mode: 'bypassPermissions', roles: ['agent'] },
      api,
      'switchboard',
    );
    const turn = async (as: Principal) => {
      waits = 0;
      const from = api!.messages().length;
      const out = await h.call(
        'agent.start',
        { session_name: `s-${as.id}`, agent_name: 'agent', prompt: 'run it' },
        as,
      );
      expect(out.ok && (out.value as { status: string }).status).toBe('completed');
      const requests = api!.messages().slice(from);
      const offered = requests.map(toolsOf).find((tools) => tools.includes('mcp__switchboard__task__list'));
      expect(offered, 'the turn never saw Switchboard connected').toBeDefined();
      return { offered: offered as string[], answers: answers(requests.at(-1) as RecordedRequest) };
    };

    const refused = await turn(limited);
    expect(refused.offered).not.toContain(DIRECT);
    expect(refused.offered).toContain(POST);
    // Both calls reached claude: the hook was not among its tools, and the hook tool answered without running it.
    expect(refused.answers.get(DIRECT)).toContain('No such tool available');
    expect(refused.answers.get(POST)).toBe('{"processed":true,"allow":true}');
    expect(ran(h, 'direct')).toBe(false);
    expect(ran(h, 'post')).toBe(false);

    const served = await turn(open);
    expect(served.offered).toContain(DIRECT);
    expect(served.answers.get(DIRECT)).toContain('myplug__direct passed');
    expect(ran(h, 'direct')).toBe(true);
    expect(ran(h, 'post')).toBe(true);
  }, 240_000); // Two turns, each starting claude and then the Switchboard it connects to: slow on a loaded machine.

  it("an API provider: the serve in agent.mcp.json, opened by the hub's MCP client, serves only the caller's tools", async () => {
    api = await startFakeAnthropic({ fallback: 'done' });
    const h = await hubWithAgent({ provider: 'anthropic', roles: ['agent'] }, api, 'sb');
    for (const as of [limited, open]) {
      forget(h, 'direct');
      const from = api.messages().length;
      api.enqueue({ content: [{ type: 'tool_use', name: 'sb__myplug__direct', input: {} }] }, 'done');
      const out = await h.call(
        'agent.start',
        { session_name: `a-${as.id}`, agent_name: 'agent', prompt: 'run it' },
        as,
      );
      expect(out.ok && (out.value as { status: string }).status).toBe('completed');
      const offered = toolsOf(api.messages()[from]);
      expect(offered).toContain('sb__task__list');
      expect(offered.includes('sb__myplug__direct')).toBe(as === open);
      // The turn's roles (the agent's, within the caller's) cap the serve's own `[stdio] roles` (all by default).
      expect(h.services.registry.get('system.tokens')?.capability.roles).toEqual(['admin']);
      expect(offered).not.toContain('sb__system__tokens');
      expect(ran(h, 'direct')).toBe(as === open);
    }
  }, 120_000);
  it('an agent.mcp.json that sets SWITCHBOARD_CALLER_LIMIT itself is broken: no file widens what a caller reaches', async () => {
    api = await startFakeAnthropic({ fallback: 'done' });
    const h = await agentHub({
      anthropic: api.url,
      agents: {
        wide: {
          json: { name: 'wide', description: 'Works', provider: 'anthropic' },
          mcp: { mcpServers: { sb: { ...SWITCHBOARD, env: { [CALLER_LIMIT_ENV]: '{"roles":["*"]}' } } } },
        },
      },
    });
    hub = h;
    writePlugin(h.dir, 'myplug', MANIFEST);
    await until(() => h.services.registry.get('myplug.direct') !== undefined, { what: 'the plugin to load' });
    api.enqueue({ content: [{ type: 'tool_use', name: 'sb__myplug__direct', input: {} }] }, 'done');
    const out = await h.call('agent.start', { session_name: 'w', agent_name: 'wide', prompt: 'run it' }, limited);
    expect(!out.ok && out.error.message).toBe(
      `Agent 'wide' is broken: .switchboard/agents/wide/agent.mcp.json: server 'sb': env ${CALLER_LIMIT_ENV} is set by Switchboard for each turn (what the caller may call); remove it`,
    );
    expect(ran(h, 'direct')).toBe(false);
  }, 60_000);
});

describe('serve under SWITCHBOARD_CALLER_LIMIT', () => {
  it('hides a name that appears after it started unless listed; a long limit travels in an owner-only file', async () => {
    const dir = tempProject();
    // Longer than the environment carries inline: a file, owner-only, removed when the turn is over.
    const filler = Array.from({ length: 2000 }, (_, i) => `filler.tool_${String(i).padStart(4, '0')}`);
    const passed = await passCallerLimit({ roles: ['agent'], tools: ['task.list', 'myplug.direct', ...filler] });
    const file = passed.env[CALLER_LIMIT_ENV];
    expect(file.startsWith('/')).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const client = new Client({ name: 'caller-limit', version: '1' });
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, '--cwd', dir, 'serve'],
          env: childEnv(dir, passed.env),
        }),
      );
      const names = async () => (await client.listTools()).tools.map((t) => t.name).sort();
      expect(await names()).toEqual(['task__list']);
      // Two hooks appear after the start: the listed one is served, the other is not, and calling it runs nothing.
      writePlugin(
        dir,
        'myplug',
        `hooks:\n  direct: { command: 'touch RAN-direct' }\n  other: { command: 'touch RAN-other' }\n`,
      );
      await until(async () => (await names()).includes('myplug__direct'), { what: 'the listed hook to appear' });
      expect(await names()).toEqual(['myplug__direct', 'task__list']);
      const other = await client.callTool({ name: 'myplug__other', arguments: {} });
      expect(other.isError).toBe(true);
      expect((other.content as { text: string }[])[0].text).toContain("Unknown tool 'myplug__other'");
      expect(existsSync(join(dir, 'RAN-other'))).toBe(false);
    } finally {
      await client.close();
      await passed.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(existsSync(file)).toBe(false);
  }, 60_000);

  it('a value it cannot read, or --http, stops it with a usage error saying what is expected', async () => {
    const dir = tempProject();
    try {
      const cases: [string, string[], string][] = [
        ['everything', [], `${CALLER_LIMIT_ENV}=everything: expected a JSON object such as {"roles":["agent"]`],
        ['{"roles":"agent"}', [], `${CALLER_LIMIT_ENV}={"roles":"agent"}: roles: `],
        ['{"roles":[],"tools":["a.b"],"all":true}', [], 'Unrecognized key'],
        ['{"roles":', [], 'not JSON'],
        ['/nonexistent/limit.json', [], 'the file cannot be read (ENOENT)'],
        ['', [], `${CALLER_LIMIT_ENV}=: expected a JSON object`],
        ['{"roles":["agent"]}', ['--http', '--port', '0'], 'serve --http serves many callers'],
      ];
      for (const [value, args, said] of cases) {
        const r = await runCli(dir, ['serve', ...args], { env: { [CALLER_LIMIT_ENV]: value } });
        expect({ value, code: r.code }).toEqual({ value, code: 2 });
        expect(r.stderr).toContain(said);
        expect(r.stdout).toBe('');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
