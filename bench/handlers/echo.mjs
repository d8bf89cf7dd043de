// The benchmark's one capability for Switchboard: `echo`, the same contract as the bare SDK server's tool
// (input and output schema, result as structuredContent + text). Plain .mjs so no TypeScript loader runs.
import { defineCapability, z } from 'switchboard-mcp';

export const echo = defineCapability({
  name: 'echo',
  description: 'Echo the text back.',
  input: z.object({ text: z.string().describe('What to echo') }),
  output: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true },
  handle: ({ text }) => ({ text }),
});
