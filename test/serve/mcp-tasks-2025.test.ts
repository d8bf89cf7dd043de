// Tasks on a 2025-11-25 session (the experimental `tasks` capability of that revision), driven by the official SDK
// client over HTTP: the handshake and tools/list say what may be a task; a task-augmented call is answered with the
// task at once; tasks/get, tasks/list, tasks/result (which carries the task's elicitation, related to the task) and
// tasks/cancel work as the revision says; a tool's result that is an error fails the task; and calls the tool's
// taskSupport does not allow are refused with -32601. The same over stdio, the question crossing the pipe.
import { spawn } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../src/core/capability.ts';
import type { CallContext } from '../../src/core/context.ts';
import { SwitchboardError } from '../../src/core/errors.ts';
import { UNCHECKED_RESULT } from '../../src/mcp-client/call-result.ts';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { RELATED_TASK } from '../../src/serve/mcp-tasks-2025.ts';
import { BIN, childEnv, FIXTURE_HANDLERS, INITIALIZE_2025, tempProject } from '../helpers/cli.ts';
import { gate as closedGate } from '../helpers/gate.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { jsonRpcMessagesOf } from '../helpers/rpc2026.ts';
import { until } from '../helpers/until.ts';

let hub: TestHub;
let http: HttpHandle;
let client: Client;
let transport: StreamableHTTPClientTransport;
let gate = closedGate();
const asked: { message?: unknown; meta?: unknown }[] = [];

beforeAll(async () => {
  hub = await testHub();
  const add = (c: Parameters<typeof defineCapability>[0]) => hub.services.registry.add(defineCapability(c as never));
  add({
    name: 'job.slow',
    description: 'Runs until the test opens its gate.',
    input: z.object({}),
    task: 'optional',
    handle: async (_input: unknown, ctx: CallContext) => {
      await Promise.race([gate.opened, new Promise((_, reject) => ctx.signal.addEventListener('abort', reject))]);
      return { done: 'after the gate' };
    },
  });
  add({
    name: 'job.ask',
    description: 'Asks its client who confirms.',
    input: z.object({}),
    task: 'optional',
    handle: async (_input: unknown, ctx: CallContext) => {
      const answer: any = await ctx.client.elicit?.({
        message: 'Who confirms?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      return { confirmedBy: answer?.content?.name ?? null, action: answer?.action ?? 'none' };
    },
  });
  add({
    name: 'job.refuse',
    description: 'Refuses: an error result.',
    input: z.object({}),
    task: 'optional',
    handle: () => {
      throw new SwitchboardError('CONFLICT', 'someone else holds the lock');
    },
  });
  add({
    name: 'job.only_task',
    description: 'Runs only as a task.',
    input: z.object({}),
    task: 'required',
    handle: () => 'ok',
  });
  add({ name: 'job.plain', description: 'Never a task.', input: z.object({}), handle: () => 'plain' });
  http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
  client = new Client(
    { name: 'tasks-2025', version: '1.0.0' },
    { capabilities: { elicitation: {}, tasks: {} } as never },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push({ message: request.params.message, meta: request.params._meta });
    return { action: 'accept', content: { name: 'Ada' } };
  });
  transport = new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`));
  await client.connect(transport);
});

afterAll(async () => {
  await transport?.terminateSession().catch(() => {});
  await client?.close();
  await http?.close();
  await hub?.close();
});

const request = (method: string, params: Record<string, unknown>) =>
  client.request({ method, params } as never, UNCHECKED_RESULT as never) as Promise<any>;
/**
 * A task-augmented `tools/call` on the session, sent raw: the SDK client (2.4.0) has no 2025 Tasks runtime and refuses
 * a CreateTaskResult as a tools/call answer before the caller sees it. Answers the result, or throws the error.
 */
async function callAsTask(name: string): Promise<any> {
  const res = await fetch(`${http.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': transport.sessionId as string,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'task-call',
      method: 'tools/call',
      params: { name, arguments: {}, task: { ttl: 60_000 } },
    }),
  });
  const answer = (await jsonRpcMessagesOf(res)).find((m) => m.id === 'task-call');
  if (answer.error) throw answer.error;
  return answer.result;
}
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err) => err as { code?: number; message: string },
  );

