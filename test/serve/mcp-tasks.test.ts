// MCP's tasks extension (SEP-2663) over stateless 2026-07-28 HTTP, with real tokens: a long call of a capability
// declared `task` becomes a task its creator polls and cancels; one that asks its client for input waits in
// input_required for tasks/update; a short one is answered as usual; a `required` one
// is refused to a client that did not declare the extension and is always a task for one that did; another
// principal cannot see or cancel the task; and a 2025 session is answered as before, the request held open.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../src/core/capability.ts';
import { TASKS_EXTENSION } from '../../src/core/mcp-tasks-extension.ts';
import { generateToken, hashToken } from '../../src/policy/tokens.ts';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { gate as closedGate } from '../helpers/gate.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { rpc2026 } from '../helpers/rpc2026.ts';
import { until } from '../helpers/until.ts';

let hub: TestHub;
let http: HttpHandle;
const tokens = { alice: generateToken(), bob: generateToken() };
/** Opened by a test to let the slow capability's current call finish. */
let gate = closedGate();
let stopped = 0;

const TASKS: Record<string, unknown> = { extensions: { [TASKS_EXTENSION]: {} } };

beforeAll(async () => {
  hub = await testHub();
  for (const [name, token] of Object.entries(tokens))
    await hub.services.store.tokens.create({ name, hash: hashToken(token), roles: ['*'], expiresAt: null });
  hub.services.registry.add(
    defineCapability({
      name: 'job.slow',
      description: 'Runs until the test opens its gate, or it is cancelled.',
      input: z.object({ quick: z.boolean().default(false) }),
      task: 'optional',
      handle: async ({ quick }, ctx) => {
        if (quick) return { done: 'at once' };
        ctx.signal.addEventListener('abort', () => stopped++);
        await Promise.race([gate.opened, new Promise((_, reject) => ctx.signal.addEventListener('abort', reject))]);
        return { done: 'after the gate' };
      },
    }),
  );
  hub.services.registry.add(
    defineCapability({
      name: 'job.always',
      description: 'Quick, but always a task.',
      input: z.object({}),
      task: 'required',
      handle: () => 'finished',
    }),
  );
  hub.services.registry.add(
    defineCapability({
      name: 'job.ask',
      description: 'Asks the client two questions while it runs, then answers with both.',
      input: z.object({}),
      task: 'optional',
      handle: async (_input, ctx) => {
        const ask = (field: string) =>
          ctx.client.elicit?.({
            message: `Which ${field}?`,
            requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } } },
          }) as Promise<{ content?: Record<string, string> }>;
        const [colour, size] = await Promise.all([ask('colour'), ask('size')]);
        return { colour: colour.content?.colour, size: size.content?.size };
      },
    }),
  );
  http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  gate.open();
  await http?.close();
  await hub?.close();
});

const as = (who: keyof typeof tokens) => ({ authorization: `Bearer ${tokens[who]}` });
const call = (who: keyof typeof tokens, name: string, args: Record<string, unknown>, caps = TASKS) =>
  rpc2026(http.url, 'tools/call', { name, arguments: args }, as(who), caps);
const task = (who: keyof typeof tokens, method: string, taskId: string, caps = TASKS) =>
  rpc2026(http.url, method, { taskId }, as(who), caps);

describe('a long call from a client that declared the extension', () => {
  it('is answered with a task, which its creator polls to the result', async () => {
    gate = closedGate();
    const { status, message } = await call('alice', 'job__slow', {});
    expect(status).toBe(200);
    expect(message.result).toMatchObject({
      resultType: 'task',
      status: 'working',
      ttlMs: expect.any(Number),
      pollIntervalMs: expect.any(Number),
    });
    expect(message.result).not.toHaveProperty('result');
    const { taskId } = message.result;
    expect((await task('alice', 'tasks/get', taskId)).message.result).toMatchObject({ taskId, status: 'working' });
    gate.open();
    const done = await until(
      async () => {
        const got = (await task('alice', 'tasks/get', taskId)).message.result;
        return got.status === 'completed' ? got : undefined;
      },
      { what: 'the task to complete' },
    );
    expect(done.result).toMatchObject({ structuredContent: { done: 'after the gate' } });
  });

  it("is another principal's to neither see nor cancel, and its creator's to cancel, which stops the call", async () => {
    gate = closedGate();
    const { taskId } = (await call('alice', 'job__slow', {})).message.result;
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const { message } = await task('bob', method, taskId);
      expect(message.error, method).toMatchObject({ code: -32602, message: expect.stringContaining('not found') });
    }
    const before = stopped;
    const cancelled = await task('alice', 'tasks/cancel', taskId);
    expect(cancelled.message.result).toEqual(expect.objectContaining({ resultType: 'complete' }));
    expect(cancelled.message.result).not.toHaveProperty('status');
    expect((await task('alice', 'tasks/get', taskId)).message.result).toMatchObject({ status: 'cancelled' });
    expect(stopped).toBe(before + 1);
    // Cancelling it again is acknowledged the same way.
    expect((await task('alice', 'tasks/cancel', taskId)).message.result).toMatchObject({ resultType: 'complete' });
  });
});

