// An upstream server that answers long calls with tasks (MCP's tasks extension, 2026-07-28), here another
// Switchboard over HTTP: Switchboard's call waits for the task and answers with its result; a question the task
// asks while it runs reaches the calling client's own session (a real elicitation) and its answer goes back with
// tasks/update; and the caller's cancel cancels the upstream task, whose call stops.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { Cancellation } from '../../../src/core/cancellation.ts';
import { defineCapability } from '../../../src/core/capability.ts';
import { ADMIN, type TestHub } from '../../helpers/hub.ts';
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
