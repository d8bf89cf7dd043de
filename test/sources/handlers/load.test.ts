// Loading handler modules: TypeScript through tsx, every export kind, and bad modules reported by file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Registry } from '../../../src/core/registry.ts';
import { createLogger } from '../../../src/observe/logger.ts';
import { loadHandlerModules } from '../../../src/sources/handlers/load.ts';

const SRC = join(import.meta.dirname, '../../../src/index.ts');

describe('loadHandlerModules', () => {
  it('loads TypeScript and JavaScript modules, reports broken ones with file and error, and keeps going', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-handlers-'));
    writeFileSync(
      join(dir, 'a-good.ts'),
      `import { defineCapability, defineResource, z } from ${JSON.stringify(SRC)};
       const n: number = 2;
       export const twice = defineCapability({ name: 'm.twice', description: 'double', input: z.object({ x: z.number() }), handle: ({ x }) => ({ y: x * n }) });
       export const list = [defineCapability({ name: 'm.other', description: 'other', input: z.object({}), handle: () => ({}) })];
       export const res = defineResource({ uri: 'm://r', name: 'r', read: () => [{ uri: 'm://r', text: 'hi' }] });`,
    );
    writeFileSync(join(dir, 'b-broken.mjs'), 'throw new Error("exploded on import");');
    writeFileSync(join(dir, 'c-syntax.ts'), 'export const = ;');
    writeFileSync(join(dir, 'd-empty.js'), 'export const answer = 42;');
    writeFileSync(join(dir, '_private.ts'), 'throw new Error("never loaded");');
    writeFileSync(
      join(dir, 'e-dup.mjs'),
      `export default { name: 'm.twice', description: 'dup', input: { safeParse() {} }, handle() {} };`,
    );
    const registry = new Registry();
    const reports = await loadHandlerModules([dir, join(dir, 'missing-folder')], registry, createLogger('silent'));
    const by = Object.fromEntries(reports.map((r) => [r.file.split('/').pop(), r]));
    expect(Object.keys(by).sort()).toEqual(['a-good.ts', 'b-broken.mjs', 'c-syntax.ts', 'd-empty.js', 'e-dup.mjs']);
    expect(by['a-good.ts']).toMatchObject({ ok: true, capabilities: expect.arrayContaining(['m.twice', 'm.other']) });
    expect(by['b-broken.mjs']).toMatchObject({ ok: false, error: 'exploded on import' });
    expect(by['c-syntax.ts'].ok).toBe(false);
    expect(by['c-syntax.ts'].error).toBeTruthy();
    expect(by['d-empty.js']).toMatchObject({ ok: false });
    expect(by['d-empty.js'].error).toMatch(/exports nothing Switchboard can use/);
    expect(by['e-dup.mjs'].error).toMatch(/collides with 'm\.twice'/);
    expect(registry.get('m__twice')?.capability.source).toBe(`handlers:${join(dir, 'a-good.ts')}`);
    expect(registry.getResource('m://r')).toBeDefined();
  });
});
