// Tests for the built-in `system` domain: health, instance leases and their expiry, board state,
// metrics, feature status and live configuration, all through the real pipeline and a real SQLite store.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../../src/core/capability.ts';
import type { BusEvent, Principal } from '../../../src/core/context.ts';
import { sweepExpiredInstances } from '../../../src/sources/builtin/system/index.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';
import { until } from '../../helpers/until.ts';

const AGENT: Principal = { id: 'agent-1', roles: ['agent'] };

let hub: TestHub | undefined;
let dirs: string[] = [];

/** Close the hub (its timers, the audit writer thread, the store), then remove its project directory. */
async function dispose(h: TestHub): Promise<void> {
  await h.close();
  rmSync(h.dir, { recursive: true, force: true });
}

afterEach(async () => {
  vi.useRealTimers();
  if (hub) await dispose(hub);
  hub = undefined;
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A project directory whose `.switchboard/config.toml` holds `toml`. */
function projectWith(toml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-system-'));
  dirs.push(dir);
  mkdirSync(join(dir, '.switchboard'), { recursive: true });
  writeFileSync(join(dir, '.switchboard', 'config.toml'), toml);
  return dir;
}

/** Collect bus events of the given types. */
function recordEvents(h: TestHub, ...types: string[]): BusEvent[] {
  const seen: BusEvent[] = [];
  h.services.bus.subscribe((e) => {
    if (types.includes(e.type)) seen.push(e);
  });
  return seen;
}

/** A task assigned to `instance`, put there directly through the store (the task domain is tested elsewhere). */
async function assignedTask(
  h: TestHub,
  instance: string,
  status: 'assigned' | 'in_progress' = 'assigned',
): Promise<string> {
  const task = await h.services.store.tasks.create({ text: `work for ${instance}`, priority: 50 });
  const updated = await h.services.store.tasks.update(task.id, { status, assignedTo: instance });
  expect(updated.ok).toBe(true);
  return task.id;
}

/** Freeze the wall clock (leases are stamped with Date.now()); timers and I/O stay real. Move it with `later`. */
function freezeClock(): void {
  vi.useFakeTimers({ toFake: ['Date'] });
}
const later = (ms: number) => vi.setSystemTime(Date.now() + ms);

describe('system.health', () => {
  it('reports the store as a healthy component with uptime and instance id', async () => {
    hub = await testHub();
    const health = await hub.value('system.health');
    expect(health.status).toBe('healthy');
    expect(health.services.store.status).toBe('healthy');
    expect(health.uptimeMs).toBeGreaterThanOrEqual(0);
    expect(health.instanceId).toBe(hub.services.instanceId);
  });

  it('turns degraded when a component reports degraded', async () => {
    hub = await testHub();
    hub.services.health.register('upstream:x', () => ({ status: 'degraded', detail: 'slow' }));
    const health = await hub.value('system.health');
    expect(health.status).toBe('degraded');
    expect(health.services['upstream:x']).toEqual({ status: 'degraded', detail: 'slow' });
  });
});

describe('system.register and system.heartbeat', () => {
  it('registers an instance with the configured ttl and announces it', async () => {
    hub = await testHub();
    const events = recordEvents(hub, 'instance.registered');
    const before = Date.now();
    const inst = await hub.value('system.register', { instanceId: 'claude-1', roles: ['coder'] });
    expect(inst).toMatchObject({ id: 'claude-1', roles: ['coder'], ttlMs: 30_000 });
    expect(Date.parse(inst.expiresAt)).toBeGreaterThanOrEqual(before + 30_000);
    expect(events).toEqual([
      expect.objectContaining({ type: 'instance.registered', id: 'claude-1', at: expect.any(String) }),
    ]);
  });

  it('replaces the roles when an instance registers again', async () => {
    hub = await testHub();
    await hub.value('system.register', { instanceId: 'w1', roles: ['a'] });
    const again = await hub.value('system.register', { instanceId: 'w1', roles: ['b'] });
    expect(again.roles).toEqual(['b']);
    expect((await hub.services.store.instances.list()).map((i) => i.id)).toEqual(['w1']);
  });

  it('rejects an instance id with spaces, naming the field', async () => {
    hub = await testHub();
    const out = await hub.call('system.register', { instanceId: 'has space', roles: [] });
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error.code).toBe('INVALID_INPUT');
    expect(out.error.message).toContain('instanceId');
  });

  it('rejects an instance id longer than 128 characters', async () => {
    hub = await testHub();
    const out = await hub.call('system.register', { instanceId: 'x'.repeat(129), roles: [] });
    expect(out.ok ? undefined : out.error.code).toBe('INVALID_INPUT');
  });

  it('extends the lease on heartbeat', async () => {
    hub = await testHub();
    freezeClock();
    const inst = await hub.value('system.register', { instanceId: 'w1', roles: [] });
    later(5);
    const beat = await hub.value('system.heartbeat', { instanceId: 'w1' });
    expect(beat.instanceId).toBe('w1');
    expect(beat.ttlMs).toBe(30_000);
    expect(Date.parse(beat.expiresAt)).toBeGreaterThan(Date.parse(inst.expiresAt));
  });

  it('answers NOT_FOUND for a heartbeat of an unknown instance', async () => {
    hub = await testHub();
    const out = await hub.call('system.heartbeat', { instanceId: 'ghost' });
    expect(out).toEqual({
      ok: false,
      error: expect.objectContaining({
        code: 'NOT_FOUND',
        message: "Instance 'ghost' is not registered (or its lease expired); call system.register first.",
      }),
    });
  });
});

describe('instance expiry', () => {
  it('the sweep removes expired instances, releases their tasks and publishes instance.expired', async () => {
    hub = await testHub();
    const events = recordEvents(hub, 'instance.expired');
    await hub.value('system.register', { instanceId: 'w1', roles: [] });
    await hub.value('system.register', { instanceId: 'w2', roles: [] });
    const t1 = await assignedTask(hub, 'w1');
    const t2 = await assignedTask(hub, 'w1', 'in_progress');
    const other = await assignedTask(hub, 'w2');

    // Only w1's lease has ended at this `now`: refresh w2 far into the future first.
    await hub.services.store.instances.register('w2', [], 10 * 60_000);
    const taskEvents = recordEvents(hub, 'task.changed');
    const expired = await sweepExpiredInstances(hub.services, Date.now() + 60_000);
    expect(taskEvents).toEqual(
      expect.arrayContaining(
        [t1, t2].map((id) => expect.objectContaining({ id, status: 'pending', action: 'release' })),
      ),
    );
    expect(taskEvents).toHaveLength(2);

    expect(expired).toEqual([{ id: 'w1', released: expect.arrayContaining([t1, t2]) }]);
    expect(expired[0].released).toHaveLength(2);
    for (const id of [t1, t2]) expect(await hub.services.store.tasks.get(id)).toMatchObject({ status: 'pending' });
    expect(await hub.services.store.tasks.get(other)).toMatchObject({ status: 'assigned', assignedTo: 'w2' });
    expect(events).toEqual([
      expect.objectContaining({ type: 'instance.expired', id: 'w1', released: expect.arrayContaining([t1, t2]) }),
    ]);

    const beat = await hub.call('system.heartbeat', { instanceId: 'w1' });
    expect(beat.ok ? undefined : beat.error.code).toBe('NOT_FOUND');
  });

  it('with a tiny configured ttl, a late heartbeat fails and get_state shows the tasks back to pending', async () => {
    hub = await testHub({ cwd: projectWith('[system]\ninstance_ttl_ms = 150\n') });
    freezeClock();
    const inst = await hub.value('system.register', { instanceId: 'w1', roles: [] });
    expect(inst.ttlMs).toBe(150);
    const task = await assignedTask(hub, 'w1');
    later(250);

    const beat = await hub.call('system.heartbeat', { instanceId: 'w1' });
    expect(beat.ok).toBe(false);
    if (!beat.ok)
      expect(beat.error).toMatchObject({
        code: 'NOT_FOUND',
        message: expect.stringContaining("Instance 'w1' is not registered"),
      });
    const state = await hub.value('system.get_state');
    expect(state.instances).toEqual([]);
    expect(state.tasks).toMatchObject({ pending: 1, assigned: 0 });
    expect(await hub.services.store.tasks.get(task)).toMatchObject({ status: 'pending' });
  });

  it('expires leases in the background without any call', async () => {
    hub = await testHub({ cwd: projectWith('[system]\ninstance_ttl_ms = 150\n') });
    const events = recordEvents(hub, 'instance.expired');
    await hub.value('system.register', { instanceId: 'w1', roles: [] });
    const task = await assignedTask(hub, 'w1');
    await until(() => events.length > 0, { timeoutMs: 3000, what: 'an instance.expired event' });
    expect(events[0]).toMatchObject({ id: 'w1', released: [task] });
    expect(await hub.services.store.instances.list()).toEqual([]);
  });

  it('keeps an instance alive while it heartbeats', async () => {
    hub = await testHub({ cwd: projectWith('[system]\ninstance_ttl_ms = 400\n') });
    freezeClock();
    await hub.value('system.register', { instanceId: 'w1', roles: [] });
    // 5 × 100 ms outlives one 400 ms lease, so only the heartbeats keep it.
    for (let i = 0; i < 5; i++) {
      later(100);
      await hub.value('system.heartbeat', { instanceId: 'w1' });
    }
    expect((await hub.value('system.get_state')).instances.map((i: { id: string }) => i.id)).toEqual(['w1']);
  });
});

describe('system.get_state', () => {
  it('lists instances, counts tasks per status and shows recent events without call payloads', async () => {
    hub = await testHub();
    await hub.value('system.register', { instanceId: 'w1', roles: ['coder'] });
    const { store } = hub.services;
    for (let i = 0; i < 3; i++) await store.tasks.create({ text: `p${i}`, priority: 10 });
    await assignedTask(hub, 'w1');
    await assignedTask(hub, 'w1', 'in_progress');
    const done = await store.tasks.create({ text: 'done', priority: 1 });
    await store.tasks.update(done.id, { status: 'completed', completedAt: new Date().toISOString() });
    const failed = await store.tasks.create({ text: 'failed', priority: 1 });
    await store.tasks.update(failed.id, { status: 'failed', error: 'nope' });
    for (let i = 0; i < 25; i++) await hub.value('system.health');
    await until(
      async () => (await hub?.value('system.get_state'))?.recentEvents.some((e: any) => e.event.type === 'call'),
      {
        what: 'the calls among the recent events',
      },
    );

    const state = await hub.value('system.get_state');
    expect(state.instances).toEqual([
      expect.objectContaining({ id: 'w1', roles: ['coder'], expiresAt: expect.any(String) }),
    ]);
    expect(state.tasks).toEqual({ pending: 3, assigned: 1, in_progress: 1, completed: 1, failed: 1 });
    expect(state.recentEvents.length).toBeGreaterThan(0);
    expect(state.recentEvents.length).toBeLessThanOrEqual(20);
    const calls = state.recentEvents.filter((e: any) => e.event.type === 'call');
    expect(calls.length).toBeGreaterThan(0);
    for (const e of calls) {
      expect(e.event).not.toHaveProperty('output');
      expect(e.event).not.toHaveProperty('input');
      expect(e.event.ok).toBe(true);
    }
    const seqs = state.recentEvents.map((e: any) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });

  it('counts more tasks than fit in one page', async () => {
    hub = await testHub();
    for (let i = 0; i < 520; i++) await hub.services.store.tasks.create({ text: `t${i}`, priority: 50 });
    expect((await hub.value('system.get_state')).tasks.pending).toBe(520);
  });

  it('hides calls of capabilities the caller may not see', async () => {
    hub = await testHub();
    await hub.value('system.config', { action: 'get' });
    // The admin's view shows the call once it is recorded; only then is its absence from the agent's view telling.
    await until(
      async () =>
        (await hub?.value('system.get_state'))?.recentEvents.some((e: any) => e.event.name === 'system.config'),
      { what: 'the system.config call among the recent events' },
    );
    const out = await hub.call('system.get_state', {}, AGENT);
    expect(out.ok).toBe(true);
    const names = (out.ok ? (out.value as any).recentEvents : []).map((e: any) => e.event.name);
    expect(names).not.toContain('system.config');
  });
});

describe('system.metrics', () => {
  it('counts calls and errors per capability with totals', async () => {
    hub = await testHub();
    await hub.value('system.health');
    await hub.value('system.health');
    await hub.call('system.heartbeat', { instanceId: 'ghost' });
    await hub.call('system.register', { instanceId: 'bad id' });
    const m = await hub.value('system.metrics');
    expect(m.capabilities['system.health']).toMatchObject({ calls: 2, errors: 0, inFlight: 0 });
    expect(m.capabilities['system.heartbeat']).toMatchObject({ calls: 1, errors: 1 });
    expect(m.capabilities['system.register']).toMatchObject({ calls: 1, errors: 1 });
    expect(m.capabilities['system.health'].latencyMs).toEqual({
      p50: expect.any(Number),
      p95: expect.any(Number),
      p99: expect.any(Number),
      max: expect.any(Number),
      mean: expect.any(Number),
    });
    // The metrics call itself is in flight while it takes the snapshot.
    expect(m.capabilities['system.metrics']).toMatchObject({ calls: 0, inFlight: 1 });
    expect(m.totals).toEqual({ calls: 4, errors: 2 });
  });

  it('hides metrics of capabilities the caller may not see', async () => {
    hub = await testHub();
    await hub.value('system.config', { action: 'get' });
    const out = await hub.call('system.metrics', {}, AGENT);
    expect(out.ok).toBe(true);
    if (out.ok) expect(Object.keys((out.value as any).capabilities)).not.toContain('system.config');
  });
});

describe('system.capabilities', () => {
  it('reports built features as Available and the rest as NotConfigured with a reason', async () => {
    hub = await testHub();
    const caps = await hub.value('system.capabilities');
    expect(caps.contractVersion).toBe('1.0');
    const byName = Object.fromEntries(caps.features.map((f: any) => [f.name, f]));
    for (const name of ['task', 'system', 'handlers', 'agents', 'scripts'])
      expect(byName[name].status).toBe('Available');
    // Plugins is built; a project without plugin manifests has nothing for it to serve.
    expect(byName.plugins).toMatchObject({ status: 'NotConfigured', reason: 'no plugin manifests found', tools: [] });
    expect(byName.upstream).toMatchObject({
      status: 'NotConfigured',
      reason: "no upstream servers configured ([[servers]] or a plugin's mcp_servers)",
      tools: [],
    });
    expect(byName.script).toBeUndefined();
    expect(byName.system.tools).toEqual(
      expect.arrayContaining([
        'system__health',
        'system__register',
        'system__heartbeat',
        'system__get_state',
        'system__metrics',
        'system__capabilities',
        'system__config',
      ]),
    );
    expect(byName.task.tools.length).toBeGreaterThan(0);
    expect(byName.system.contractVersion).toBe('1.0');
  });

  it('lists a domain added at run time as an Available feature, and hides tools by role', async () => {
    hub = await testHub();
    hub.services.registry.add(
      defineCapability({
        name: 'demo.echo',
        description: 'Echo.',
        input: z.object({}),
        source: 'test',
        handle: () => ({}),
      }),
    );
    const caps = await hub.value('system.capabilities');
    expect(caps.features.find((f: any) => f.name === 'demo')).toMatchObject({
      status: 'Available',
      tools: ['demo__echo'],
    });
    const out = await hub.call('system.capabilities', {}, AGENT);
    const system = out.ok ? (out.value as any).features.find((f: any) => f.name === 'system') : undefined;
    expect(system.tools).not.toContain('system__config');
    expect(system.tools).toContain('system__health');
  });

  it('keeps a feature status a source set before the system domain registered', async () => {
    hub = await testHub();
    hub.services.features.set({ name: 'plugins', status: 'Available', contractVersion: '1.0', description: 'x' });
    const caps = await hub.value('system.capabilities');
    expect(caps.features.find((f: any) => f.name === 'plugins').status).toBe('Available');
  });
});

describe('system.config', () => {
  const COMMENTED = '# Project settings — keep this comment\n[system]\n# lease length\ninstance_ttl_ms = 5000\n';

  it('gets the effective configuration', async () => {
    hub = await testHub({ cwd: projectWith(COMMENTED) });
    const out = await hub.value('system.config', { action: 'get' });
    expect(out.persisted).toBe(false);
    expect(out.config.system.instance_ttl_ms).toBe(5000);
    expect(out.config.server.port).toBe(7777);
  });

  it('never shows a secret: API keys and Authorization headers come back redacted, the real ones stay in effect', async () => {
    hub = await testHub({
      cwd: projectWith(
        '[agents.providers.anthropic]\napi_key = "sk-ant-real"\n[[servers]]\nname = "api"\nurl = "http://127.0.0.1:1/mcp"\nenabled = false\nheaders = { Authorization = "Bearer literal-secret" }\n',
      ),
    });
    const out = await hub.value('system.config', { action: 'get' });
    const text = JSON.stringify(out);
    expect(text).not.toContain('sk-ant-real');
    expect(text).not.toContain('literal-secret');
    expect(out.config.agents.providers.anthropic.api_key).toBe('[redacted]');
    expect(out.config.servers[0].headers.Authorization).toBe('[redacted]');
    const patched = await hub.value('system.config', { action: 'patch', patch: { system: { instance_ttl_ms: 9000 } } });
    expect(JSON.stringify(patched)).not.toContain('sk-ant-real');
    expect((hub.services.config.get() as any).agents.providers.anthropic.api_key).toBe('sk-ant-real');
  });

  it('patches in memory, applies the change to new leases and announces it', async () => {
    hub = await testHub({ cwd: projectWith(COMMENTED) });
    const events = recordEvents(hub, 'config.changed');
    const out = await hub.value('system.config', { action: 'patch', patch: { system: { instance_ttl_ms: 60_000 } } });
    expect(out).toMatchObject({ persisted: false, config: { system: { instance_ttl_ms: 60_000 } } });
    expect(out.file).toBeUndefined();
    expect(hub.services.config.get()).toMatchObject({ system: { instance_ttl_ms: 60_000 } });
    expect((await hub.value('system.register', { instanceId: 'w1', roles: [] })).ttlMs).toBe(60_000);
    expect(events).toEqual([expect.objectContaining({ type: 'config.changed', at: expect.any(String) })]);
    expect(readFileSync(hub.services.config.projectFile, 'utf8')).toBe(COMMENTED);
  });

  it('accumulates successive in-memory patches instead of starting again from the files', async () => {
    hub = await testHub({ cwd: projectWith(COMMENTED) });
    await hub.value('system.config', { action: 'patch', patch: { system: { instance_ttl_ms: 60_000 } } });
    const out = await hub.value('system.config', { action: 'patch', patch: { events: { retain: 10 } } });
    expect(out.config).toMatchObject({ system: { instance_ttl_ms: 60_000 }, events: { retain: 10 } });
  });

  it('persists a patch to the project file keeping its comments', async () => {
    hub = await testHub({ cwd: projectWith(COMMENTED) });
    const out = await hub.value('system.config', {
      action: 'patch',
      patch: { system: { instance_ttl_ms: 7000 } },
      persist: true,
    });
    expect(out.persisted).toBe(true);
    expect(out.file).toBe(hub.services.config.projectFile);
    const text = readFileSync(hub.services.config.projectFile, 'utf8');
    expect(text).toContain('# Project settings — keep this comment');
    expect(text).toContain('# lease length');
    expect(text).toMatch(/instance_ttl_ms = 7000/);
  });

  it('sets a whole configuration, in memory and persisted', async () => {
    hub = await testHub({ cwd: projectWith(COMMENTED) });
    const current = (await hub.value('system.config', { action: 'get' })).config;
    const next = { ...current, policy: { timeout_ms: 1234 } };
    const out = await hub.value('system.config', { action: 'set', value: next, persist: true });
    expect(out).toMatchObject({
      persisted: true,
      config: { policy: { timeout_ms: 1234 }, system: { instance_ttl_ms: 5000 } },
    });
    const text = readFileSync(hub.services.config.projectFile, 'utf8');
    expect(text).toContain('# Project settings — keep this comment');
    expect(text).toMatch(/timeout_ms = 1234/);
  });

  /** The tables `get` shows masked: `[auth]` whole, and an API key (its line follows). */
  const SECRET_TABLES = [
    '[auth.oauth]',
    'issuer = "https://login.example.com"',
    '[auth.oauth.roles]',
    '"switchboard:agent" = ["agent"]',
    '[agents.providers.anthropic]',
  ];

  it('round-trips get → edit → set with [auth.oauth] and secrets: masked values keep the ones in effect', async () => {
    const toml = [
      ...SECRET_TABLES,
      'api_key = "${ANT_KEY}"',
      '[[servers]]',
      'name = "first"',
      'url = "http://127.0.0.1:1/mcp"',
      'enabled = false',
      'headers = { Authorization = "Bearer ${FIRST_TOKEN}" }',
      '[[servers]]',
      'name = "second"',
      'url = "http://127.0.0.1:2/mcp"',
      'enabled = false',
      'headers = { Authorization = "Bearer second-secret" }',
      '',
    ].join('\n');
    hub = await testHub({ cwd: projectWith(toml), env: { ANT_KEY: 'sk-ant-real' } });
    const before = structuredClone(hub.services.config.get());
    const current = (await hub.value('system.config', { action: 'get' })).config;
    expect(current.auth).toBe('[redacted]');
    // The edit: a new timeout, and the servers in the other order (secrets follow their server, not their place).
    const next = {
      ...current,
      policy: { ...current.policy, timeout_ms: 4321 },
      servers: [...current.servers].reverse(),
    };
    const out = await hub.value('system.config', { action: 'set', value: next, persist: true });
    expect(JSON.stringify(out)).not.toMatch(/secret|sk-ant-real/);
    const after = hub.services.config.get() as any;
    expect(after.policy.timeout_ms).toBe(4321);
    expect(after.auth).toEqual(before.auth);
    expect(after.agents.providers.anthropic.api_key).toBe('sk-ant-real');
    expect(after.servers.map((s: any) => [s.name, s.headers.Authorization])).toEqual([
      ['second', 'Bearer second-secret'],
      ['first', 'Bearer ${FIRST_TOKEN}'], // a server's own variables are expanded when it connects
    ]);
    // The file keeps the variables as written, not the secrets they expand to, and no mask.
    const text = readFileSync(hub.services.config.projectFile, 'utf8');
    expect(text).toContain('api_key = "${ANT_KEY}"');
    expect(text).toContain('Bearer ${FIRST_TOKEN}');
    expect(text).not.toContain('sk-ant-real');
    expect(text).not.toContain('[redacted]');
  });

  it('patches with masks copied from get: a masked key stays as it is, a list of servers keeps its secrets', async () => {
    const toml = [
      ...SECRET_TABLES,
      'api_key = "sk-ant-real"',
      '[[servers]]',
      'name = "api"',
      'url = "http://127.0.0.1:1/mcp"',
      'enabled = false',
      'headers = { Authorization = "Bearer literal-secret" }',
      '',
    ].join('\n');
    hub = await testHub({ cwd: projectWith(toml) });
    const before = structuredClone(hub.services.config.get()) as any;
    const current = (await hub.value('system.config', { action: 'get' })).config;
    // A patch assembled from the read: the masked table and key as shown, the servers list with one change.
    const patch = {
      auth: current.auth,
      agents: {
        providers: { anthropic: { api_key: current.agents.providers.anthropic.api_key, model: 'claude-opus-5' } },
      },
      servers: current.servers.map((s: any) => ({ ...s, timeout_ms: 4000 })),
    };
    expect(patch.auth).toBe('[redacted]');
    await hub.value('system.config', { action: 'patch', patch, persist: true });
    const after = hub.services.config.get() as any;
    expect(after.auth).toEqual(before.auth);
    expect(after.agents.providers.anthropic).toMatchObject({ api_key: 'sk-ant-real', model: 'claude-opus-5' });
    expect(after.servers[0]).toMatchObject({ timeout_ms: 4000, headers: { Authorization: 'Bearer literal-secret' } });
    expect(readFileSync(hub.services.config.projectFile, 'utf8')).not.toContain('[redacted]');
  });

  it('masks the password of a URL and keeps the one in effect when get → set or a patch sends it back', async () => {
    const toml = [
      '[[servers]]',
      'name = "remote"',
      'url = "https://bot:${BOT_PASS}@127.0.0.1:1/mcp"',
      'enabled = false',
      '[[servers]]',
      'name = "db"',
      'command = "db-mcp"',
      'enabled = false',
      'env = { DATABASE_URL = "postgres://app:pg-secret@db.internal:5432/prod" }',
      '',
    ].join('\n');
    hub = await testHub({ cwd: projectWith(toml) });
    const current = (await hub.value('system.config', { action: 'get' })).config;
    expect(current.servers.map((s: any) => s.url ?? s.env.DATABASE_URL)).toEqual([
      'https://bot:[redacted]@127.0.0.1:1/mcp',
      'postgres://app:[redacted]@db.internal:5432/prod',
    ]);
    await hub.value('system.config', {
      action: 'set',
      value: { ...current, policy: { ...current.policy, timeout_ms: 4321 } },
      persist: true,
    });
    await hub.value('system.config', {
      action: 'patch',
      patch: { servers: current.servers.map((s: any) => ({ ...s, timeout_ms: 4000 })) },
      persist: true,
    });
    const after = hub.services.config.get() as any;
    expect(after.policy.timeout_ms).toBe(4321);
    expect(after.servers.map((s: any) => [s.timeout_ms, s.url ?? s.env.DATABASE_URL])).toEqual([
      [4000, 'https://bot:${BOT_PASS}@127.0.0.1:1/mcp'],
      [4000, 'postgres://app:pg-secret@db.internal:5432/prod'],
    ]);
    const text = readFileSync(hub.services.config.projectFile, 'utf8');
    expect(text).toContain('https://bot:${BOT_PASS}@127.0.0.1:1/mcp');
    expect(text).not.toContain('[redacted]');
  });

  it('rejects an invalid value naming the key, and changes nothing', async () => {
    hub = await testHub({ cwd: projectWith(COMMENTED) });
    const events = recordEvents(hub, 'config.changed');
    const before = structuredClone(hub.services.config.get());
    for (const patch of [{ server: { port: 'x' } }, { system: { instance_ttl_ms: 5 } }]) {
      const out = await hub.call('system.config', { action: 'patch', patch, persist: true });
      expect(out.ok).toBe(false);
      if (out.ok) continue;
      expect(out.error.code).toBe('INVALID_INPUT');
      expect(out.error.message).toContain(
        Object.keys(patch)[0] === 'server' ? 'server.port' : 'system.instance_ttl_ms',
      );
    }
    expect(hub.services.config.get()).toEqual(before);
    expect(readFileSync(hub.services.config.projectFile, 'utf8')).toBe(COMMENTED);
    expect(events).toEqual([]);
  });

  it('rejects an unknown key naming it, and changes nothing', async () => {
    hub = await testHub({ cwd: projectWith(COMMENTED) });
    const before = structuredClone(hub.services.config.get());
    const out = await hub.call('system.config', {
      action: 'patch',
      patch: { system: { bogus_key: 1 } },
      persist: true,
    });
    expect(out.ok ? undefined : out.error.code).toBe('INVALID_INPUT');
    if (!out.ok) expect(out.error.message).toContain('bogus_key');
    const set = await hub.call('system.config', { action: 'set', value: { ...before, nonsense: true } });
    expect(set.ok ? undefined : set.error.message).toContain('nonsense');
    expect(hub.services.config.get()).toEqual(before);
    expect(readFileSync(hub.services.config.projectFile, 'utf8')).toBe(COMMENTED);
  });

  it('names the missing field for set and patch', async () => {
    hub = await testHub();
    const set = await hub.call('system.config', { action: 'set' });
    expect(set.ok ? undefined : set.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining("'value'"),
    });
    const patch = await hub.call('system.config', { action: 'patch' });
    expect(patch.ok ? undefined : patch.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining("'patch'"),
    });
    const bad = await hub.call('system.config', { action: 'remove' });
    expect(bad.ok ? undefined : bad.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('action'),
    });
  });

  it('answers NOT_FOUND to a principal without the admin role, like an unknown tool', async () => {
    hub = await testHub();
    const out = await hub.call('system.config', { action: 'get' }, AGENT);
    const unknown = await hub.call('system.nonexistent', {}, AGENT);
    expect(out.ok ? undefined : out.error.code).toBe('NOT_FOUND');
    expect(unknown.ok ? undefined : unknown.error.message.replace('system.nonexistent', 'system.config')).toBe(
      out.ok ? undefined : out.error.message,
    );
    const admin = await hub.call('system.config', { action: 'get' }, { id: 'ops', roles: ['admin'] });
    expect(admin.ok).toBe(true);
  });

  it('re-arms the expiry timer when the ttl changes', async () => {
    hub = await testHub();
    const events = recordEvents(hub, 'instance.expired');
    await hub.value('system.config', { action: 'patch', patch: { system: { instance_ttl_ms: 150 } } });
    await hub.value('system.register', { instanceId: 'w1', roles: [] });
    // With the default 30 s ttl the timer ticks every second; after the patch it ticks every ~37 ms.
    await until(() => events.length > 0, { timeoutMs: 700, what: 'an instance.expired event' });
  });
});
