// Coding-agent hook events (Claude Code's hook JSON on stdin): which plugin hooks an event runs, and the answer —
// for Stop, SubagentStop and PostToolUse a failure blocks with the reason so the agent fixes it first; on PreToolUse
// a hook that exits 2 denies the tool, as Claude Code's own hooks do.
import { relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import type { Discovery, Plugin, PluginHook } from './discover.ts';
import { eventsOf } from './manifest.ts';
import { OUTPUT_CAP } from './output.ts';
import { renderReport } from './report.ts';
import { type HookHost, type HookReport, runHook } from './run.ts';
import { sessionEditedFiles } from './session-files.ts';

/** The fields of a Claude Code hook event Switchboard reads; the rest is kept but not used. */
export const HookEventSchema = z.looseObject({
  session_id: z.string().optional(),
  transcript_path: z.string().optional(),
  cwd: z.string().optional(),
  hook_event_name: z.string().min(1),
  tool_name: z.string().optional(),
  tool_input: z.unknown().optional(),
  stop_hook_active: z.boolean().optional(),
});
export type HookEvent = z.output<typeof HookEventSchema>;

/** Events whose hooks may answer `{"decision":"block","reason"}` to send the agent back to work. */
export const BLOCKING_EVENTS = new Set(['Stop', 'SubagentStop', 'PostToolUse']);
const TOOL_EVENTS = new Set(['PreToolUse', 'PostToolUse']);

/** How many times in a row a session's stop may be blocked before it is let through (no endless loop). */
export const MAX_CONSECUTIVE_STOP_BLOCKS = 3;

/**
 * The hooks an event runs: those whose events name it (`eventsOf`: Stop and SubagentStop when unset) and, for tool
 * events, whose tools (`PostToolUse:Edit|Write`, `tool_filter`: names or globs such as `mcp__*`) match the tool and
 * whose `file_filter` matches the edited file; in discovery order.
 *
 * @example
 * matchingHooks(discovery, { hook_event_name: 'PostToolUse', tool_name: 'Edit' }, projectDir)
 */
export function matchingHooks(
  discovery: Discovery,
  event: HookEvent,
  projectDir: string,
): { plugin: Plugin; hook: PluginHook }[] {
  const name = event.hook_event_name;
  const tool = event.tool_name;
  const file = editedFile(event, projectDir);
  const out: { plugin: Plugin; hook: PluginHook }[] = [];
  for (const plugin of discovery.plugins) {
    for (const hook of plugin.hooks) {
      const entries = eventsOf(hook.spec, plugin.format).filter((e) => e.event === name);
      if (entries.length === 0) continue;
      if (TOOL_EVENTS.has(name)) {
        // An entry without tools (`PostToolUse`) takes every tool; `PostToolUse:Edit|Write` only those.
        if (!entries.some((e) => !e.tools || (tool !== undefined && picomatch.isMatch(tool, e.tools)))) continue;
        if (hook.spec.tool_filter?.length && (tool === undefined || !picomatch.isMatch(tool, hook.spec.tool_filter)))
          continue;
        if (
          hook.spec.file_filter?.length &&
          file !== undefined &&
          !picomatch.isMatch(file, hook.spec.file_filter, { dot: true })
        )
          continue;
      }
      out.push({ plugin, hook });
    }
  }
  return out;
}

/** The file a tool event is about (Edit, Write, NotebookEdit…), relative to the project, when it names one. */
function editedFile(event: HookEvent, projectDir: string): string | undefined {
  const input = event.tool_input as Record<string, unknown> | undefined;
  const path = input?.file_path ?? input?.notebook_path ?? input?.path;
  if (typeof path !== 'string' || path === '') return undefined;
  return relative(projectDir, resolve(projectDir, path)).split(sep).join('/');
}

/** Claude Code's answer that denies a tool call, with the reason shown to the model. */
export interface DenyOutput {
  hookSpecificOutput: { hookEventName: 'PreToolUse'; permissionDecision: 'deny'; permissionDecisionReason: string };
}

/** The exit code by which a Claude Code hook command blocks (on PreToolUse: denies the tool). */
export const BLOCKING_EXIT_CODE = 2;

export interface DispatchResult {
  /** The JSON to print on stdout, when the agent must be told something; nothing is printed otherwise. */
  output?: { decision: 'block'; reason: string } | DenyOutput;
  /** A failure on an event that cannot block: the reason goes to stderr. */
  message?: string;
  reports: HookReport[];
}

/**
 * Run the hooks an event matches, one after another, and build the answer. Hooks that found nothing to run in
 * this project (no marked directory) never block.
 *
 * @example
 * const { output } = await dispatchEvent(host, discovery, event, signal);
 * if (output) process.stdout.write(JSON.stringify(output));
 */
export async function dispatchEvent(
  host: HookHost,
  discovery: Discovery,
  event: HookEvent,
  signal: AbortSignal,
  /** Which hooks the caller could call directly (the hook tools: `mayCallThrough`); none given: the operator's CLI. */
  mayRun: (capability: string) => boolean = () => true,
): Promise<DispatchResult> {
  const reports: HookReport[] = [];
  // Han's master switches in han.yml: `hooks.enabled: false` runs nothing, `cache: false` always runs,
  // `checkpoints: false` keeps ${HAN_FILES} from narrowing to the session's edits.
  const switches = host.han?.switches() ?? {};
  if (switches.enabled === false) return { reports };
  let edited: Promise<string[] | undefined> | undefined;
  const agent = {
    eventJson: JSON.stringify(event),
    sessionFiles: () => {
      if (switches.checkpoints === false) return Promise.resolve(undefined);
      edited ??= sessionEditedFiles(event, host.projectDir);
      return edited;
    },
  };
  for (const { plugin, hook } of matchingHooks(discovery, event, host.projectDir)) {
    if (!mayRun(hook.capability)) continue;
    reports.push(await runHook(host, plugin, hook, { cache: switches.cache !== false, signal, agent }));
  }
  const failed = reports.filter((r) => !r.ok && !r.nothingRan);
  if (event.hook_event_name === 'PreToolUse') {
    const denying = failed.filter((r) => r.directories.some((d) => d.exitCode === BLOCKING_EXIT_CODE));
    if (denying.length) {
      const share = Math.floor(OUTPUT_CAP / denying.length);
      const reason = [
        `${event.tool_name ?? 'The tool'} was denied by ${denying.map((r) => `${r.plugin}/${r.hook}`).join(', ')} (exit code 2):`,
        ...denying.map((r) => renderReport(r, share)),
      ].join('\n\n');
      return {
        reports,
        output: {
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision: 'deny',
            permissionDecisionReason: reason,
          },
        },
      };
    }
  }
  const isStop = event.hook_event_name === 'Stop' || event.hook_event_name === 'SubagentStop';
  const counterKey = event.session_id ? `stop-blocks\u0000${event.session_id}` : undefined;
  if (failed.length === 0) {
    if (isStop && counterKey) await host.store.hooks.setFingerprint(counterKey, null);
    return { reports };
  }
  const share = Math.floor(OUTPUT_CAP / failed.length);
  const reason = [
    `${failed.length} plugin ${failed.length === 1 ? 'check' : 'checks'} failed. Fix ${failed.length === 1 ? 'it' : 'them'} before finishing:`,
    ...failed.map((r) => renderReport(r, share)),
  ].join('\n\n');
  if (!BLOCKING_EVENTS.has(event.hook_event_name)) return { reports, message: reason };
  if (isStop && counterKey) {
    // Claude Code sets stop_hook_active while it continues because of a stop hook; count those in a row so an
    // agent that cannot fix a check is stopped from looping forever.
    const previous = event.stop_hook_active ? Number((await host.store.hooks.fingerprint(counterKey)) ?? 0) : 0;
    if (previous >= MAX_CONSECUTIVE_STOP_BLOCKS) {
      await host.store.hooks.setFingerprint(counterKey, null);
      return {
        reports,
        message: `Letting the agent stop after ${previous} blocked attempts in a row; the checks still fail:\n\n${reason}`,
      };
    }
    await host.store.hooks.setFingerprint(counterKey, String(previous + 1));
  }
  return { reports, output: { decision: 'block', reason } };
}
