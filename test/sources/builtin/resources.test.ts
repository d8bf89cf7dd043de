// Tests for the hub's own resources: the welcome page built from the live registry, health, the tool
// catalog, recent events and task://{id}, each read as a given principal.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../../src/core/capability.ts';
import type { CallContext, Principal } from '../../../src/core/context.ts';
import { ADMIN, type TestHub, testHub } from '../../helpers/hub.ts';
import { until } from '../../helpers/until.ts';

const AGENT: Principal = { id: 'agent-1', roles: ['agent'] };

let hub: TestHub | undefined;

/** Close the hub (its timers, the audit writer thread, the store), then remove its project directory. */
async function dispose(h: TestHub): Promise<void> {
  await h.close();
  rmSync(h.dir, { recursive: true, force: true });
}

afterEach(async () => {
  if (hub) await dispose(hub);
  hub = undefined;
});

/** A call context like the pipeline builds one, for reading resources directly. */
function ctxFor(h: TestHub, principal: Principal = ADMIN): CallContext {
  return {
    principal,
    transport: 'internal',
    requestId: randomUUID(),
    signal: new AbortController().signal,
    progress: async () => {},
    log: async () => {},
    client: {},
    services: h.services,
  };
}

async function read(h: TestHub, uri: string, principal?: Principal): Promise<{ mimeType?: string; text: string }> {
  const def = h.services.registry.getResource(uri);
  if (!def) throw new Error(`no resource ${uri}`);
  const [content] = await def.read(ctxFor(h, principal));
  expect(content.uri).toBe(uri);
  return { mimeType: content.mimeType, text: content.text ?? '' };
}

function taskTemplate(h: TestHub) {
  const def = h.services.registry.listResourceTemplates().find((t) => t.uriTemplate === 'task://{id}');
  if (!def) throw new Error('no task://{id} template');
  return def;
}

describe('switchboard://welcome', () => {
  it('introduces the hub and lists tools by domain, resources and the task workflow', async () => {
    hub = await testHub();
    const { mimeType, text } = await read(hub, 'switchboard://welcome');
    expect(mimeType).toBe('text/markdown');
    expect(text).toContain('# Welcome to Switchboard');
    expect(text).toContain('## Calling tools');
    expect(text).toContain('### system');
    expect(text).toContain('### task');
    expect(text).toMatch(/`system__health` — \*\*Hub health\*\*: Check whether Switchboard/);
    expect(text).toContain('`switchboard://tools`');
    expect(text).toContain('`task://{id}` (template)');
    expect(text).toContain('## Task-board workflow');
    expect(text).toContain('`system__register`');
  });

  it('reflects a capability added at run time', async () => {
    hub = await testHub();
    expect((await read(hub, 'switchboard://welcome')).text).not.toContain('demo__echo');
    hub.services.registry.add(
      defineCapability({
        name: 'demo.echo',
        title: 'Echo',
        description: 'Echo the text back. Second sentence stays out.',
        input: z.object({ text: z.string() }),
        handle: ({ text }) => ({ text }),
      }),
    );
    const { text } = await read(hub, 'switchboard://welcome');
    expect(text).toContain('### demo');
    expect(text).toContain('- `demo__echo` — **Echo**: Echo the text back.');
    expect(text).not.toContain('Second sentence');
  });

  it('lists only what the reading principal may use', async () => {
    hub = await testHub();
    expect((await read(hub, 'switchboard://welcome')).text).toContain('system__config');
    const { text } = await read(hub, 'switchboard://welcome', AGENT);
    expect(text).not.toContain('system__config');
    expect(text).toContain('system__health');
    expect(text).toContain('`agent-1`');
  });
});

describe('switchboard://health', () => {
  it('returns the health report as JSON', async () => {
    hub = await testHub();
    const { mimeType, text } = await read(hub, 'switchboard://health');
    expect(mimeType).toBe('application/json');
    expect(JSON.parse(text)).toMatchObject({
      status: 'healthy',
      services: { store: { status: 'healthy' } },
      instanceId: hub.services.instanceId,
      uptimeMs: expect.any(Number),
    });
  });
});

