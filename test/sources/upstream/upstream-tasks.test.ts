// An upstream server that answers long calls with tasks (MCP's tasks extension, 2026-07-28), here another
// Switchboard over HTTP: Switchboard's call waits for the task and answers with its result; a question the task
// asks while it runs reaches the calling client's own session (a real elicitation) and its answer goes back with
// tasks/update; and the caller's cancel cancels the upstream task, whose call stops. A client that declared the
// extension gets a task of Switchboard's own for such a call (its id, never the upstream's), through which the
// upstream task's question, answer and cancel travel.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Cancellation } from '../../../src/core/cancellation.ts';
import { defineCapability } from '../../../src/core/capability.ts';
import { tasksOf } from '../../../src/serve/mcp-task-table.ts';
import { ADMIN, type TestHub } from '../../helpers/hub.ts';
import { tasksClient } from '../../helpers/tasks-client.ts';
import { until } from '../../helpers/until.ts';
import { type HubPair, hubBehindHub } from './helpers.ts';

let pair: HubPair;
let near: TestHub;
let started = 0;
let stopped = 0;

beforeAll(async () => {
  pair = await hubBehindHub({
    setUp: (far) => {
      far.services.registry.add(
        defineCapability({
          name: 'job.confirm',
          description: 'Asks who confirms, while it runs as a task.',
          input: z.object({}),
          task: 'optional',
          handle: async (_input, ctx) => {
            if (!ctx.client.elicit) return 'no way to ask';
            const answer = (await ctx.client.elicit({
              message: 'Who confirms?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            })) as { action?: string; content?: { name?: string } };
            return answer.action === 'accept'
              ? `confirmed by ${answer.content?.name}`
              : `not confirmed (${answer.action})`;
          },
        }),
      );
      far.services.registry.add(
        defineCapability({
          name: 'job.plain',
          description: 'Works for a while; never a task.',
          input: z.object({ ms: z.number() }),
          handle: async ({ ms }) => {
            await new Promise((resolve) => setTimeout(resolve, ms));
            return `worked ${ms} ms, held open`;
          },
        }),
      );
      far.services.registry.add(
        defineCapability({
          name: 'job.slow',
          description: 'Works for a while (a task), or until cancelled.',
          input: z.object({ ms: z.number() }),
          task: 'optional',
          policy: { timeoutMs: 60_000 },
          handle: async ({ ms }, ctx) => {
            started++;
            await new Promise<void>((resolve, reject) => {
              const timer = setTimeout(resolve, ms);
              ctx.signal.addEventListener('abort', () => {
                stopped++;
                clearTimeout(timer);
                reject(ctx.signal.reason);
              });
            });
            // Inside a task the call has a way to ask its client (the task's); held open on 2026, none.
            return `worked ${ms} ms ${ctx.client.elicit ? 'as a task' : 'held open'}`;
          },
        }),
      );
    },
    server: { timeout_ms: 60_000 },
    tool: 'far__job__slow',
  });
  near = pair.near;
});

afterAll(async () => {
  await pair?.close();
});

it('waits for an upstream task and answers with its result', async () => {
  const out = await near.call('far__job__slow', { ms: 400 });
  expect(out.ok && out.raw?.content).toEqual([{ type: 'text', text: 'worked 400 ms as a task' }]);
});

it("puts the upstream task's question to the calling client's session, and its answer back", async () => {
  const client = new Client({ name: 't', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  client.setRequestHandler('elicitation/create', async (request) => {
    expect(request.params.message).toBe('Who confirms?');
    return { action: 'accept', content: { name: 'Ada' } };
  });
  const transport = new StreamableHTTPClientTransport(new URL(`${pair.nearHttp.url}/mcp`));
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'far__job__confirm', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: 'confirmed by Ada' }]);
  } finally {
    await transport.terminateSession().catch(() => {});
    await client.close();
  }
});

it('declines for a caller that cannot be asked', async () => {
  const out = await near.call('far__job__confirm', {});
  expect(out.ok && out.raw?.content).toEqual([{ type: 'text', text: 'not confirmed (decline)' }]);
});

it("cancels the upstream task when the caller cancels, and the upstream's call stops", async () => {
  const cancellation = new Cancellation();
  const before = { started, stopped };
  const call = near.pipeline.call({
    principal: ADMIN,
    name: 'far__job__slow',
    input: { ms: 30_000 },
    transport: 'cli',
    cancellation,
  });
  await until(() => started > before.started, { what: 'the upstream call to start' });
  cancellation.abort();
  const out = await call;
  expect(out).toMatchObject({ ok: false, error: { code: 'CANCELLED' } });
  await until(() => stopped > before.stopped, { what: "the upstream's call to stop" });
});

describe('a client with the tasks extension', () => {
  const farTasks = async () => (await tasksOf(pair.far).list(undefined)).tasks.map((t) => t.id);

  it("gets a task of Switchboard's own for an upstream task, and cancelling it cancels the upstream's", async () => {
    const client = await tasksClient(pair.nearHttp.url);
    const before = { stopped };
    try {
      const earlier = new Set(await farTasks());
      const { task } = await client.call('far__job__slow', { ms: 30_000 });
      expect(task).toMatchObject({ status: 'working' });
      // The upstream runs its own task; the client holds another id, which names nothing upstream.
      const upstream = await until(async () => (await farTasks()).find((id) => !earlier.has(id)), {
        what: 'the upstream task',
      });
      expect(upstream).not.toBe(task.taskId);
      expect(await farTasks()).not.toContain(task.taskId);
      expect(await client.task('tasks/get', task.taskId)).toMatchObject({ status: 'working' });
      await client.task('tasks/cancel', task.taskId);
      expect(await client.task('tasks/get', task.taskId)).toMatchObject({ status: 'cancelled' });
      await until(() => stopped > before.stopped, { what: "the upstream's call to stop" });
      const statusUpstream = async () =>
        (await tasksOf(pair.far).list(undefined)).tasks.find((t) => t.id === upstream)?.status;
      await until(async () => (await statusUpstream()) === 'cancelled', { what: 'the upstream task to be cancelled' });
    } finally {
      await client.close();
    }
  });

  it("shows the upstream task's question as its own, and takes the answer there", async () => {
    const client = await tasksClient(pair.nearHttp.url);
    try {
      const { task } = await client.call('far__job__confirm', {});
      const asked = await client.reaches(task.taskId, 'input_required');
      const [key, question] = Object.entries(asked.inputRequests as Record<string, any>)[0] ?? [];
      expect(question).toMatchObject({ method: 'elicitation/create', params: { message: 'Who confirms?' } });
      await client.task('tasks/update', task.taskId, {
        inputResponses: { [key as string]: { action: 'accept', content: { name: 'Grace' } } },
      });
      const done = await client.reaches(task.taskId, 'completed');
      expect(done.result.content).toEqual([{ type: 'text', text: 'confirmed by Grace' }]);
    } finally {
      await client.close();
    }
  });

  it('gets a task for a slow call of an upstream without tasks, run to completion inside it', async () => {
    const client = await tasksClient(pair.nearHttp.url);
    try {
      const earlier = new Set(await farTasks());
      const { task } = await client.call('far__job__plain', { ms: 300 });
      expect(task).toMatchObject({ status: 'working' });
      const done = await client.reaches(task.taskId, 'completed');
      expect(done.result.content).toEqual([{ type: 'text', text: 'worked 300 ms, held open' }]);
      expect((await farTasks()).filter((id) => !earlier.has(id))).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
