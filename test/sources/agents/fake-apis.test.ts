// The fake model APIs answer real clients the way the real APIs do: the Anthropic SDK and the `claude`
// binary against the fake Messages API, the OpenAI SDK against the fake chat-completions endpoint.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import { type FakeOpenAI, startFakeOpenAI } from '../../helpers/fake-openai.ts';

const CLAUDE = resolve(import.meta.dirname, '../../../node_modules/.bin/claude');

let anthropic: FakeAnthropic | undefined;
let openai: FakeOpenAI | undefined;
afterEach(async () => {
  await anthropic?.close();
  await openai?.close();
  anthropic = openai = undefined;
});

describe('fake Anthropic Messages API', () => {
  it('answers the SDK with scripted text and tool_use, streaming and not, and records the requests', async () => {
    anthropic = await startFakeAnthropic({
      replies: [{ content: [{ type: 'tool_use', name: 'lookup', input: { q: 'x' }, id: 'toolu_1' }] }, 'Hello there'],
    });
    const client = new Anthropic({ baseURL: anthropic.url, apiKey: 'x', maxRetries: 0 });
    const first = await client.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'lookup', description: 'd', input_schema: { type: 'object' } }],
    });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content[0]).toMatchObject({ type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } });
    const events: string[] = [];
    const stream = client.messages.stream({
      model: 'claude-test',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'again' }],
    });
    stream.on('streamEvent', (e) => events.push(e.type));
    const second = await stream.finalMessage();
    expect(second.content).toEqual([{ type: 'text', text: 'Hello there' }]);
    expect(second.stop_reason).toBe('end_turn');
    expect(events).toEqual(
      expect.arrayContaining([
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]),
    );
    expect(anthropic.messages().map((r) => r.body.messages.at(-1).content)).toEqual(['hi', 'again']);
  });

  it("answers Claude Code's tool-less side calls outside the script, unless sideCalls is false", async () => {
    const side = (url: string) =>
      fetch(`${url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-app': 'cli' },
        body: JSON.stringify({ model: 'claude-x', max_tokens: 50, messages: [{ role: 'user', content: 'title?' }] }),
      }).then((r) => r.json());
    anthropic = await startFakeAnthropic({ replies: ['scripted'] });
    expect((await side(anthropic.url)).content[0].text).toBe('Side answer');
    expect(anthropic.messages()).toHaveLength(0);
    await anthropic.close();
    anthropic = await startFakeAnthropic({ replies: ['scripted'], sideCalls: false });
    expect((await side(anthropic.url)).content[0].text).toBe('scripted');
    expect(anthropic.messages()).toHaveLength(1);
  });

  it('answers an error status when a reply scripts one', async () => {
    anthropic = await startFakeAnthropic({
      replies: [{ content: [], error: { status: 529, type: 'overloaded_error', message: 'busy' } }],
    });
    const client = new Anthropic({ baseURL: anthropic.url, apiKey: 'x', maxRetries: 0 });
    await expect(
      client.messages.create({ model: 'claude-test', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toThrow(/busy/);
  });

  it('drives the real claude binary through a tool call and a final answer', async () => {
    anthropic = await startFakeAnthropic({
      replies: [
        {
          content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo from-the-tool', description: 'echo' } }],
        },
        'Finished.',
      ],
    });
    const dir = mkdtempSync(join(tmpdir(), 'fake-claude-'));
    try {
      const stdout = await new Promise<string>((ok, fail) => {
        const child = execFile(
          CLAUDE,
          ['-p', 'say hi', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'bypassPermissions'],
          {
            cwd: dir,
            timeout: 60_000,
            env: {
              PATH: process.env.PATH ?? '',
              HOME: dir,
              ANTHROPIC_BASE_URL: anthropic!.url,
              ANTHROPIC_API_KEY: 'x',
              IS_SANDBOX: '1',
            },
          },
          (err, out, errOut) => (err ? fail(new Error(`${err.message}\n${errOut}`)) : ok(out)),
        );
        child.stdin?.end();
      });
      const events = stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const result = events.find((e) => e.type === 'result');
      expect(result).toMatchObject({ subtype: 'success', result: 'Finished.', num_turns: 2 });
      // The tool really ran and its output went back to the model.
      const back = JSON.stringify(anthropic.messages()[1].body.messages.at(-1));
      expect(back).toContain('from-the-tool');
      expect(anthropic.requests.some((r) => r.method === 'HEAD')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('fake OpenAI chat completions', () => {
  it('answers tool calls and text, streaming and not', async () => {
    openai = await startFakeOpenAI({
      replies: [{ tool_calls: [{ name: 'lookup', arguments: { q: 'y' }, id: 'call_1' }] }, 'Streamed answer'],
    });
    const client = new OpenAI({ baseURL: openai.url, apiKey: 'x', maxRetries: 0 });
    const first = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    expect(first.choices[0].message.tool_calls?.[0]).toMatchObject({
      id: 'call_1',
      function: { name: 'lookup', arguments: '{"q":"y"}' },
    });
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'again' }],
    });
    let text = '';
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Streamed answer');
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5 });
    expect(openai.completions()).toHaveLength(2);
  });
});
