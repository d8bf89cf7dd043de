// The catalog in one hub: what a list shows in each exposure, the search index following the registry, and the
// role and exposure filters applied to search, describe and call alike.
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Capability } from '../../src/core/capability.ts';
import { CATALOG_TOOLS, exposedTools, listedTools } from '../../src/core/catalog/exposure.ts';
import type { CallEvent, Principal } from '../../src/core/context.ts';
import { exposureFilter } from '../../src/core/name-globs.ts';
import { withProfile } from '../../src/core/profile.ts';
import { ADMIN, type TestHub, testHub } from '../helpers/hub.ts';

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

const tool = (name: string, description: string, extra: Partial<Capability> = {}): Capability => ({
  name,
  description,
  input: z.object({ text: z.string().describe('What to work on') }),
  handle: (input: any) => ({ text: input.text, by: name }),
  ...extra,
});

const names = (hits: { name: string }[]) => hits.map((h) => h.name);
/** The names a catalog.search call found; the call itself must succeed, or an empty answer would pass for a filtered one. */
const found = (out: Awaited<ReturnType<TestHub['call']>>): string[] => {
  expect(out, 'catalog.search failed').toMatchObject({ ok: true });
  return names((out as { value: { tools: { name: string }[] } }).value.tools);
};

describe('what a list shows', () => {
  it('full: every visible tool but the catalog tools; search: the pinned ones and the catalog tools', async () => {
    hub = await testHub();
    const visible = hub.services.registry.list(ADMIN);
    const full = exposedTools({ exposure: 'full', pin: [] }, visible).map((e) => e.capability.name);
    expect(full).toContain('task.create');
    expect(full.filter((n) => n.startsWith('catalog.'))).toEqual([]);
    const search = exposedTools({ exposure: 'search', pin: ['task.c*', 'system.health'] }, visible);
    expect(search.map((e) => e.capability.name).sort()).toEqual(
      [...CATALOG_TOOLS, 'system.health', 'task.claim', 'task.complete', 'task.create'].sort(),
    );
  });

  it('reads [catalog] from the live configuration on every list', async () => {
    hub = await testHub();
    const listed = () => listedTools(hub!.services.registry, hub!.config.get(), ADMIN).map((e) => e.capability.name);
    expect(listed().length).toBeGreaterThan(30);
    const set = await hub.call('system.config', {
      action: 'patch',
      patch: { catalog: { exposure: 'search', pin: ['task.list'] } },
    });
    expect(set.ok).toBe(true);
    expect(listed().sort()).toEqual([...CATALOG_TOOLS, 'task.list'].sort());
  });

  it("a profile's exposure and pin win over [catalog]'s; a profile that sets neither keeps them", async () => {
    hub = await testHub();
    const listed = (p: Principal) =>
      listedTools(hub!.services.registry, hub!.config.get(), p).map((e) => e.capability.name);
    const searching = withProfile(ADMIN, { name: 'lean', allow: [], deny: [], exposure: 'search', pin: ['task.get'] });
    expect(listed(searching).sort()).toEqual([...CATALOG_TOOLS, 'task.get'].sort());
    const plain = withProfile(ADMIN, { name: 'plain', allow: ['task.*'], deny: [] });
    expect(listed(plain)).toContain('task.create');
    expect(listed(plain).filter((n) => n.startsWith('catalog.'))).toEqual([]);
    await hub.call('system.config', {
      action: 'patch',
      patch: { catalog: { exposure: 'search', pin: ['task.list'] } },
    });
    expect(listed(plain).sort()).toEqual([...CATALOG_TOOLS, 'task.list'].sort());
  });

  it('refuses an exposure it does not know, naming the choices', async () => {
    hub = await testHub();
    const set = await hub.call('system.config', { action: 'patch', patch: { catalog: { exposure: 'some' } } });
    expect(set.ok).toBe(false);
    expect(!set.ok && set.error.message).toMatch(/catalog\.exposure.*"full"\|"search"/);
  });
});

