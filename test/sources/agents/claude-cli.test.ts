// The claude-cli provider with the real `claude` binary (@anthropic-ai/claude-code) pointed at the fake
// Messages API: start, resume with -r, the agent's system prompt and MCP config, cancel, structured output.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { describeProcesses } from '../../helpers/proc.ts';
import { until } from '../../helpers/until.ts';
import { agentHub } from './agent-hub.ts';

let api: FakeAnthropic | undefined;
let hub: TestHub | undefined;
closeAfterEach(() => [hub, api]);

/** Pids of running processes whose command line mentions `needle`. */
function processesWith(needle: string): number[] {
  // An empty or missing needle would match unrelated processes (`null` is in every `/dev/null`).
  if (typeof needle !== 'string' || needle.length < 8)
    throw new Error(`processesWith needs a distinctive needle, got ${needle}`);
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      if (cmd.includes(needle) && state !== 'Z') out.push(Number(pid));
    } catch {
      // gone
    }
  }
  return out;
}

describe('claude-cli provider (real claude binary)', () => {
  it("start → result: runs claude with the agent's system prompt and MCP config, streams events into the transcript", async () => {
    api = await startFakeAnthropic({
      replies: [
        {
          content: [
            { type: 'tool_use', name: 'Bash', input: { command: 'echo ran-in-$(basename $PWD)', description: 'echo' } },
          ],
        },
        'Reviewed: looks fine.',
      ],
    });
    hub = await agentHub({
      anthropic: api.url,
      // The model's Bash call must run: the operator allows bypassPermissions and the agent is granted it.
      claudePermissionLimit: 'bypassPermissions',
      agents: {
        reviewer: {
          json: {
            name: 'reviewer',
            description: 'Reviews code',
            provider: 'claude-cli',
            permission_mode: 'bypassPermissions',
          },
          prompt: 'You are a meticulous reviewer.',
          mcp: { mcpServers: {} },
        },
      },
    });
    const result = await hub.value('agent.start', { session_name: 'rev', agent_name: 'reviewer', prompt: 'Review it' });
    expect(result).toMatchObject({
      session_id: 'rev',
      status: 'completed',
      content: 'Reviewed: looks fine.',
      tool_calls: 1,
      turns: 2,
    });
    expect(result.provider_session_id).toMatch(/^[0-9a-f-]{36}$/);
    const first = api.messages()[0].body;
    expect(JSON.stringify(first.system)).toContain('You are a meticulous reviewer.');
    expect(JSON.stringify(first.messages)).toContain('Review it');
    // The tool ran in the session's project directory.
    expect(JSON.stringify(api.messages()[1].body.messages)).toContain(`ran-in-${hub.dir.split('/').pop()}`);
    const lines = readFileSync(join(hub.dir, '.switchboard/sessions/rev.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'turn_start', provider: 'claude-cli', prompt: 'Review it' });
    expect(lines.some((l) => l.type === 'claude' && l.event.type === 'result')).toBe(true);
    expect(lines.at(-1)).toMatchObject({ type: 'turn_end', status: 'completed' });
    const meta = JSON.parse(readFileSync(join(hub.dir, '.switchboard/sessions/rev.meta.json'), 'utf8'));
    expect(meta).toMatchObject({
      provider: 'claude-cli',
      provider_session_id: result.provider_session_id,
      status: 'completed',
    });
  });

  it('resume runs claude -r with the stored session: the model sees the earlier exchange', async () => {
    api = await startFakeAnthropic({ replies: ['The capital is Paris.', 'You asked about France.'] });
    hub = await agentHub({ anthropic: api.url });
    const first = await hub.value('agent.start', { session_name: 'geo', prompt: 'Capital of France?' });
    const second = await hub.value('agent.resume', { session_name: 'geo', prompt: 'What did I ask?' });
    expect(second).toMatchObject({
      status: 'completed',
      content: 'You asked about France.',
      provider_session_id: first.provider_session_id,
    });
    const history = JSON.stringify(api.messages()[1].body.messages);
    expect(history).toContain('Capital of France?');
    expect(history).toContain('The capital is Paris.');
    expect(history).toContain('What did I ask?');
  });

  it('structured output retries go through claude -r with the validation errors', async () => {
    api = await startFakeAnthropic({ replies: ['{"ok": "yes"}', '{"ok": true}'] });
    hub = await agentHub({ anthropic: api.url });
    const result = await hub.value('agent.start', {
      session_name: 'so',
      prompt: 'answer',
      output_schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
    });
    expect(result).toMatchObject({ status: 'completed', structured_output: { ok: true }, schema_warnings: null });
    expect(JSON.stringify(api.messages()[1].body.messages)).toContain('/ok must be boolean');
  });

  it('cancel stops the running claude process group and records the turn as cancelled', async () => {
    api = await startFakeAnthropic({ replies: [{ content: [{ type: 'text', text: 'too late' }], delayMs: 60_000 }] });
    hub = await agentHub({ anthropic: api.url });
    const started = await hub.value('agent.start', { session_name: 'slow', prompt: 'take your time', async: true });
    expect(started.status).toBe('running');
    await until(() => api!.messages().length > 0, { timeoutMs: 20_000, what: 'the first request' });
    // The meta names claude's session while the turn runs: a crash now would still resume claude's own session.
    const meta = JSON.parse(readFileSync(join(hub.dir, '.switchboard/sessions/slow.meta.json'), 'utf8'));
    expect(meta).toMatchObject({ status: 'running', provider_session_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(processesWith(meta.provider_session_id).length).toBeGreaterThan(0);
    const t0 = Date.now();
    const cancelled = await hub.value('agent.cancel', { session_name: 'slow' });
    expect(cancelled).toMatchObject({ cancelled: true, status: 'cancelled' });
    expect(Date.now() - t0).toBeLessThan(5000);
    // SIGKILL is immediate, but a loaded CI machine can take a few seconds to tear a large process down.
    await until(() => processesWith(meta.provider_session_id).length === 0, {
      timeoutMs: 15_000,
      what: () => `the end of ${describeProcesses(processesWith(meta.provider_session_id))}`,
    });
    const status = await hub.value('agent.status', { session_name: 'slow' });
    expect(status).toMatchObject({
      status: 'cancelled',
      running: false,
      error: 'Cancelled with agent__cancel.',
      provider_session_id: meta.provider_session_id,
    });
  });

  it("a model error inside claude fails the turn with claude's message", async () => {
    api = await startFakeAnthropic({
      replies: [
        { content: [], error: { status: 400, type: 'invalid_request_error', message: 'the fake refuses this prompt' } },
      ],
    });
    hub = await agentHub({ anthropic: api.url });
    const out = await hub.call('agent.start', { session_name: 'bad', prompt: 'x' });
    expect(out.ok && out.raw?.isError).toBe(true);
    const status = await hub.value('agent.status', { session_name: 'bad' });
    expect(status).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/claude ended the turn with an error: .*the fake refuses this prompt/),
    });
  });

  it('callback tools and built-ins are refused on claude-cli with what to use instead', async () => {
    hub = await agentHub({});
    const out = await hub.call('agent.start', {
      session_name: 'cb',
      prompt: 'x',
      tools: [{ name: 't', input_schema: { type: 'object' } }],
    });
    expect(!out.ok && out.error.message).toMatch(
      /need an API provider \(anthropic, openai or gemini\); claude-cli runs its own tools/,
    );
  });

  it('a missing claude command names what to install or configure', async () => {
    hub = await agentHub({ claudeCommand: 'claude-that-does-not-exist' });
    const out = await hub.call('agent.start', { session_name: 'nocli', prompt: 'x' });
    expect(!out.ok && out.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(
        /needs the `claude-that-does-not-exist` command: install Claude Code .*\[agents\.providers\.claude-cli\]/,
      ),
    });
  });
});
