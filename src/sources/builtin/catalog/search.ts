// catalog.search: find tools by what the caller wants done, among those it may see.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { callHint } from '../../../core/catalog/typescript.ts';
import type { Registry } from '../../../core/registry.ts';

const HitSchema = z.object({
  name: z.string().describe('The tool name to pass to catalog.describe and catalog.call.'),
  title: z.string().optional(),
  description: z.string().describe('The first sentence of its description.'),
  why: z.string().describe('Which words of the query matched which fields of the tool.'),
  call: z.string().describe('How catalog.run code calls it, its required arguments named.'),
});

/** `catalog.search` — BM25 over names, titles, descriptions, parameters and servers. */
export const catalogSearch = defineCapability({
  name: 'catalog.search',
  title: 'Search the tool catalog',
  description:
    'Find the tools that can do something, described in plain words ("add a comment to the issue", "run the tests"). ' +
    'Returns the best matches, best first, each with its name, title, one-line description and why it matched. ' +
    'Then read one with catalog.describe (its input schema) and run it with catalog.call.',
  input: z.object({
    query: z.string().trim().min(1).max(500).describe('What you want to do, in a few words.'),
    limit: z.number().int().min(1).max(50).default(5).describe('How many tools to return (default 5).'),
  }),
  output: z.object({ tools: z.array(HitSchema) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: async ({ query, limit }, ctx) => {
    // Loaded on the first search: a hub whose clients never search does not pay for the index at start.
    const { catalogIndexOf } = await import('../../../core/catalog/search-index.ts');
    // A search before the first list sees what the list would: upstream servers that are still connecting.
    await ctx.services.catalogReady?.();
    const hits = catalogIndexOf(ctx.services.registry).search(query, ctx.principal, limit);
    return { tools: hits.map((hit) => ({ ...hit, call: callHintFor(ctx.services.registry, hit.name) })) };
  },
});

/** `await tools.NAME({ required })` for a hit (its schema from the registry, where the search found it). */
function callHintFor(registry: Registry, name: string): string {
  return callHint(name, registry.get(name)?.tool.inputSchema ?? {});
}