describe('catalog.search', () => {
  it('ranks by what the tool does and says why it matched', async () => {
    hub = await testHub();
    hub.services.registry.add(tool('issues.add_comment', 'Add a comment to an issue.', { source: 'upstream:tracker' }));
    hub.services.registry.add(tool('issues.close', 'Close an issue.', { source: 'upstream:tracker' }));
    const { tools } = await hub.value('catalog.search', { query: 'comment on the issue', limit: 2 });
    expect(tools[0]).toEqual({
      name: 'issues__add_comment',
      description: 'Add a comment to an issue.',
      why: 'name: comment, issu; lead: comment, issu',
      call: 'await tools.issues__add_comment({ text })',
    });
    expect(names(tools)).toEqual(['issues__add_comment', 'issues__close']);
    // The server a tool comes from is searched too.
    const byServer = await hub.value('catalog.search', { query: 'tracker' });
    expect(byServer.tools[0].why).toContain('server: tracker');
  });

  it('follows the registry: added, replaced and removed tools', async () => {
    hub = await testHub();
    const find = async (query: string) => names((await hub!.value('catalog.search', { query })).tools);
    expect(await find('frobnicate')).toEqual([]);
    hub.services.registry.add(tool('demo.frob', 'Frobnicate the widget.'));
    expect(await find('frobnicate')).toEqual(['demo__frob']);
    hub.services.registry.add(tool('demo.frob', 'Polish the gadget.'), { replace: true });
    expect(await find('frobnicate')).toEqual([]);
    expect(await find('polish')).toEqual(['demo__frob']);
    hub.services.registry.remove('demo.frob');
    expect(await find('polish')).toEqual([]);
  });

  it('never finds its own tools, and answers invalid input naming the field', async () => {
    hub = await testHub();
    const { tools } = await hub.value('catalog.search', { query: 'catalog search describe call tool', limit: 50 });
    expect(names(tools).filter((n) => n.startsWith('catalog__'))).toEqual([]);
    const bad = await hub.call('catalog.search', { query: '' });
    expect(!bad.ok && bad.error.message).toMatch(/Invalid input for catalog__search: query/);
  });
});

describe('roles and exposure filters', () => {
  const agent: Principal = { id: 'agent-1', roles: ['agent'] };

  it('a tool the roles hide is never found, described or called', async () => {
    hub = await testHub();
    hub.services.registry.add(tool('vault.open', 'Open the vault.', { roles: ['admin'] }));
    const search = await hub.call('catalog.search', { query: 'open the vault' }, agent);
    expect(found(search)).not.toContain('vault__open');
    const adminSearch = await hub.call('catalog.search', { query: 'open the vault' }, ADMIN);
    expect(found(adminSearch)[0]).toBe('vault__open');

    const described = await hub.call('catalog.describe', { name: 'vault__open' }, agent);
    const unknown = await hub.call('catalog.describe', { name: 'vault__nothing' }, agent);
    expect(described).toEqual({
      ok: false,
      error: { code: 'NOT_FOUND', message: "Unknown tool 'vault__open'. Find tools with catalog.search." },
    });
    expect(!unknown.ok && unknown.error.code).toBe('NOT_FOUND');

    const called = await hub.call('catalog.call', { name: 'vault__open', arguments: { text: 'x' } }, agent);
    expect(!called.ok && called.error).toMatchObject({ code: 'NOT_FOUND', message: /^Unknown tool 'vault__open'/ });
    const adminCall = await hub.call('catalog.call', { name: 'vault.open', arguments: { text: 'x' } }, ADMIN);
    expect(adminCall).toEqual({ ok: true, value: { text: 'x', by: 'vault.open' } });
  });

  it('the catalog tools pass an exposure filter; what they reach does not', async () => {
    hub = await testHub();
    const sees = exposureFilter([{ allow: ['task.*'] }]);
    const narrow: Principal = { id: 'narrow', roles: ['*'], sees };
    const listed = hub.services.registry.list(narrow).map((e) => e.capability.name);
    expect(listed).toContain('catalog.search');
    expect(listed).not.toContain('system.health');
    const search = await hub.call('catalog.search', { query: 'hub health', limit: 50 }, narrow);
    expect(found(search)).not.toContain('system__health');
    const called = await hub.call('catalog.call', { name: 'system.health' }, narrow);
    expect(!called.ok && called.error.code).toBe('NOT_FOUND');
  });
});

describe('catalog.call is the call it names', () => {
  it('validates with the tool schema and reports the real tool to every observer', async () => {
    hub = await testHub();
    hub.services.registry.add(tool('demo.work', 'Do some work.'));
    const seen: string[] = [];
    hub.services.bus.subscribe((e) => {
      if (e.type === 'call') seen.push(`${e.name}:${(e as CallEvent).error?.code ?? 'ok'}`);
    });
    expect(await hub.call('catalog.call', { name: 'demo__work', arguments: { text: 'a' } })).toEqual({
      ok: true,
      value: { text: 'a', by: 'demo.work' },
    });
    const invalid = await hub.call('catalog.call', { name: 'demo__work', arguments: {} });
    expect(!invalid.ok && invalid.error.message).toMatch(/^Invalid input for demo__work: text/);
    const noName = await hub.call('catalog.call', { arguments: {} });
    expect(!noName.ok && noName.error.message).toMatch(/^Invalid input for catalog__call: name/);
    const nested = await hub.call('catalog.call', { name: 'catalog.call', arguments: {} });
    expect(!nested.ok && nested.error.message).toBe(
      "catalog.call cannot call 'catalog.call': it calls other tools itself.",
    );
    const metrics = await hub.value('system.metrics', {});
    expect(metrics.capabilities['demo.work']).toMatchObject({ calls: 2, errors: 1 });
    expect(metrics.capabilities['catalog.call']).toBeUndefined();
    expect(seen).toEqual(['demo.work:ok', 'demo.work:INVALID_INPUT', 'system.metrics:ok']);
  });
});
