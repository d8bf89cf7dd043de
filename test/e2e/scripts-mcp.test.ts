// End-to-end: scripts over MCP with the official SDK client — the script tools and NL scripts as prompts over
// stdio, a nested run driven to the end, one stack per 2025 HTTP session, and run_id for stateless clients.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type HttpServerProcess, startHttpServer, tempProject } from '../helpers/cli.ts';
import { gone } from '../helpers/proc.ts';
import { projectScripts } from '../sources/scripts/helpers.ts';

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };
const text = (r: unknown) => (r as ToolResult).content.map((c) => c.text).join('\n');

function scriptProject(): string {
  const dir = tempProject();
  projectScripts(dir, {
    'nl/greet.md': '---\ndescription: Greet someone warmly\n---\n# Greet\n\nGreet $ARGUMENTS warmly.\n',
    'nl/typed.md': '# Typed\n',
    'compiled/typed.ts':
      "import { auto, llm, type ShellResult } from 'switchboard';\nexport default function* (): Generator<unknown, void, ShellResult> { const r: ShellResult = yield auto('echo from-ts'); yield llm('Got ' + r.output.trim()); }\n",
    'nl/ask.md': '# Ask\n',
    'compiled/ask.mjs':
      "import { auto, llm } from 'switchboard';\nexport default function* (r) { yield auto('echo asking ' + r); yield llm('What about ' + r + '?', { expects: { answer: 'your answer' } }); }\n",
  });
  return dir;
}

describe('scripts over stdio', () => {
  let client: Client;
  const dir = scriptProject();

  beforeAll(async () => {
    ({ client } = await connectStdio(dir, 'e2e-scripts'));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists the script tools', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'script__start',
        'script__continue_compiled_script',
        'script__finish_nl_script',
        'script__status',
        'script__list',
        'script__write_bundled',
      ]),
    );
  });

  it('serves every NL script as a prompt with an arguments argument', async () => {
    const { prompts } = await client.listPrompts();
    const greet = prompts.find((p) => p.name === 'greet');
    expect(greet).toMatchObject({
      description: 'Greet someone warmly',
      arguments: [{ name: 'arguments', required: false }],
    });
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(['ask', 'test:random', 'release-notes']));
    const nl = await client.getPrompt({ name: 'greet', arguments: { arguments: 'Ada' } });
    expect(nl.messages[0].content).toEqual({ type: 'text', text: '# Greet\n\nGreet Ada warmly.\n' });
    const compiled = await client.getPrompt({ name: 'ask', arguments: { arguments: 'cats' } });
    expect((compiled.messages[0].content as { text: string }).text).toContain(
      'call the tool `script__start` with {"name":"ask","arguments":"cats"}',
    );
  });

  it('runs a bundled nested script to the end, one answer at a time', async () => {
    const first = await client.callTool({ name: 'script__start', arguments: { name: 'test:nested' } });
    expect(first.isError).toBeFalsy();
    expect(text(first)).toContain('- `test:nested[0]`: ✓ `echo nested: start`');
    expect(text(first)).toContain('### Pending LLM step: `test:nested[1] > test:random[2]`');
    expect(first.structuredContent).toMatchObject({ state: 'llm', next_tool: 'script__continue_compiled_script' });
    // Over stdio the process is the client: no run_id needed, and none in the suggested call.
    expect(text(first)).toMatch(/Call `script__continue_compiled_script` with `\{"outputs":/);
    const status = await client.callTool({ name: 'script__status', arguments: {} });
    expect(text(status)).toContain('Stack: `test:nested[1] > test:random[2]`');
    const wrong = await client.callTool({ name: 'script__finish_nl_script', arguments: {} });
    expect(wrong.isError).toBe(true);
    expect(text(wrong)).toContain('script__continue_compiled_script');
    const second = await client.callTool({
      name: 'script__continue_compiled_script',
      arguments: { outputs: { parity: 'even' } },
    });
    expect(text(second)).toContain('### Pending LLM step: `test:nested[2]`');
    const last = await client.callTool({
      name: 'script__continue_compiled_script',
      arguments: { outputs: { summary: 'done' } },
    });
    expect(text(last)).toContain('- `test:nested[3]`: ✓ `echo nested: done`');
    expect(last.structuredContent).toMatchObject({ state: 'finished' });
  });

  it("runs a TypeScript compiled script that imports 'switchboard' from the project", async () => {
    const r = await client.callTool({ name: 'script__start', arguments: { name: 'typed' } });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain('Got from-ts');
    const done = await client.callTool({ name: 'script__continue_compiled_script', arguments: { outputs: {} } });
    expect(done.structuredContent).toMatchObject({ state: 'finished' });
  });

  it('answers a schema violation as an isError result naming the field', async () => {
    const r = await client.callTool({ name: 'script__continue_compiled_script', arguments: { outputs: 'yes' } });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('outputs');
  });
});

describe('a stdio Switchboard killed in the middle of a run', () => {
  it('leaves its run listed to the next one, which continues it only when given its run_id', async () => {
    const dir = tempProject();
    projectScripts(dir, {
      'nl/tally.md': '# Tally\n',
      'compiled/tally.mjs':
        "import { auto, llm } from 'switchboard';\nexport default function* () { yield auto('echo one >> tally.log'); yield llm('first?'); yield auto('echo two >> tally.log'); yield llm('second?'); }\n",
    });
    const connect = () => connectStdio(dir, 'e2e-crash');
    const first = await connect();
    const started = await first.client.callTool({ name: 'script__start', arguments: { name: 'tally' } });
    expect(started.structuredContent).toMatchObject({ state: 'llm' });
    const pid = first.transport.pid as number;
    process.kill(pid, 'SIGKILL');
    expect(await gone(pid)).toBe(true);
    await first.client.close().catch(() => {});

    const runId = (started.structuredContent as { run_id: string }).run_id;
    const second = await connect();
    try {
      // A new process is a new client (as a new mekara process is): nothing runs for it, and the run the killed
      // one left is listed with its run_id.
      const idle = await second.client.callTool({ name: 'script__status', arguments: {} });
      expect(idle.structuredContent).toMatchObject({ state: 'idle' });
      expect(text(idle)).toContain(`\`${runId}\`: \`tally\``);
      expect(text(idle)).toContain('left by a Switchboard process that has ended');
      const status = await second.client.callTool({ name: 'script__status', arguments: { run_id: runId } });
      expect(status.structuredContent).toMatchObject({ state: 'llm', run_id: runId });
      expect(readFileSync(join(dir, 'tally.log'), 'utf8')).toBe('one\n');
      const next = await second.client.callTool({
        name: 'script__continue_compiled_script',
        arguments: { outputs: {} },
      });
      expect(text(next)).toContain('second?');
      expect(readFileSync(join(dir, 'tally.log'), 'utf8')).toBe('one\ntwo\n');
    } finally {
      await second.client.close();
    }
  });
});

