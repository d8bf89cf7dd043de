// catalog.describe: one tool's full definition, as tools/list would show it in `full` exposure.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { toolDeclaration } from '../../../core/catalog/typescript.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { visible } from '../../../core/registry.ts';

/** `catalog.describe` — name, title, description, input and output schema and annotations of one visible tool. */
export const catalogDescribe = defineCapability({
  name: 'catalog.describe',
  title: 'Describe a tool',
  description:
    'The full definition of one tool found with catalog.search: its description, input schema (the arguments ' +
    'catalog.call takes), output schema, annotations, and its TypeScript declaration for catalog.run code.',
  input: z.object({
    name: z.string().min(1).describe('The tool name catalog.search returned (task__create; task.create works too).'),
  }),
  output: z.object({
    name: z.string(),
    title: z.string().optional(),
    description: z.string(),
    inputSchema: z.record(z.string(), z.unknown()),
    outputSchema: z.record(z.string(), z.unknown()).optional(),
    annotations: z.record(z.string(), z.unknown()).optional(),
    typescript: z.string().describe('Its declaration as a member of `tools` in catalog.run programs.'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: ({ name }, ctx) => {
    const entry = ctx.services.registry.get(name);
    // A tool the caller may not see is described exactly like one that does not exist.
    if (!entry || !visible(ctx.principal, entry.capability))
      throw new SwitchboardError('NOT_FOUND', `Unknown tool '${name}'. Find tools with catalog.search.`);
    const { capability: _capability, ...tool } = entry.tool;
    return { ...tool, typescript: toolDeclaration(tool) };
  },
});
