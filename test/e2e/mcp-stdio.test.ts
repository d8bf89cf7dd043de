// End-to-end: the built CLI as a child process, driven over stdio by the official SDK client,
// once as a 2025-11-25 client and once as a 2026-07-28 client, each started as `node bin/switchboard.js` (the ESM
// bundle) and as the `switchboard` command (from the startup snapshot, test/e2e/snapshot.test.ts).
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, FIXTURE_HANDLERS, runCli, tempProject } from '../helpers/cli.ts';
import { callWithProgress } from '../helpers/progress.ts';
import { until } from '../helpers/until.ts';

const eras = [
  { label: '2025-11-25 client', options: {} },
  { label: '2026-07-28 client', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
] as const;

const launches = [
  { label: 'node bin/switchboard.js', command: process.execPath, prefix: [BIN] },
  { label: 'the switchboard command', command: BIN, prefix: [] },
] as const;

for (const era of eras)
  for (const launch of launches) {
    describe(`stdio as a ${era.label}, started as ${launch.label}`, () => {
      let client: Client;
      let stderr = '';
      const dir = tempProject();

      beforeAll(async () => {
        const transport = new StdioClientTransport({
          command: launch.command,
          args: [...launch.prefix, '--cwd', dir, 'serve', '--handlers', FIXTURE_HANDLERS],
          env: childEnv(dir),
          stderr: 'pipe',
        });
        transport.stderr?.on('data', (d) => {
          stderr += d;
        });
        client = new Client({ name: 'e2e', version: '1.0.0' }, era.options as any);
        await client.connect(transport);
      });
      afterAll(async () => {
        await client?.close();
      });

      it('negotiates the expected protocol era', () => {
        expect(client.getProtocolEra()).toBe(era.label.startsWith('2026') ? 'modern' : 'legacy');
      });

      it('lists built-in and handler-module tools with JSON Schemas from Zod', async () => {
        const { tools } = await client.listTools();
        const names = tools.map((t) => t.name);
        expect(names).toEqual(
          expect.arrayContaining(['task__create', 'task__list', 'system__health', 'fixture__echo']),
        );
        const create = tools.find((t) => t.name === 'task__create')!;
        expect(create.inputSchema).toMatchObject({
          type: 'object',
          properties: { text: { type: 'string', minLength: 1, maxLength: 500 } },
        });
        expect(create.outputSchema).toBeDefined();
      });

      it('returns output as structuredContent and as text', async () => {
        const result = await client.callTool({ name: 'task__create', arguments: { text: 'write docs', priority: 70 } });
        expect(result.isError).toBeFalsy();
        const task = result.structuredContent as { id: string; status: string; priority: number };
        expect(task).toMatchObject({ status: 'pending', priority: 70 });
        expect(JSON.parse((result.content as { text: string }[])[0].text)).toEqual(task);
      });

      it('takes an idempotency key from _meta: a retry answers the first task', async () => {
        const key = `mcp-retry-${era.label}-${launch.label}`.replaceAll(' ', '_');
        const send = () =>
          client.callTool({
            name: 'task__create',
            arguments: { text: 'retried over MCP' },
            _meta: { 'switchboard/idempotency-key': key },
          });
        const first = await send();
        expect(first.isError).toBeFalsy();
        expect((await send()).structuredContent).toEqual(first.structuredContent);
        const listed = await client.callTool({ name: 'task__list', arguments: { limit: 500 } });
        const { tasks } = listed.structuredContent as { tasks: { text: string }[] };
        expect(tasks.filter((t) => t.text === 'retried over MCP')).toHaveLength(1);
      });

      it('answers schema violations with isError naming the field', async () => {
        const result = await client.callTool({ name: 'task__create', arguments: { text: '', priority: 500 } });
        expect(result.isError).toBe(true);
        const text = (result.content as { text: string }[])[0].text;
        expect(text).toContain('text');
        expect(text).toContain('priority');
      });

      it('answers an unknown tool with isError and a hint', async () => {
        const result = await client.callTool({ name: 'nope__missing', arguments: {} });
        expect(result.isError).toBe(true);
        expect((result.content as { text: string }[])[0].text).toMatch(/Unknown tool 'nope__missing'/);
      });

      it('reads the welcome resource generated from the live catalog', async () => {
        const { resources } = await client.listResources();
        expect(resources.map((r) => r.uri)).toEqual(
          expect.arrayContaining(['switchboard://welcome', 'switchboard://health', 'switchboard://tools']),
        );
        const welcome = await client.readResource({ uri: 'switchboard://welcome' });
        expect((welcome.contents[0] as { text: string }).text).toContain('task__create');
      });

      it('reports a broken handler module on stderr and still serves the others', () => {
        expect(stderr).toMatch(/broken\.ts/);
        expect(stderr).toMatch(/broken on purpose/);
      });
    });
  }

describe('stdio wire hygiene', () => {
  it('keeps serving after a malformed JSON line and writes only protocol to stdout', async () => {
    const dir = tempProject();
    const child = spawn(process.execPath, [BIN, '--cwd', dir, 'serve'], {
      env: childEnv(dir, { SWITCHBOARD_LOG_LEVEL: 'debug' }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    child.stdin.write('{this is not json\n');
    child.stdin.write(`${JSON.stringify(init)}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'system__health', arguments: {} } })}\n`,
    );
    await until(() => out.includes('"id":2'), { timeoutMs: 15_000, what: 'the answer to id 2' });
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
    const lines = out.trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    const messages = lines.map((l) => JSON.parse(l));
    expect(messages.find((m) => m.id === 1)?.result?.serverInfo?.name).toBe('switchboard');
    const health = messages.find((m) => m.id === 2);
    expect(health.result.structuredContent.status).toBe('healthy');
  });

  it('answers calls whose ids hold tabs, line breaks or 300 characters, and keeps their audit records whole', async () => {
    const dir = tempProject();
    const child = spawn(process.execPath, [BIN, '--cwd', dir, 'serve', '--handlers', FIXTURE_HANDLERS], {
      env: childEnv(dir),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await until(() => out.includes('"id":1'), { timeoutMs: 15_000, what: 'the answer to initialize' });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const long = 'x'.repeat(300);
    const call = (id: string, text: string, meta?: object) =>
      send({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'fixture__echo', arguments: { text }, ...(meta ? { _meta: meta } : {}) },
      });
    call('a\tb\nc', 'tabbed'); // the fast path
    call(long, 'long');
    call('d\te\rf', 'sdk path', { progressToken: 'p1' }); // a progress token takes the SDK's path
    const answers = () =>
      out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((m) => m.result?.structuredContent);
    await until(() => answers().length === 3, { timeoutMs: 15_000, what: 'three answers' });
    expect(Object.fromEntries(answers().map((m) => [m.id, m.result.structuredContent.text]))).toEqual({
      'a\tb\nc': 'tabbed',
      [long]: 'long',
      'd\te\rf': 'sdk path',
    });
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
    const audit = await runCli(dir, ['audit', '--tool', 'fixture__echo', '--json']);
    expect(audit.code).toBe(0);
    const records = JSON.parse(audit.stdout) as { requestId: string; input: string; outcome: string }[];
    expect(records.map((r) => [r.requestId, JSON.parse(r.input).text, r.outcome]).sort()).toEqual(
      [
        ['a b c', 'tabbed', 'ok'],
        ['x'.repeat(128), 'long', 'ok'],
        ['d e f', 'sdk path', 'ok'],
      ].sort(),
    );
  });
});

describe('stdio fast path', () => {
  it('answers a timed-out call with TIMEOUT, and many concurrent calls each with their own result', async () => {
    const dir = tempProject();
    const client = new Client({ name: 'fast', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN, '--cwd', dir, 'serve', '--handlers', FIXTURE_HANDLERS],
        env: childEnv(dir),
      }),
    );
    const slow = await client.callTool({ name: 'fixture__slow', arguments: { ms: 10_000 } });
    expect(slow.isError).toBe(true);
    expect((slow.content as { text: string }[])[0].text).toMatch(/timed out after 2000 ms/);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => client.callTool({ name: 'fixture__echo', arguments: { text: `n${i}` } })),
    );
    for (const [i, r] of results.entries()) expect(r.structuredContent).toEqual({ text: `n${i}` });
    const { result, steps } = await callWithProgress(client, 'fixture__progress', { steps: 2 });
    expect(result.isError).toBeFalsy();
    expect(steps).toEqual([1, 2]);
    await client.close();
  });
});

/** `switchboard serve` driven line by line: raw writes, and the answers by id. */
function rawServe() {
  const dir = tempProject();
  const child = spawn(process.execPath, [BIN, '--cwd', dir, 'serve'], {
    env: childEnv(dir),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const messages = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  const answer = (id: number | string) =>
    until(() => messages().find((m) => m.id === id), { timeoutMs: 20_000, what: `the answer to ${id}` });
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  return {
    send,
    write: (text: string) => child.stdin.write(text),
    /** Every message the server wrote so far. */
    messages,
    answer,
    stderr: () => stderr,
    async initialize() {
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      });
      await answer(1);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    },
    async close() {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
      for (const line of out.split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
    },
  };
}

const health = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'system__health', arguments: {} },
});

