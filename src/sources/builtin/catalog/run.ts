// catalog.run (code mode): one program calls many tools, and only its value and console output come back to the
// model. Every `tools.NAME(args)` is a pipeline call of NAME as the caller, like catalog.call's (docs/catalog.md).
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import type { CallContext } from '../../../core/context.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import type { Outcome } from '../../../core/pipeline.ts';
import type { Entry } from '../../../core/registry.ts';

/** The catalog's own tools: a program calls the tools they reach, not them. */
const isCatalogTool = (e: Entry) => e.capability.source === 'builtin' && e.capability.name.startsWith('catalog.');

/** `catalog.run` — run a TypeScript or JavaScript program that calls tools, in a sandbox. */
export const catalogRun = defineCapability({
  name: 'catalog.run',
  title: 'Run code that calls tools',
  description:
    'Run a short TypeScript or JavaScript program that calls tools and returns only what you need: several calls, ' +
    'filtering and summing in one round trip. The code is the body of an async function: call a tool with ' +
    '`await tools.NAME(args)` (e.g. `await tools.task__list({ status: "pending" })`; a name that is not an ' +
    'identifier: `tools["my-server__x"](args)`), `return` a JSON value, `console.log` what helps. A tool answers its ' +
    'structured result (or its text, parsed when it is JSON); its error rejects with { message, code }. There is no ' +
    'file system, network, process, import or clock. catalog.describe gives a tool’s TypeScript declaration.',
  input: z.object({
    code: z
      .string()
      .min(1)
      .max(100_000)
      .describe(
        'The body of an async function, in TypeScript or JavaScript: `await tools.NAME(args)`, `return` a value.',
      ),
  }),
  output: z.object({
    value: z.unknown().describe('What the program returned (JSON; null when it returned nothing).'),
    console: z.array(z.string()).describe('What it printed with console.log/info/warn/error, one line each.'),
    calls: z.number().int().describe('How many tool calls it made.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  // The program's own limit ([catalog.run] timeout_ms, at most 10 minutes) applies; the call's would cut it short.
  policy: { timeoutMs: 600_000 },
  // Each tool call is a pipeline call as the caller: it reaches only what the caller could call directly.
  reachesOthers: true,
  handle: async ({ code }, ctx) => {
    const callTool = ctx.services.callTool;
    if (!callTool)
      throw new SwitchboardError('UNAVAILABLE', 'catalog.run needs the hub pipeline, which is not set up.');
    const { runInSandbox } = await import('../../../core/catalog/code-sandbox.ts');
    const limits = ctx.services.config.get().catalog.run;
    const names = ctx.services.registry
      .list(ctx.principal)
      .filter((e) => !isCatalogTool(e))
      .map((e) => e.tool.name);
    return runInSandbox({
      code,
      names,
      limits: {
        timeoutMs: limits.timeout_ms,
        memoryBytes: limits.memory_bytes,
        maxCalls: limits.max_calls,
        maxRunning: limits.max_running,
      },
      signal: ctx.signal,
      call: async (name, args, signal) => {
        const entry = ctx.services.registry.get(name);
        if (entry && isCatalogTool(entry))
          throw new SwitchboardError(
            'INVALID_INPUT',
            `A program cannot call ${entry.tool.name}: call the tools it would reach directly, as tools.NAME(args).`,
          );
        return answerOf(await callTool({ ...callerOf(ctx), name, input: args, signal }));
      },
    });
  },
});

/** What a tool call inherits from the program's call: the caller (principal and profile), its transport, its trace. */
function callerOf(ctx: CallContext) {
  return {
    principal: ctx.principal,
    transport: ctx.transport,
    ...(ctx.trace ? { trace: ctx.trace } : {}),
  };
}

/** A tool's outcome as the program sees it: structured value, else its text (parsed when JSON), else its blocks. */
function answerOf(outcome: Outcome): unknown {
  if (!outcome.ok) throw new SwitchboardError(outcome.error.code, outcome.error.message, outcome.error.details);
  const raw = outcome.raw;
  if (!raw) return outcome.value;
  const text = raw.content.every((b) => b.type === 'text')
    ? raw.content.map((b) => String(b.text)).join('\n')
    : undefined;
  if (raw.isError) throw new SwitchboardError('INTERNAL', text ?? 'The tool answered with an error.');
  if (raw.structuredContent !== undefined) return raw.structuredContent;
  if (text === undefined) return raw.content;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
