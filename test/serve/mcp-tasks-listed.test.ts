// system.mcp_tasks lists the MCP tasks a caller made — an admin's call everyone's — with their status and what each
// works on, over real HTTP with real tokens: tasks made the real way (2026-07-28 tools/call from a client that
// declared the tasks extension) by a script run, a sub-agent turn against the fake Anthropic API, and test tools;
// filtered by status and tool; a stored task this version cannot read is listed as a problem, an expired one left
// out; and the `mcp_task.changed` events each change publishes reach only who may see the task.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../src/core/capability.ts';
import type { HubEvent, Principal } from '../../src/core/context.ts';
import { SwitchboardError } from '../../src/core/errors.ts';
import { TASKS_EXTENSION } from '../../src/core/mcp-tasks-extension.ts';
import { maySeeEvent } from '../../src/observe/event-view.ts';
import { hashToken } from '../../src/policy/tokens.ts';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { MCP_TASKS_NAMESPACE, taskSubject } from '../../src/store/records/mcp-tasks.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { gate as closedGate } from '../helpers/gate.ts';
import type { TestHub } from '../helpers/hub.ts';
import { rpc2026 } from '../helpers/rpc2026.ts';
import { until } from '../helpers/until.ts';
import { agentHub } from '../sources/agents/agent-hub.ts';
import { projectScripts } from '../sources/scripts/helpers.ts';

const TASKS = { extensions: { [TASKS_EXTENSION]: {} } };
const ROLES = { alice: ['agent'], bob: ['agent'], ops: ['admin', 'agent'] } as const;
type Who = keyof typeof ROLES;

let hub: TestHub;
let http: HttpHandle;
let api: FakeAnthropic;
const model = closedGate();
const job = closedGate();
const events: HubEvent[] = [];

beforeAll(async () => {
  api = await startFakeAnthropic({
    replies: [{ content: [{ type: 'text', text: 'thought it through' }], hold: model.opened }],
  });
  hub = await agentHub({ anthropic: api.url, config: '[agents]\ndefault_provider = "anthropic"' });
  const src = join(import.meta.dirname, '../../src/index.ts');
  projectScripts(hub.dir, {
    'nl/work.md': '---\ndescription: runs a short command\n---\n# Work\n',
    'compiled/work.mjs': `import { auto } from ${JSON.stringify(src)};\nexport default function* () {\n  yield auto('sleep 0.3; echo worked');\n}\n`,
  });
  for (const [name, roles] of Object.entries(ROLES))
    await hub.services.store.tokens.create({
      name,
      hash: hashToken(`sb_${name}-secret`),
      roles: [...roles],
      expiresAt: null,
    });
  hub.services.registry.add(
    defineCapability({
      name: 'job.slow',
      description: 'Runs until the test opens its gate.',
      input: z.object({}),
      task: 'optional',
      handle: async () => {
        await job.opened;
        return { done: true };
      },
    }),
  );
  hub.services.registry.add(
    defineCapability({
      name: 'job.crash',
      description: 'Fails unexpectedly (INTERNAL): the task fails.',
      input: z.object({}),
      task: 'required',
      handle: () => {
        throw new Error('the disk is on fire');
      },
    }),
  );
  hub.services.registry.add(
    defineCapability({
      name: 'job.refuse',
      description: 'Refuses: the task completes with an error result.',
      input: z.object({}),
      task: 'required',
      handle: () => {
        throw new SwitchboardError('CONFLICT', 'someone else holds the lock');
      },
    }),
  );
  hub.services.bus.subscribe((e) => {
    if (e.type === 'mcp_task.changed') events.push(e as HubEvent);
  });
  http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  model.open();
  job.open();
  await http?.close();
  await hub?.close();
  await api?.close();
});

const as = (who: Who) => ({ authorization: `Bearer sb_${who}-secret` });
const principal = (who: Who): Principal => ({ id: who, roles: [...ROLES[who]] });