describe('stdio message limits', () => {
  it('answers a 20 MB request with -32600 naming the limit and its key, logs one without an id, and serves on', async () => {
    const serve = rawServe();
    await serve.initialize();
    const pad = 'x'.repeat(20 * 1024 * 1024);
    // Written the way the SDK clients write requests: the id last.
    serve.write(
      `{"method":"tools/call","params":{"name":"system__health","arguments":{"pad":"${pad}"}},"jsonrpc":"2.0","id":2}\n`,
    );
    serve.write(`{"method":"notifications/message","params":{"pad":"${pad}"},"jsonrpc":"2.0"}\n`);
    serve.send(health(3));
    const refused = await serve.answer(2);
    expect(refused?.error?.code).toBe(-32600);
    expect(refused?.error?.message).toMatch(
      /is 20971\d\d\d bytes; the limit is 10485760 bytes \(\[stdio\] max_message_bytes\)/,
    );
    expect((await serve.answer(3))?.result?.structuredContent?.status).toBe('healthy');
    expect(serve.stderr()).toMatch(
      /dropped a 20971\d\d\d-byte stdin line without a readable request id; the limit is 10485760 bytes/,
    );
    await serve.close();
  });

  it('answers a request whose method is not a string with -32600 saying what a method must be', async () => {
    const serve = rawServe();
    await serve.initialize();
    serve.send({ jsonrpc: '2.0', id: 2, method: 42, params: {} });
    serve.send({ jsonrpc: '2.0', id: 'three', method: null });
    serve.send(health(4));
    expect((await serve.answer(2))?.error).toEqual({
      code: -32600,
      message: 'Invalid Request: method must be a string naming the method (e.g. "tools/call"), not a number.',
    });
    expect((await serve.answer('three'))?.error?.message).toMatch(/method must be a string .* not null\.$/);
    expect((await serve.answer(4))?.result?.structuredContent?.status).toBe('healthy');
    await serve.close();
  });

  /** The answers that name no request: each must be one of the lines written before a later request's answer. */
  const nullIdErrors = (serve: ReturnType<typeof rawServe>) =>
    serve.messages().filter((m) => m.id === null && 'error' in m);

  it('answers every line it cannot parse with exactly one -32700 (id null), deep nesting included, and serves on', async () => {
    const serve = rawServe();
    await serve.initialize();
    const unparseable = {
      'an unclosed deep array': '['.repeat(100_000),
      'a closed deep array, past the depth limit': `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
      'deep objects, past the depth limit': `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`,
      'a request cut mid-string': '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"system__he',
      'text that is not JSON': '{not json}',
    };
    for (const line of Object.values(unparseable)) serve.write(`${line}\n`);
    serve.send(health(8));
    expect((await serve.answer(8))?.result?.structuredContent?.status).toBe('healthy');
    const errors = nullIdErrors(serve);
    expect(errors.map((m) => m.error.code)).toEqual(Object.values(unparseable).map(() => -32700));
    expect(errors[0].error.message).toMatch(/^Parse error: the line is not valid JSON \(.+\); send one JSON-RPC/);
    expect(errors[1].error.message).toMatch(/^Parse error: JSON nesting deeper than 64 levels \(at offset 64\)/);
    expect(errors[2].error.message).toMatch(/^Parse error: JSON nesting deeper than 64 levels/);
    // Nothing else is answered for them, and nothing answers the cut request's id.
    expect(serve.messages().filter((m) => m.id === 7)).toEqual([]);
    await serve.close();
  });

  it('answers JSON that is no JSON-RPC message and names no id with one -32600 (id null), but never a response', async () => {
    const serve = rawServe();
    await serve.initialize();
    const invalid = {
      'a huge number': '1'.repeat(100_000),
      'a string': '"tools/call"',
      'an empty object': '{}',
      'a batch': JSON.stringify([health(20)]),
      'a request with a fractional id': JSON.stringify({ ...health(0), id: 1.5 }),
    };
    for (const line of Object.values(invalid)) serve.write(`${line}\n`);
    // The client's answers (a malformed one too) and a notification are not answered.
    serve.send({ jsonrpc: '2.0', id: 99, result: {} });
    serve.send({ jsonrpc: '2.0', id: 98, result: {}, extra: true });
    serve.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    serve.send(health(9));
    expect((await serve.answer(9))?.result?.structuredContent?.status).toBe('healthy');
    const errors = nullIdErrors(serve);
    expect(errors.map((m) => m.error.code)).toEqual(Object.values(invalid).map(() => -32600));
    expect(errors[0].error.message).toBe(
      'Invalid Request: expected a JSON-RPC 2.0 object with jsonrpc "2.0" and a string method, not a number.',
    );
    expect(errors[3].error.message).toMatch(/a batch \(JSON array\) is not accepted over stdio/);
    expect(serve.messages().filter((m) => m.id === 20 || m.id === 99 || m.id === 98)).toEqual([]);
    await serve.close();
  });
});
