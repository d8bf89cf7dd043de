// Caller text is never one of claude's options (issue 28, §1): with the real `claude` binary against the fake
// Messages API, prompts that begin with `-` (`--settings=…` with a SessionStart hook, `--mcp-config=…` with a stdio
// server, `-r`, `--permission-mode=bypassPermissions`), on start and on resume, reach the model as text, and no hook
// or server of theirs runs. A model name and a system prompt that look like options are values too.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../helpers/close-after-each.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { agentHub } from './agent-hub.ts';

let api: FakeAnthropic | undefined;
let hub: TestHub | undefined;
closeAfterEach(() => [hub, api]);

/** Prompts that claude would read as its own options if they were words of the command line. */
function hostilePrompts(marker: string): string[] {
  const touch = `touch ${marker}`;
  return [
    `--settings=${JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: touch }] }] } })}`,
    `--mcp-config=${JSON.stringify({ mcpServers: { planted: { command: 'sh', args: ['-c', touch] } } })}`,
    '-r',
    '--permission-mode=bypassPermissions',
    '-p --verbose',
  ];
}

/** Every text block of every user message the model received. */
function userTexts(api: FakeAnthropic): string[] {
  const out: string[] = [];
  for (const request of api.messages())
    for (const m of request.body.messages) {
      if (m.role !== 'user') continue;
      if (typeof m.content === 'string') out.push(m.content);
      else for (const b of m.content) if (b.type === 'text') out.push(b.text);
    }
  return out;
}

describe('claude-cli: caller text is a value, never an option (real claude binary)', () => {
  it('prompts that look like options are the model’s text on start and on resume; none of their hooks or servers runs', async () => {
    api = await startFakeAnthropic({ fallback: 'noted' });
    hub = await agentHub({ anthropic: api.url });
    const marker = join(hub.dir, 'PWNED');
    const prompts = hostilePrompts(marker);
    const [first, ...rest] = prompts;
    const started = await hub.value('agent.start', { session_name: 'probe', prompt: first });
    expect(started).toMatchObject({ status: 'completed', content: 'noted' });
    for (const prompt of rest) {
      const resumed = await hub.value('agent.resume', { session_name: 'probe', prompt });
      expect(resumed).toMatchObject({ status: 'completed', content: 'noted' });
    }
    // Each prompt reached the model whole, as the user's text of its turn.
    const texts = userTexts(api);
    for (const prompt of prompts) expect(texts).toContain(prompt);
    expect(existsSync(marker)).toBe(false);
  });

  it('a fresh session started with each hostile prompt runs nothing of it either', async () => {
    api = await startFakeAnthropic({ fallback: 'noted' });
    hub = await agentHub({ anthropic: api.url });
    const marker = join(hub.dir, 'PWNED');
    const prompts = hostilePrompts(marker);
    for (const [i, prompt] of prompts.entries()) {
      const started = await hub.value('agent.start', { session_name: `fresh-${i}`, prompt });
      expect(started).toMatchObject({ status: 'completed', content: 'noted' });
    }
    const texts = userTexts(api);
    for (const prompt of prompts) expect(texts).toContain(prompt);
    expect(existsSync(marker)).toBe(false);
  });

  it('a model name and a system prompt that look like options are values: the model name is sent as given', async () => {
    api = await startFakeAnthropic({ fallback: 'noted' });
    hub = await agentHub({ anthropic: api.url });
    const marker = join(hub.dir, 'PWNED');
    const settings = JSON.stringify({
      hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `touch ${marker}` }] }] },
    });
    const out = await hub.call('agent.start', {
      session_name: 'values',
      prompt: 'hello',
      model: `--settings=${settings}`,
      system_prompt: `--settings=${settings}`,
    });
    expect(out.ok).toBe(true);
    const sent = api.messages()[0].body;
    expect(sent.model).toBe(`--settings=${settings}`);
    expect(JSON.stringify(sent.system)).toContain(JSON.stringify(`--settings=${settings}`).slice(1, -1));
    expect(existsSync(marker)).toBe(false);
  });
});