/** A tools/call as `who` from a client that declared the tasks extension: the task it became. */
async function startTask(who: Who, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const { message } = await rpc2026(http.url, 'tools/call', { name, arguments: args }, as(who), TASKS);
  expect(message.result, JSON.stringify(message)).toMatchObject({ resultType: 'task' });
  return message.result.taskId;
}

/** system.mcp_tasks as `who`, the way the dashboard calls it (REST). */
async function listed(who: Who, input: Record<string, unknown> = {}): Promise<any> {
  const res = await fetch(`${http.url}/v1/tools/system.mcp_tasks`, {
    method: 'POST',
    headers: { ...as(who), 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

const ids = (page: { tasks: { id: string }[] }) => page.tasks.map((t) => t.id);

describe('system.mcp_tasks', () => {
  const made: Record<string, string> = {};

  it("lists the caller's own tasks newest first, with status and what each works on; an admin sees everyone's", async () => {
    made.script = await startTask('alice', 'script__start', { name: 'work' });
    made.agent = await startTask('alice', 'agent__start', { session_name: 'thinker', prompt: 'think it through' });
    made.slow = await startTask('bob', 'job__slow');

    const mine = await listed('alice');
    expect(ids(mine)).toEqual([made.agent, made.script]);
    expect(mine.total).toBe(2);
    expect(mine.problems).toEqual([]);
    // The agent's session is known from the call's arguments while its turn runs.
    expect(mine.tasks[0]).toMatchObject({
      id: made.agent,
      tool: 'agent__start',
      status: 'working',
      principal: 'alice',
      subject: { kind: 'agent_session', id: 'thinker' },
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
    });
    expect(Date.parse(mine.tasks[0].expiresAt)).toBeGreaterThan(Date.now());
    expect(mine.tasks[0]).not.toHaveProperty('error');

    // The script run is known from the result, once the call ends: it is a run of alice's.
    const script = await until(
      async () => (await listed('alice', { tool: ['script__start'] })).tasks.find((t: any) => t.status === 'completed'),
      { what: 'the script task to complete' },
    );
    expect(script.subject).toMatchObject({ kind: 'script_run', id: expect.any(String) });
    const runs = await hub.call('script.runs', { run_id: script.subject.id }, principal('alice'));
    expect(runs.ok && (runs.value as any).run).toMatchObject({ id: script.subject.id, principal: 'alice' });

    expect(ids(await listed('bob'))).toEqual([made.slow]);
    expect((await listed('bob')).tasks[0]).toMatchObject({ tool: 'job__slow', status: 'working', subject: null });
    const all = await listed('ops');
    expect(ids(all)).toEqual(expect.arrayContaining([made.agent, made.script, made.slow]));
    expect(all.tasks.map((t: any) => t.principal)).toEqual(expect.arrayContaining(['alice', 'bob']));
  });

  it('filters by status and tool (tool or capability name), and limits the page, counting the rest', async () => {
    expect(ids(await listed('alice', { status: ['working', 'input_required'] }))).toEqual([made.agent]);
    expect(ids(await listed('alice', { status: ['completed'] }))).toEqual([made.script]);
    expect(ids(await listed('alice', { tool: ['agent.start', 'agent__resume'] }))).toEqual([made.agent]);
    const one = await listed('ops', { limit: 1 });
    expect(one.tasks).toHaveLength(1);
    expect(one.total).toBeGreaterThanOrEqual(3);
    const bad = await fetch(`${http.url}/v1/tools/system.mcp_tasks`, {
      method: 'POST',
      headers: { ...as('alice'), 'content-type': 'application/json' },
      body: JSON.stringify({ status: ['sleeping'] }),
    });
    expect(bad.status).toBe(400);
  });

  it("keeps the session as a finished agent turn's subject, and says why a task did not succeed", async () => {
    model.open();
    const agent = await until(
      async () => (await listed('alice', { tool: ['agent__start'] })).tasks.find((t: any) => t.status === 'completed'),
      { what: 'the agent task to complete' },
    );
    expect(agent.subject).toEqual({ kind: 'agent_session', id: 'thinker' });

    const crashed = await startTask('bob', 'job__crash');
    const refused = await startTask('bob', 'job__refuse');
    const bobs = await listed('bob', { tool: ['job__crash', 'job__refuse'] });
    expect(bobs.tasks.find((t: any) => t.id === crashed)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('the disk is on fire'),
    });
    // A refusal is a completed task whose result is an error: its text is the error.
    expect(bobs.tasks.find((t: any) => t.id === refused)).toMatchObject({
      status: 'completed',
      error: expect.stringContaining('someone else holds the lock'),
    });
  });

  it('lists a stored task it cannot read as a problem (to its principal and admins), and leaves expired ones out', async () => {
    const { documents } = hub.services.store;
    const [record] = (await documents.list<any>(MCP_TASKS_NAMESPACE)).filter((d) => d.key === made.script);
    // A task of alice's as another version might write it: a status this one does not know.
    await documents.put(MCP_TASKS_NAMESPACE, 'mangled', { ...record.value, id: 'mangled', status: 'sleeping' });
    await documents.put(MCP_TASKS_NAMESPACE, 'nobodys', 'not a task at all');
    await documents.put(MCP_TASKS_NAMESPACE, 'gone', { ...record.value, id: 'gone', expiresAt: Date.now() - 1 });

    const alice = await listed('alice');
    expect(alice.problems).toEqual([
      {
        id: 'mangled',
        principal: 'alice',
        error: expect.stringMatching(/Task 'mangled' is stored in a shape .*status/),
      },
    ]);
    expect(ids(alice)).not.toContain('gone');
    expect(ids(alice)).toContain(made.script);
    expect((await listed('bob')).problems).toEqual([]);
    expect((await listed('ops')).problems.map((p: any) => p.id).sort()).toEqual(['mangled', 'nobodys']);
    expect(ids(await listed('ops'))).not.toContain('gone');
    await documents.delete(MCP_TASKS_NAMESPACE, 'mangled');
    await documents.delete(MCP_TASKS_NAMESPACE, 'nobodys');
  });

  it("publishes each task's changes as mcp_task.changed, which only its principal and admins may see", async () => {
    job.open();
    await until(() => events.some((e) => e.id === made.slow && e.status === 'completed'), {
      what: "the bob's slow task's completion on the bus",
    });
    const ofAgent = events.filter((e) => e.id === made.agent).map((e) => e.status);
    expect(ofAgent).toEqual(['working', 'completed']);
    const event = events.find((e) => e.id === made.agent) as HubEvent;
    expect(event).toMatchObject({ principal: 'alice', tool: 'agent__start', at: expect.any(String) });
    const { registry } = hub.services;
    expect(maySeeEvent(registry, principal('alice'), event)).toBe(true);
    expect(maySeeEvent(registry, principal('bob'), event)).toBe(false);
    expect(maySeeEvent(registry, principal('ops'), event)).toBe(true);
    // The events that ask another instance to cancel or collect answers name no principal: admins only.
    const cancel = { type: 'mcp_task.cancel_requested', task: made.agent, at: new Date().toISOString() };
    expect(maySeeEvent(registry, principal('alice'), cancel)).toBe(false);
  });
});

describe('taskSubject', () => {
  it('reads a script run or an agent session from the fields its tool names, and nothing for other tools', () => {
    expect(taskSubject('script__start', { run_id: 'r1', state: 'finished' })).toEqual({ kind: 'script_run', id: 'r1' });
    expect(taskSubject('script.start', { name: 'work' })).toBeUndefined();
    expect(taskSubject('agent__resume', { session_name: 's', prompt: 'go on' })).toEqual({
      kind: 'agent_session',
      id: 's',
    });
    expect(taskSubject('agent__start', { session_id: 's2' })).toEqual({ kind: 'agent_session', id: 's2' });
    expect(taskSubject('plugin__hook', { run_id: 'r1', session_name: 's' })).toBeUndefined();
    expect(taskSubject('agent__start', 'text')).toBeUndefined();
  });
});