describe('a task that asks its client for input', () => {
  it('waits in input_required with its questions, takes the answers one by one through tasks/update, then completes', async () => {
    const created = (await call('alice', 'job__ask', {})).message.result;
    expect(created).toMatchObject({ resultType: 'task', status: 'input_required' });
    expect(created).not.toHaveProperty('inputRequests');
    const { taskId } = created;
    const asking = (await task('alice', 'tasks/get', taskId)).message.result;
    const keys = Object.keys(asking.inputRequests);
    expect(keys).toHaveLength(2);
    expect(Object.values(asking.inputRequests)).toEqual([
      { method: 'elicitation/create', params: expect.objectContaining({ message: 'Which colour?' }) },
      { method: 'elicitation/create', params: expect.objectContaining({ message: 'Which size?' }) },
    ]);
    const update = (responses: Record<string, unknown>) =>
      rpc2026(http.url, 'tasks/update', { taskId, inputResponses: responses }, as('alice'), TASKS);
    // One answer, and one to a question never asked: the other question stays open.
    const ack = await update({ [keys[0]]: { action: 'accept', content: { colour: 'teal' } }, nope: {} });
    expect(ack.message.result).toMatchObject({ resultType: 'complete' });
    const half = (await task('alice', 'tasks/get', taskId)).message.result;
    expect(half).toMatchObject({ status: 'input_required' });
    expect(Object.keys(half.inputRequests)).toEqual([keys[1]]);
    await update({ [keys[1]]: { action: 'accept', content: { size: 'XL' } } });
    const done = await until(
      async () => {
        const got = (await task('alice', 'tasks/get', taskId)).message.result;
        return got.status === 'completed' ? got : undefined;
      },
      { what: 'the task to complete' },
    );
    expect(done.result.structuredContent).toEqual({ colour: 'teal', size: 'XL' });
    expect(done).not.toHaveProperty('inputRequests');
  });

  it('is cancelled with its questions open: the call stops waiting', async () => {
    const { taskId } = (await call('alice', 'job__ask', {})).message.result;
    await task('alice', 'tasks/cancel', taskId);
    const got = (await task('alice', 'tasks/get', taskId)).message.result;
    expect(got).toMatchObject({ status: 'cancelled' });
    expect(got).not.toHaveProperty('inputRequests');
  });
});

describe('a call that finishes at once', () => {
  it('is answered as usual when its capability is optional', async () => {
    const { message } = await call('alice', 'job__slow', { quick: true });
    expect(message.result).toMatchObject({ structuredContent: { done: 'at once' } });
    expect(message.result).not.toHaveProperty('taskId');
  });

  it('is a task born finished when its capability is required', async () => {
    const { message } = await call('alice', 'job__always', {});
    expect(message.result).toMatchObject({ resultType: 'task', status: 'completed' });
    const got = (await task('alice', 'tasks/get', message.result.taskId)).message.result;
    expect(got.result).toMatchObject({ content: [{ type: 'text', text: 'finished' }] });
  });
});

describe('a client that did not declare the extension', () => {
  it('is refused a required capability and the task methods with -32021, naming the extension', async () => {
    const refused = await call('alice', 'job__always', {}, {});
    expect(refused.message.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
    expect((await task('alice', 'tasks/get', 'anything', {})).message.error).toMatchObject({ code: -32021 });
  });

  it('waits for an optional capability as before', async () => {
    gate = closedGate();
    const pending = call('alice', 'job__slow', {}, {});
    setTimeout(() => gate.open(), 200).unref();
    const { message } = await pending;
    expect(message.result).toMatchObject({ structuredContent: { done: 'after the gate' } });
  });
});

describe('a 2025 session', () => {
  it('holds the request open, as before: no task', async () => {
    const client = new Client({ name: 't', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), {
      requestInit: { headers: as('alice') },
    });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: 'job__always', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'finished' }]);
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  });
});
