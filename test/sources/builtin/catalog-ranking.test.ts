// The ranking among servers and the hub's own tools (issue 33): a filesystem server and a git server of our own
// (test/fixtures/catalog-servers.ts) registered as an upstream server's tools are, beside every built-in tool of a
// hub. Requests never name the tool; the built-ins must not drown the servers, nor lose their own requests.
// The public sets (MetaTool, LiveMCPBench) are measured by bench/catalog-public.mjs where ../shared exists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FIXTURE_QUERIES, fixtureTools } from '../../fixtures/catalog-servers.ts';
import { ADMIN, type TestHub, testHub } from '../../helpers/hub.ts';

describe('catalog.search ranks servers beside the built-ins', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await testHub();
    const registry = hub.services.registry;
    registry.batch(() => {
      for (const t of fixtureTools())
        registry.add({
          name: `${t.server}.${t.name}`,
          description: t.description,
          input: z.object({}).passthrough(),
          inputJsonSchema: t.inputSchema,
          source: `upstream:${t.server}`,
          feature: 'upstream',
          handle: () => ({}),
        });
    });
  });
  afterAll(() => hub?.close());

  const first3 = async (query: string): Promise<string[]> => {
    const { tools } = await hub.value('catalog.search', { query, limit: 3 });
    return tools.map((t: { name: string }) => t.name);
  };

  it('has the built-ins in the catalog', () => {
    const names = hub.services.registry.list(ADMIN).map((e) => e.tool.name);
    expect(names).toEqual(expect.arrayContaining(['task__create', 'script__status', 'files__make_dir', 'vcs__log']));
  });

  it.each(FIXTURE_QUERIES)('"$query" → $expected in the first three', async ({ query, expected }) => {
    expect(await first3(query)).toContain(expected);
  });

  it('puts the right tool first for ≥ 75 % of the requests, and first for the two of the issue and the built-ins’', async () => {
    const misses: string[] = [];
    for (const { query, expected } of FIXTURE_QUERIES) {
      const names = await first3(query);
      if (names[0] !== expected) misses.push(`${query} → ${names.join(', ')} (want ${expected})`);
    }
    expect(1 - misses.length / FIXTURE_QUERIES.length, misses.join('\n')).toBeGreaterThanOrEqual(0.75);
    for (const query of ['make sure a nested folder path exists', 'show the history of past commits', 'create a task'])
      expect(misses.filter((m) => m.startsWith(`${query} →`))).toEqual([]);
  });

  it('counts a tool’s name and first sentence above the boilerplate every tool of its server repeats', async () => {
    // "allowed directories" is in every files tool; only `roots` says it in its first sentence.
    expect((await first3('allowed directories'))[0]).toBe('files__roots');
  });
});