describe('scripts over Streamable HTTP', () => {
  let server: HttpServerProcess;
  const dir = scriptProject();
  beforeAll(async () => {
    server = await startHttpServer(dir);
  });
  afterAll(async () => {
    await server?.stop();
  });

  async function legacyClient() {
    const client = new Client({ name: 'e2e-session', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
    await client.connect(transport);
    return { client, transport };
  }

  it('keeps one stack per 2025 session', async () => {
    const a = await legacyClient();
    const b = await legacyClient();
    try {
      await a.client.callTool({ name: 'script__start', arguments: { name: 'ask', arguments: 'A' } });
      expect((await b.client.callTool({ name: 'script__status', arguments: {} })).structuredContent).toMatchObject({
        state: 'idle',
      });
      await b.client.callTool({ name: 'script__start', arguments: { name: 'ask', arguments: 'B' } });
      expect(text(await a.client.callTool({ name: 'script__status', arguments: {} }))).toContain('What about A?');
      expect(text(await b.client.callTool({ name: 'script__status', arguments: {} }))).toContain('What about B?');
      const done = await a.client.callTool({
        name: 'script__continue_compiled_script',
        arguments: { outputs: { answer: 'yes' } },
      });
      expect(done.structuredContent).toMatchObject({ state: 'finished' });
      expect(text(await b.client.callTool({ name: 'script__status', arguments: {} }))).toContain('What about B?');
    } finally {
      for (const c of [a, b]) {
        await c.transport.terminateSession().catch(() => {});
        await c.client.close();
      }
    }
  });

  it('gives a stateless 2026-07-28 client a run_id to pass back', async () => {
    const client = new Client({ name: 'e2e-stateless', version: '1.0.0' }, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
    } as any);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const started = await client.callTool({ name: 'script__start', arguments: { name: 'ask', arguments: 'C' } });
      const runId = (started.structuredContent as { run_id: string }).run_id;
      expect(runId).toMatch(/^run-/);
      expect(text(started)).toContain(`(run_id: ${runId})`);
      // Without a session the client must name its run: the call it is told to make says so, ready to send.
      expect(text(started)).toContain(
        `Call \`script__continue_compiled_script\` with \`{"run_id":"${runId}","outputs":{"answer":"…"}}\``,
      );
      const lost = await client.callTool({ name: 'script__status', arguments: {} });
      expect(lost.isError).toBe(true);
      expect(text(lost)).toContain('pass the run_id that script__start returned');
      const done = await client.callTool({
        name: 'script__continue_compiled_script',
        arguments: { outputs: { answer: 'ok' }, run_id: runId },
      });
      expect(done.structuredContent).toMatchObject({ state: 'finished', run_id: runId });
    } finally {
      await client.close();
    }
  });

  it('serves the same run over REST with run_id', async () => {
    const post = async (tool: string, body: unknown) => {
      const res = await fetch(`${server.url}/v1/tools/${tool}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const started = await post('script__start', { name: 'ask', arguments: 'D' });
    expect(started.status).toBe(200);
    const runId = started.body.structuredContent.run_id;
    expect(runId).toMatch(/^run-/);
    expect(started.body.content[0].text).toContain('What about D?');
    expect(started.body.content[0].text).toContain(`with \`{"run_id":"${runId}","outputs":`);
    const wrong = await post('script__finish_nl_script', { run_id: runId });
    expect(wrong.status).toBe(409);
    expect(JSON.stringify(wrong.body)).toContain('script__continue_compiled_script');
    const done = await post('script__continue_compiled_script', { outputs: { answer: 'x' }, run_id: runId });
    expect(done.body.structuredContent).toMatchObject({ state: 'finished', run_id: runId });
    expect(done.body.structuredContent.answer).toContain('All scripts finished');
  });
});
