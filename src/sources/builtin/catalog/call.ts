// catalog.call: run a tool found with catalog.search. The pipeline turns the call into the call of the named tool
// before lookup (`forwards`), so roles, limits, breaker, timeout, audit and metrics are that tool's own.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { describeIssues } from '../../../core/pipeline.ts';

const input = z.object({
  name: z.string().min(1).describe('The tool name catalog.search returned.'),
  arguments: z
    .record(z.string(), z.unknown())
    .default({})
    .describe('The tool arguments, as its input schema (catalog.describe) says.'),
});

/** `catalog.call` — call a tool by name; answered exactly as a direct call of that tool. */
export const catalogCall = defineCapability({
  name: 'catalog.call',
  title: 'Call a tool from the catalog',
  description:
    'Call a tool found with catalog.search, with the arguments its input schema (catalog.describe) asks for. ' +
    'The answer is the tool’s own, as if it had been called directly.',
  input,
  forwards: (raw) => {
    const parsed = input.safeParse(raw);
    if (!parsed.success) {
      const { message, issues } = describeIssues(parsed.error.issues);
      throw new SwitchboardError('INVALID_INPUT', `Invalid input for catalog__call: ${message}`, { issues });
    }
    return { name: parsed.data.name, input: parsed.data.arguments };
  },
  handle: () => {
    // The pipeline forwards every call before it gets here.
    throw new SwitchboardError('INTERNAL', 'catalog.call ran without being forwarded.');
  },
});