describe('switchboard://catalog/tools.d.ts', () => {
  it('declares `tools` with every tool the reader may call, typed from its schemas', async () => {
    hub = await testHub();
    const admin = await read(hub, 'switchboard://catalog/tools.d.ts');
    expect(admin.mimeType).toBe('application/typescript');
    expect(admin.text).toContain('declare const tools: {');
    expect(admin.text).toMatch(/^ {2}task__get\(args: \{\n(?:.*\n)*? {4}id: string;/m);
    expect(admin.text).toContain('system__config(');
    expect(admin.text).not.toContain('catalog__run(');
    // What an agent may not call is not declared to it.
    const agent = await read(hub, 'switchboard://catalog/tools.d.ts', AGENT);
    expect(agent.text).not.toContain('system__config(');
    expect(agent.text).toContain('task__get(');
  });
});

describe('switchboard://tools', () => {
  it('lists tool descriptors with schemas', async () => {
    hub = await testHub();
    const { mimeType, text } = await read(hub, 'switchboard://tools');
    expect(mimeType).toBe('application/json');
    const tools = JSON.parse(text);
    const health = tools.find((t: any) => t.name === 'system__health');
    expect(health).toMatchObject({ capability: 'system.health', title: 'Hub health', inputSchema: { type: 'object' } });
    expect(health.outputSchema).toMatchObject({ type: 'object' });
    expect(health.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.map((t: any) => t.name)).toContain('system__config');
  });

  it('hides admin tools from an agent, and calling one answers like an unknown tool', async () => {
    hub = await testHub();
    const names = JSON.parse((await read(hub, 'switchboard://tools', AGENT)).text).map((t: any) => t.name);
    expect(names).not.toContain('system__config');
    expect(names).toContain('system__get_state');
    const out = await hub.call('system__config', { action: 'get' }, AGENT);
    expect(out).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'NOT_FOUND',
        message: expect.stringContaining("Unknown tool 'system__config'"),
      }),
    });
  });
});

describe('switchboard://events', () => {
  it('returns recent events, oldest first, with calls summarised', async () => {
    hub = await testHub();
    await hub.value('system.register', { instanceId: 'w1', roles: [] });
    await hub.call('system.heartbeat', { instanceId: 'ghost' });
    const { mimeType, text } = await until(
      async () => {
        const got = await read(hub!, 'switchboard://events');
        return got.text.includes('instance.registered') && got;
      },
      { what: 'the stored events' },
    );
    expect(mimeType).toBe('application/json');
    const events = JSON.parse(text);
    // Oldest first by time; stored hub events carry their store seq, in-memory call events seq 0.
    const times = events.map((e: any) => e.event.at);
    expect([...times].sort()).toEqual(times);
    for (const e of events) expect(e.seq === 0).toBe(e.event.type === 'call');
    expect(events.map((e: any) => e.event.type)).toContain('instance.registered');
    const failed = events.find((e: any) => e.event.type === 'call' && e.event.name === 'system.heartbeat');
    expect(failed.event).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(failed.event).not.toHaveProperty('input');
  });

  it('keeps at most 100 events', async () => {
    hub = await testHub();
    for (let i = 0; i < 120; i++) await hub.value('system.health');
    await hub.flush(); // every event of those calls written: a late one would show
    expect(JSON.parse((await read(hub, 'switchboard://events')).text)).toHaveLength(100);
  });

  it('hides calls of tools the reader may not see', async () => {
    hub = await testHub();
    await hub.value('system.config', { action: 'get' });
    const admin = await until(
      async () => {
        const names = JSON.parse((await read(hub!, 'switchboard://events')).text).map((e: any) => e.event.name);
        return names.includes('system.config') && names;
      },
      { what: 'the config call among the events' },
    );
    expect(admin).toContain('system.config');
    const agent = JSON.parse((await read(hub, 'switchboard://events', AGENT)).text).map((e: any) => e.event.name);
    expect(agent).not.toContain('system.config');
  });
});

describe('task://{id}', () => {
  it('reads one task as JSON', async () => {
    hub = await testHub();
    const task = await hub.services.store.tasks.create({ text: 'write docs', priority: 70 });
    const [content] = await taskTemplate(hub).read(`task://${task.id}`, { id: task.id }, ctxFor(hub));
    expect(content).toMatchObject({ uri: `task://${task.id}`, mimeType: 'application/json' });
    expect(JSON.parse(content.text ?? '')).toMatchObject({
      id: task.id,
      text: 'write docs',
      priority: 70,
      status: 'pending',
    });
  });

  it('answers NOT_FOUND for an unknown id', async () => {
    hub = await testHub();
    await expect(taskTemplate(hub).read('task://nope', { id: 'nope' }, ctxFor(hub))).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining("Task 'nope'"),
    });
  });

  it('completes ids by prefix, at most 20', async () => {
    hub = await testHub();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await hub.services.store.tasks.create({ text: `t${i}`, priority: 50 })).id);
    const template = taskTemplate(hub);
    const all = await template.complete!('id', '');
    expect(all).toHaveLength(20);
    for (const id of all) expect(ids).toContain(id);
    const one = await template.complete!('id', ids[7]);
    expect(one).toContain(ids[7]);
    for (const id of one) expect(id.startsWith(ids[7])).toBe(true);
    expect(await template.complete!('id', 'zzz-no-such-prefix')).toEqual([]);
    expect(await template.complete!('other', '')).toEqual([]);
  });
});
