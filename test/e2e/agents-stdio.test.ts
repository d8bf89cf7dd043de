// End-to-end: sub-agents over MCP stdio with the official SDK client — the tools as a client sees them, progress
// and log notifications during a synchronous run, an async run polled with agent__status, errors as isError.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, tempProject } from '../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { gate } from '../helpers/gate.ts';
import { callWithProgress } from '../helpers/progress.ts';

let api: FakeAnthropic;
let client: Client;
const logs: unknown[] = [];

beforeAll(async () => {
  api = await startFakeAnthropic();
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard/agents/helper'), { recursive: true });
  writeFileSync(
    join(dir, '.switchboard/agents/helper/agent.json'),
    JSON.stringify({ name: 'helper', description: 'Helps', provider: 'anthropic' }),
  );
  // claude keeps its own files under $HOME/.claude: a home of the test's own.
  writeFileSync(
    join(dir, '.switchboard/config.toml'),
    `[agents.providers.claude-cli]\nenv = { HOME = "${join(dir, '.home')}", IS_SANDBOX = "1" }\n`,
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--cwd', dir, 'serve'],
    env: childEnv(dir, { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' }),
    stderr: 'pipe',
  });
  client = new Client({ name: 'agents-e2e', version: '1.0.0' });
  client.setNotificationHandler('notifications/message', async (n) => {
    logs.push(n.params.data);
  });
  await client.connect(transport);
});
afterAll(async () => {
  await client?.close();
  await api?.close();
});

function structured(result: Awaited<ReturnType<Client['callTool']>>): any {
  return result.structuredContent;
}

describe('agents over MCP stdio', () => {
  it('lists the agent and session tools with their annotations', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const name of [
      'agent__list',
      'session__list',
      'agent__start',
      'agent__resume',
      'agent__status',
      'agent__result',
      'agent__cancel',
      'session__clean',
    ])
      expect(byName[name], name).toBeDefined();
    expect(byName.session__clean.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.agent__list.annotations).toMatchObject({ readOnlyHint: true });
    // prompt is optional for an agent with a parameters_schema (its parameters are the prompt then).
    expect(byName.agent__start.inputSchema.required).toEqual(['session_name']);
    expect(Object.keys(byName.agent__start.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['prompt', 'parameters']),
    );
  });

  it('a synchronous run sends progress and log notifications as the agent works', async () => {
    api.enqueue(
      {
        content: [
          { type: 'text', text: 'Checking tasks.' },
          { type: 'tool_use', id: 'toolu_1', name: 'task__list', input: {} },
        ],
      },
      'No tasks yet.',
    );
    const { result, seen: progress } = await callWithProgress(client, 'agent__start', {
      session_name: 'sync',
      agent_name: 'helper',
      prompt: 'any tasks?',
      enable_builtins: true,
    });
    expect(result.isError).toBeFalsy();
    expect(structured(result)).toMatchObject({
      session_id: 'sync',
      status: 'completed',
      content: 'No tasks yet.',
      tool_calls: 1,
      turns: 2,
    });
    const messages = progress.map((p) => p.message);
    expect(messages).toEqual(
      expect.arrayContaining(['turn started: any tasks?', 'tool task__list {}', 'turn completed']),
    );
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(logs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ session: 'sync', event: 'tool_call', message: 'tool task__list {}' }),
      ]),
    );
  });

  it('without a progressToken the result comes alone, with no log notifications', async () => {
    api.enqueue('quiet answer');
    const result = await client.callTool({
      name: 'agent__start',
      arguments: { session_name: 'quiet', agent_name: 'helper', prompt: 'hush' },
    });
    expect(structured(result)).toMatchObject({ status: 'completed', content: 'quiet answer' });
    // A barrier, not a pause: the server writes in order, so a log it sent for that call arrives before this answer.
    await client.ping();
    expect(logs.filter((l) => (l as { session?: string }).session === 'quiet')).toEqual([]);
  });

  it("with Meerkat's stream: true the events come as log notifications without a progressToken", async () => {
    api.enqueue('streamed answer');
    const result = await client.callTool({
      name: 'agent__start',
      arguments: { session_name: 'streamed', agent_name: 'helper', prompt: 'go', stream: true },
    });
    expect(structured(result)).toMatchObject({ status: 'completed', content: 'streamed answer' });
    await client.ping();
    expect(logs).toEqual(
      expect.arrayContaining([expect.objectContaining({ session: 'streamed', message: 'turn completed' })]),
    );
  });

  it('an async start returns at once; agent__status with wait_seconds returns when the turn ends', async () => {
    // The model answers when the test opens the gate: the turn runs until then, however slow the machine.
    const model = gate();
    api.enqueue({ content: [{ type: 'text', text: 'Took a while.' }], hold: model.opened });
    const started = await client.callTool({
      name: 'agent__start',
      arguments: { session_name: 'bg', agent_name: 'helper', prompt: 'slow', async: true },
    });
    expect(structured(started)).toMatchObject({ status: 'running' });
    const waiting = client.callTool({
      name: 'agent__status',
      arguments: { session_name: 'bg', wait_seconds: 20 },
    });
    model.open();
    const status = await waiting;
    expect(structured(status)).toMatchObject({ status: 'completed', running: false });
    const result = await client.callTool({ name: 'agent__result', arguments: { session_name: 'bg' } });
    expect(structured(result)).toMatchObject({ content: 'Took a while.' });
    // sync, quiet, streamed and bg.
    const list = await client.callTool({ name: 'session__list', arguments: { response_format: 'json' } });
    expect(structured(list).total).toBe(4);
  });

  it('the default claude-cli provider finds the claude binary from the built server and runs a turn', async () => {
    api.enqueue('Hello from claude.');
    const result = await client.callTool({
      name: 'agent__start',
      arguments: { session_name: 'cli', prompt: 'say hello' },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(structured(result)).toMatchObject({
      status: 'completed',
      content: 'Hello from claude.',
      provider_session_id: expect.any(String),
    });
    expect(JSON.stringify(api.messages().at(-1)?.body.messages)).toContain('say hello');
  });

  it('bad input and failed turns come back as isError results with the reason', async () => {
    const bad = await client.callTool({ name: 'agent__start', arguments: { session_name: 'a b', prompt: 'x' } });
    expect(bad.isError).toBe(true);
    expect((bad.content as { text: string }[])[0].text).toContain(
      'Session name can only contain alphanumeric characters, dashes, and underscores',
    );
    api.enqueue({ content: [], error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const failed = await client.callTool({
      name: 'agent__start',
      arguments: { session_name: 'denied', agent_name: 'helper', prompt: 'x' },
    });
    expect(failed.isError).toBe(true);
    expect((failed.content as { text: string }[])[0].text).toMatch(/turn failed: .*invalid x-api-key/);
    expect(structured(failed)).toMatchObject({ status: 'failed' });
  });
});