describe('tasks on a 2025-11-25 session', () => {
  it('are offered at the handshake and per tool in tools/list', async () => {
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    const support = (name: string) => (tools.find((t) => t.name === name) as any)?.execution?.taskSupport;
    expect(support('job__slow')).toBe('optional');
    expect(support('job__only_task')).toBe('required');
    expect(support('script__start')).toBe('optional');
    expect(support('job__plain')).toBeUndefined();
  });

  it('answers a task-augmented call with the task at once; get, list and result follow it to its end', async () => {
    gate = closedGate();
    const created = await callAsTask('job__slow');
    expect(created.task).toMatchObject({ status: 'working', ttl: expect.any(Number), pollInterval: 1000 });
    const { taskId } = created.task;
    expect(await request('tasks/get', { taskId })).toMatchObject({ taskId, status: 'working' });
    expect((await request('tasks/list', {})).tasks.map((t: { taskId: string }) => t.taskId)).toContain(taskId);
    // tasks/result waits for the end: the gate opens while it waits.
    const result = request('tasks/result', { taskId });
    setTimeout(() => gate.open(), 200);
    expect(await result).toMatchObject({
      structuredContent: { done: 'after the gate' },
      _meta: { [RELATED_TASK]: { taskId } },
    });
    expect(await request('tasks/get', { taskId })).toMatchObject({ status: 'completed' });
  });

  it("carries the task's question on tasks/result, related to the task, and its answer back", async () => {
    const created = await callAsTask('job__ask');
    const { taskId } = created.task;
    const result = await request('tasks/result', { taskId });
    expect(result.structuredContent).toEqual({ confirmedBy: 'Ada', action: 'accept' });
    expect(asked.at(-1)).toEqual({ message: 'Who confirms?', meta: { [RELATED_TASK]: { taskId } } });
  });

  it('fails the task of a tool whose result is an error; tasks/result answers that result', async () => {
    const { taskId } = (await callAsTask('job__refuse')).task;
    const result = await request('tasks/result', { taskId });
    expect(result).toMatchObject({ isError: true, _meta: { [RELATED_TASK]: { taskId } } });
    expect(JSON.stringify(result.content)).toContain('someone else holds the lock');
    expect(await request('tasks/get', { taskId })).toMatchObject({ status: 'failed' });
  });

  it('cancels a running task, answering it cancelled; a task that ended cannot be cancelled (-32602)', async () => {
    gate = closedGate();
    const { taskId } = (await callAsTask('job__slow')).task;
    expect(await request('tasks/cancel', { taskId })).toMatchObject({ taskId, status: 'cancelled' });
    const again = await failure(request('tasks/cancel', { taskId }));
    expect(again).toMatchObject({ code: -32602 });
    expect(again?.message).toContain('already ended (cancelled)');
    expect(await failure(request('tasks/result', { taskId }))).toMatchObject({ code: -32603 });
  });

  it("refuses what a tool's taskSupport does not allow, and another revision's methods (-32601)", async () => {
    const forbidden = await failure(callAsTask('job__plain'));
    expect(forbidden).toMatchObject({ code: -32601 });
    expect(forbidden?.message).toContain('cannot run as a task');
    const required = await failure(request('tools/call', { name: 'job__only_task', arguments: {} }));
    expect(required).toMatchObject({ code: -32601 });
    expect(required?.message).toContain('runs only as a task');
    expect((await callAsTask('job__only_task')).task).toMatchObject({ status: expect.any(String) });
    expect(await failure(request('tasks/update', { taskId: 'x', inputResponses: {} }))).toMatchObject({ code: -32601 });
    expect(await failure(request('tasks/get', { taskId: 'no-such-task' }))).toMatchObject({ code: -32602 });
  });
});

describe('tasks on a 2025-11-25 stdio connection', () => {
  it('makes the task at once, and tasks/result carries its elicitation, related to it, over the pipe', async () => {
    const dir = tempProject();
    const child = spawn(process.execPath, [BIN, '--cwd', dir, 'serve', '--handlers', FIXTURE_HANDLERS], {
      env: childEnv(dir),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const seen: any[] = [];
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += String(chunk);
      for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 1);
        if (line.trim()) seen.push(JSON.parse(line));
      }
    });
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const answer = (id: unknown) => until(() => seen.find((m) => m.id === id && !m.method), { what: `answer ${id}` });
    try {
      send({
        ...INITIALIZE_2025,
        params: { ...INITIALIZE_2025.params, capabilities: { elicitation: {}, tasks: { list: {}, cancel: {} } } },
      });
      await answer(1);
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'fixture__elicit', arguments: {}, task: {} },
      });
      // Sent before the hub is up: the call waits for it, and is answered with the task.
      const { taskId } = (await answer(2)).result.task;
      send({ jsonrpc: '2.0', id: 3, method: 'tasks/result', params: { taskId } });
      const question = await until(() => seen.find((m) => m.method === 'elicitation/create'), { what: 'the question' });
      expect(question.params._meta).toEqual({ [RELATED_TASK]: { taskId } });
      send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Lin' } } });
      expect((await answer(3)).result).toMatchObject({
        structuredContent: { action: 'accept', name: 'Lin' },
        _meta: { [RELATED_TASK]: { taskId } },
      });
    } finally {
      child.kill();
    }
  });
});
