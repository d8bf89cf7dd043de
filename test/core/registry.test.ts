// The registry: one catalog, collisions refused with both sources named, change events batched, roles filter.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../src/core/capability.ts';
import { Registry } from '../../src/core/registry.ts';

const cap = (name: string, extra: Record<string, unknown> = {}) =>
  defineCapability({
    name,
    description: `${name} test`,
    input: z.object({ a: z.string().optional() }),
    handle: () => ({}),
    ...extra,
  });

describe('Registry', () => {
  it('finds a capability by capability name and by tool name, with JSON Schema from Zod', () => {
    const r = new Registry();
    expect(r.add(cap('demo.one'))).toEqual({ ok: true, toolName: 'demo__one' });
    expect(r.get('demo.one')?.tool.name).toBe('demo__one');
    expect(r.get('demo__one')?.capability.name).toBe('demo.one');
    expect(r.get('demo__one')?.tool.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
  });

  it('keeps the reverse map for cut names', () => {
    const r = new Registry();
    const long = `demo.${'z'.repeat(90)}`;
    const res = r.add(cap(long));
    expect(res.ok).toBe(true);
    if (res.ok) expect(r.get(res.toolName)?.capability.name).toBe(long);
  });

  it('refuses a duplicate naming both sources, and replaces on request', () => {
    const r = new Registry();
    r.add(cap('demo.one', { source: 'first.ts' }));
    const dup = r.add(cap('demo.one', { source: 'second.ts' }));
    expect(dup.ok).toBe(false);
    if (!dup.ok) expect(dup.message).toMatch(/second\.ts.*first\.ts/);
    expect(r.add(cap('demo.one', { source: 'second.ts' }), { replace: true }).ok).toBe(true);
    expect(r.get('demo.one')?.capability.source).toBe('second.ts');
  });

  it('refuses invalid names and non-object inputs with a clear message', () => {
    const r = new Registry();
    const bad = r.add(cap('bad name'));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/Invalid capability name 'bad name'/);
    const notObject = r.add(
      defineCapability({ name: 'demo.str', description: 'x', input: z.string(), handle: () => 1 }),
    );
    expect(notObject.ok).toBe(false);
    if (!notObject.ok) expect(notObject.message).toMatch(/z\.object/);
  });

  it('emits one change event per kind for a batch, and one per change outside', () => {
    const r = new Registry();
    const seen: string[] = [];
    r.onChange((k) => seen.push(k));
    r.batch(() => {
      r.add(cap('demo.a'));
      r.add(cap('demo.b'));
    });
    expect(seen).toEqual(['tools']);
    r.remove('demo.a');
    expect(seen).toEqual(['tools', 'tools']);
    expect(r.removeSource('nothing')).toBe(0);
    expect(seen).toHaveLength(2);
  });

  it('lists only what a principal may see', () => {
    const r = new Registry();
    r.add(cap('demo.open'));
    r.add(cap('demo.admin', { roles: ['admin'] }));
    expect(r.list({ id: 'a', roles: ['agent'] }).map((e) => e.capability.name)).toEqual(['demo.open']);
    expect(r.list({ id: 'b', roles: ['admin'] })).toHaveLength(2);
    expect(r.list({ id: 'c', roles: ['*'] })).toHaveLength(2);
  });
});
