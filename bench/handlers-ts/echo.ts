// The benchmark's `echo` capability as a TypeScript handler, the form users write (bench/cold-start.mjs compares it
// with bench/handlers/echo.mjs): a .ts handler is loaded through tsx's loader hooks, which Node 20 runs on a thread
// of their own.
import { defineCapability, z } from 'switchboard-mcp';

export const echo = defineCapability({
  name: 'echo',
  description: 'Echo the text back.',
  input: z.object({ text: z.string().describe('What to echo') }),
  output: z.object({ text: z.string() }),
  annotations: { readOnlyHint: true },
  handle: ({ text }: { text: string }) => ({ text }),
});
