// A sub-agent runs under its agent.json `profile`: the built-ins it is offered, and the Switchboard its MCP servers
// start (`switchboard serve` in agent.mcp.json gets SWITCHBOARD_PROFILE) — on an API provider and with the real
// claude binary, both against the fake Messages API, whose requests show the tools the model was given.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, FIXTURE_HANDLERS } from '../../helpers/cli.ts';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import { type FakeAnthropic, type Responder, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { agentHub } from './agent-hub.ts';

let api: FakeAnthropic | undefined;
let hub: TestHub | undefined;
closeAfterEach(() => [hub, api]);

const PROFILES = `
[profiles.board]
allow = ["task.*"]
deny = ["task.delete", "task.assign"]

[profiles.echo]
allow = ["fixture.echo"]
`;
/** Switchboard itself as an agent's MCP server, started the way an agent.mcp.json would start it. */
const SWITCHBOARD = { command: process.execPath, args: [BIN, 'serve', '--handlers', FIXTURE_HANDLERS] };

const offered = (n = 0) =>
  api!
    .messages()
    [n].body.tools.map((t: { name: string }) => t.name)
    .sort() as string[];

/** The fake API answering `replies`, and a hub with PROFILES and one agent (with Switchboard as its MCP server). */
async function start(json: Record<string, unknown>, opts: { respond?: Responder; mcp?: boolean } = {}) {
  api = await startFakeAnthropic(opts.respond ? { respond: opts.respond } : { replies: ['done'] });
  hub = await agentHub({
    anthropic: api.url,
    config: PROFILES,
    agents: { [json.name as string]: { json, ...(opts.mcp ? { mcp: { mcpServers: { sb: SWITCHBOARD } } } : {}) } },
  });
  return hub;
}

describe('sub-agents under their profile', () => {
  it('an API-provider agent is offered only its profile’s built-ins', async () => {
    const hub = await start({ name: 'planner', provider: 'anthropic', profile: 'board' });
    await hub.value('agent.start', { session_name: 'p', agent_name: 'planner', prompt: 'x', enable_builtins: true });
    const tools = offered();
    expect(tools.length).toBeGreaterThan(3);
    expect(tools.every((t) => t.startsWith('task__'))).toBe(true);
    expect(tools).not.toContain('task__delete');
    expect(tools).not.toContain('task__assign');
  });

  it('the Switchboard an API-provider agent starts from agent.mcp.json serves the agent’s profile', async () => {
    const hub = await start({ name: 'echoer', provider: 'anthropic', profile: 'echo' }, { mcp: true });
    await hub.value('agent.start', { session_name: 'e', agent_name: 'echoer', prompt: 'x' });
    expect(offered()).toEqual(['sb__fixture__echo']);
  });

  it('claude-cli: the Switchboard in the agent’s MCP config serves its profile to the real claude', async () => {
    // claude connects MCP servers in the background: the model waits for them (its WaitForMcpServers tool, which
    // gives up after a while on a loaded machine: asked again, at most 10 times) until a request carries their tools.
    const wait = { content: [{ type: 'tool_use' as const, name: 'WaitForMcpServers', input: { servers: ['sb'] } }] };
    const hub = await start(
      { name: 'reviewer', provider: 'claude-cli', profile: 'echo' },
      {
        mcp: true,
        respond: (req, i) =>
          i >= 10 || req.body.tools.some((t: { name: string }) => t.name.startsWith('mcp__sb__')) ? 'done' : wait,
      },
    );
    const result = await hub.value('agent.start', { session_name: 'r', agent_name: 'reviewer', prompt: 'x' });
    expect(result.status).toBe('completed');
    const fromSwitchboard = offered(api!.messages().length - 1).filter((t) => t.startsWith('mcp__sb__'));
    expect(fromSwitchboard).toEqual(['mcp__sb__fixture__echo']);
  }, 150_000); // Two CLIs start in turn (claude, then the Switchboard it connects to): slow on a loaded machine.

  it('an agent.json naming a profile the configuration lacks fails the start before any session or model call', async () => {
    const hub = await start({ name: 'lost', provider: 'anthropic', profile: 'gone' });
    const out = await hub.call('agent.start', { session_name: 'l', agent_name: 'lost', prompt: 'x' });
    expect(!out.ok && out.error).toMatchObject({
      code: 'NOT_FOUND',
      // The caller reads paths relative to the project (src/core/caller-paths.ts).
      message: `No profile 'gone' ("profile" in .switchboard/agents/lost/agent.json). Known profiles: board, echo.`,
    });
    expect(api!.messages()).toHaveLength(0);
    expect((await hub.value('session.list', {})).sessions ?? []).toEqual([]);
  });

  it('an agent.json whose profile is not a profile name is reported broken, naming the file and the rule', async () => {
    api = await startFakeAnthropic({ replies: ['never'] });
    hub = await agentHub({ anthropic: api.url, config: PROFILES });
    const dir = join(hub.dir, '.switchboard/agents/bad');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'agent.json'), JSON.stringify({ name: 'bad', profile: 'not a name' }));
    const out = await hub.call('agent.start', { session_name: 'b', agent_name: 'bad', prompt: 'x' });
    expect(!out.ok && out.error.message).toMatch(
      /^Agent 'bad' is broken: .*agents\/bad\/agent\.json: profile: a profile name is 1 to 64 characters/,
    );
  });
});
