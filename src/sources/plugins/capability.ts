// One capability per plugin hook: typed input {directory?, verbose?, cache?}, the hook's title and description,
// and a handler that runs it and answers isError when any directory failed (a result, not a breaker failure).
import { z } from 'zod';
import { type Capability, defineCapability, rawResult } from '../../core/capability.ts';
import type { Plugin, PluginHook } from './discover.ts';
import { hookDescription, hookTitle } from './naming.ts';
import { renderReport, reportData } from './report.ts';
import { type HookHost, runHook } from './run.ts';

/** Time added to a hook's own timeout for finding directories and writing the records. */
const GRACE_MS = 10_000;

export const HookInputSchema = z.strictObject({
  directory: z
    .string()
    .max(1000)
    .optional()
    .describe("Only run in this directory (relative to the project root, e.g. 'packages/core') and below it."),
  verbose: z.boolean().default(false).describe('Stream each output line as a log notification while it runs.'),
  cache: z
    .boolean()
    .default(true)
    .describe('Skip directories whose watched files did not change since their last success; false forces a run.'),
});

/**
 * The capability of one hook. `host` is read on every call, so a rediscovered dependency is used at once.
 *
 * @example
 * registry.add(hookCapability(() => host, plugin, plugin.hooks[0]));
 */
export function hookCapability(host: () => HookHost, plugin: Plugin, hook: PluginHook): Capability {
  return defineCapability({
    name: hook.capability,
    title: hookTitle(plugin.name, hook.name),
    description: hookDescription(plugin.name, hook.name, hook.spec, plugin.format === 'han' ? 'any' : 'all'),
    input: HookInputSchema,
    annotations: {
      title: hookTitle(plugin.name, hook.name),
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    source: `plugin:${plugin.name}`,
    feature: 'plugins',
    // Each directory start reports progress, which restarts the timer: the limit is per directory, like the hook's.
    policy: { timeoutMs: hook.spec.timeout + GRACE_MS, progressResetsTimeout: true },
    // A test run or a build takes minutes: a task for a client with MCP's tasks extension (docs/tasks.md).
    task: 'optional',
    handle: async ({ directory, verbose, cache }, ctx) => {
      const report = await runHook(host(), plugin, hook, {
        directory,
        cache,
        signal: ctx.signal,
        ...(ctx.trace ? { trace: ctx.trace } : {}),
        onProgress: (done, total, message) => {
          void ctx.progress(done, total, message).catch(() => {});
        },
        onLine: verbose
          ? (dir, line) => {
              void ctx.log('info', `[${dir}] ${line}`).catch(() => {});
            }
          : undefined,
      });
      // The text rides in the structured content too (`answer`, as in script answers): Codex shows the model only
      // structuredContent when present, and a failing hook's output is what the model needs to read.
      const text = renderReport(report);
      return rawResult([{ type: 'text', text }], {
        structuredContent: { ...reportData(report), answer: text },
        ...(report.ok ? {} : { isError: true }),
      });
    },
  }) as Capability;
}
