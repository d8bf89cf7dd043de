// Running one hook: its dependencies first, then its command in every target directory (a few at a time), each
// with its timeout, idle timeout and cache; every directory's outcome is recorded in the Store.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import type { Logger } from 'pino';
import { argv } from '../../core/argv.ts';
import { minimalEnv, runProcess } from '../../core/process.ts';
import { type TraceContext, traceFields } from '../../core/trace-context.ts';
import type { Store } from '../../store/contract.ts';
import type { Plugin, PluginHook } from './discover.ts';
import { fingerprint, matchedFiles } from './fingerprint.ts';
import { fileIssueText, type HanSettings, logFileIssues } from './han-settings.ts';
import { HeadTail, LineSplitter } from './output.ts';
import { sessionFilesIn, usesFileList } from './session-files.ts';
import { filterByDirTest, findMarkedDirs, mapLimit, resolveInside } from './targets.ts';

/**
 * `${HAN_FILES}`: relative paths separated by spaces, each beginning with `./` when it begins with `-`, so a file a
 * caller named `--fix.js` is a path to the hook's program, never one of its options.
 */
function fileWords(files: readonly string[]): string {
  return files.map((f) => (f.startsWith('-') ? `./${f}` : f)).join(' ');
}

/** What running hooks needs from the hub (or from the `hook dispatch` command, which has no hub). */
export interface HookHost {
  projectDir: string;
  store: Store;
  /** The hub's environment; hooks get its PATH, HOME and locale, never the rest. */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Find a hook by plugin name (as declared, or its domain) and hook name, for `depends_on`. */
  find(plugin: string, hook: string): { plugin: Plugin; hook: PluginHook } | undefined;
  /** Han's per-directory override files (han.yml, han-config.yml); without it no override applies. */
  han?: HanSettings;
}

/** What an agent hook event adds to a run: the event itself, and the files the session edited. */
export interface AgentContext {
  /** The event as Claude Code sent it; the hook command reads it on stdin, as Claude Code's own hooks do. */
  eventJson: string;
  /**
   * Absolute paths the session edited (`${HAN_FILES}` narrows to them); undefined when unknown. Asked only by hooks
   * that use the file list, so a transcript is read only when one needs it.
   */
  sessionFiles(): Promise<string[] | undefined>;
}

export interface RunHookOptions {
  /** Limit to this directory (relative to the project root; must resolve inside it). */
  directory?: string;
  /** Skip directories whose `if_changed` files are unchanged since their last success. */
  cache: boolean;
  signal: AbortSignal;
  /** Every output line as it arrives, with the directory it came from (verbose mode). */
  onLine?: (directory: string, line: string) => void;
  /** A directory started or finished (also keeps an inactivity timeout alive). */
  onProgress?: (done: number, total: number, message: string) => void;
  /** Set when a coding agent's hook event runs the hook (`hook dispatch`), not a tool call. */
  agent?: AgentContext;
  /** The calling tool call's W3C trace: its commands get TRACEPARENT (and TRACESTATE), so their own spans join it. */
  trace?: TraceContext;
}

export interface DirectoryResult {
  /** Relative to the project root; `.` for the root. */
  directory: string;
  ok: boolean;
  /** Skipped: nothing changed since the last success. */
  cached: boolean;
  /** Did not run, and why: disabled by a han.yml, or the session edited no file here the hook checks. */
  skipped?: string;
  exitCode: number | null;
  timedOut: boolean;
  idleTimedOut: boolean;
  durationMs: number;
  output: string;
}

export interface HookReport {
  plugin: string;
  hook: string;
  tool: string;
  command: string;
  ok: boolean;
  /** The manifest's tip (Han tool names already rewritten to Switchboard's), shown when the hook fails. */
  tip?: string;
  /** Failing directories first, then passing ones, each group in path order. */
  directories: DirectoryResult[];
  dependencies: HookReport[];
  /** Why nothing ran, or why the hook stopped before running. */
  note?: string;
  /** True when no directory matched: the check did not happen. */
  nothingRan?: boolean;
  /** Override files (han.yml, han-config.yml) read for this run with keys that could not be used. */
  notices?: string[];
}

/** Process output kept per directory before the report is cut to size. */
const CAPTURE_KEEP = 50_000;
const CONCURRENCY = Math.max(1, Math.min(4, availableParallelism()));

const rel = (root: string, dir: string) => relative(root, dir) || '.';

/** The cache key of a hook in a directory. */
export const cacheKey = (plugin: string, hook: string, directory: string) => `${plugin}\u0000${hook}\u0000${directory}`;

/**
 * Run a hook with its dependencies. A failing directory is a result (`ok: false`), not an exception; bad input
 * (`directory` outside the project) and cancellation throw.
 *
 * @example
 * const report = await runHook(host, plugin, plugin.hooks[0], { cache: true, signal });
 * report.ok // false when any directory failed
 */
export async function runHook(
  host: HookHost,
  plugin: Plugin,
  hook: PluginHook,
  opts: RunHookOptions,
  stack: string[] = [],
): Promise<HookReport> {
  const id = `${plugin.name}/${hook.name}`;
  const report: HookReport = {
    plugin: plugin.name,
    hook: hook.name,
    tool: hook.tool,
    command: hook.spec.command,
    ok: true,
    ...(hook.spec.tip ? { tip: hook.spec.tip } : {}),
    directories: [],
    dependencies: [],
  };
  const root = resolveInside(host.projectDir, undefined);
  const base = resolveInside(host.projectDir, opts.directory);

  for (const dep of hook.spec.depends_on) {
    const depId = `${dep.plugin}/${dep.hook}`;
    if (stack.includes(depId) || depId === id) {
      return fail(report, `Dependency cycle: ${[...stack, id, depId].join(' → ')}. Remove one depends_on entry.`);
    }
    const found = host.find(dep.plugin, dep.hook);
    if (!found) {
      if (dep.optional) continue;
      return fail(
        report,
        `${id} depends on ${depId}, which is not installed or not enabled. Install that plugin, or mark the dependency optional: true.`,
      );
    }
    const depReport = await runHook(host, found.plugin, found.hook, opts, [...stack, id]);
    report.dependencies.push(depReport);
    if (!depReport.ok && !depReport.nothingRan) {
      return fail(report, `${id} did not run: its dependency ${depId} failed. Fix that first.`);
    }
  }

  const env = minimalEnv({}, host.env);
  const marked = await findMarkedDirs(root, base, hook.spec.dirs_with, plugin.format === 'han' ? 'any' : 'all');
  const dirs = await filterByDirTest(marked, hook.spec.dir_test, { signal: opts.signal, env });
  if (dirs.length === 0) {
    report.ok = false;
    report.nothingRan = true;
    const where = rel(root, base);
    report.note = hook.spec.dirs_with.length
      ? `Nothing ran: no directory under '${where}' contains ${hook.spec.dirs_with.join(plugin.format === 'han' ? ' or ' : ' and ')}${hook.spec.dir_test ? ` and passes its dir_test (${hook.spec.dir_test})` : ''}, skipping .git, node_modules and git-ignored paths.`
      : `Nothing ran: '${where}' does not pass the hook's dir_test (${hook.spec.dir_test}).`;
    return report;
  }

  let done = 0;
  const results = await mapLimit(dirs, CONCURRENCY, async (dir) => {
    const directory = rel(root, dir);
    opts.onProgress?.(done, dirs.length, `${hook.tool}: running in ${directory}`);
    const result = await runIn(host, plugin, hook, dir, directory, opts, env);
    done++;
    opts.onProgress?.(done, dirs.length, `${hook.tool}: ${directory} ${result.ok ? 'passed' : 'failed'}`);
    try {
      await host.store.hooks.record({
        plugin: plugin.name,
        hook: hook.name,
        directory,
        ok: result.ok,
        cached: result.cached || result.skipped !== undefined,
        exitCode: result.exitCode,
        durationMs: result.durationMs,
        at: new Date().toISOString(),
      });
    } catch (err) {
      // A lost record must not turn a finished check into a failure; metrics just miss one run.
      host.logger.warn({ err, plugin: plugin.name, hook: hook.name }, 'could not record a hook run');
    }
    return result;
  });
  report.directories = [...results.filter((r) => !r.ok), ...results.filter((r) => r.ok)];
  report.ok = results.every((r) => r.ok);
  const issues = host.han?.takeIssues() ?? [];
  if (issues.length) {
    logFileIssues(host.logger, issues);
    report.notices = issues.map(fileIssueText);
  }
  return report;
}

function fail(report: HookReport, note: string): HookReport {
  report.ok = false;
  report.note = note;
  return report;
}

async function runIn(
  host: HookHost,
  plugin: Plugin,
  hook: PluginHook,
  dir: string,
  directory: string,
  opts: RunHookOptions,
  baseEnv: Record<string, string>,
): Promise<DirectoryResult> {
  const started = performance.now();
  const notRun = (extra: Partial<DirectoryResult>): DirectoryResult => ({
    directory,
    ok: true,
    cached: false,
    exitCode: null,
    timedOut: false,
    idleTimedOut: false,
    durationMs: Math.round(performance.now() - started),
    output: '',
    ...extra,
  });
  const { override, from } = host.han?.resolve(plugin.name, hook.name, dir) ?? { override: {}, from: {} };
  if (override.enabled === false)
    return notRun({
      skipped: `disabled by ${rel(host.projectDir, from.enabled ?? '')} (plugins.${plugin.name}.hooks.${hook.name}.enabled: false)`,
    });
  const command = override.command ?? hook.spec.command;
  // A user's if_changed adds to the plugin's patterns, as in Han.
  const patterns = [...new Set([...hook.spec.if_changed, ...(override.if_changed ?? [])])];
  const files = await matchedFiles(dir, patterns);
  const key = cacheKey(plugin.name, hook.name, directory);
  if (opts.cache && patterns.length) {
    const stored = await host.store.hooks.fingerprint(key);
    if (stored !== undefined && stored === fingerprint(dir, files, command)) return notRun({ cached: true });
  }
  // On an agent event `${HAN_FILES}` is what the session edited here (Han's session-scoped hooks): a directory where
  // it edited nothing the hook checks is skipped; when the session's edits are unknown it is `.`, everything.
  let fileList = files.length ? fileWords(files) : '.';
  if (opts.agent && usesFileList(command)) {
    const edited = sessionFilesIn(await opts.agent.sessionFiles(), dir, patterns, existsSync);
    if (edited?.length === 0) return notRun({ skipped: 'the session edited no file here that the hook checks' });
    fileList = edited ? fileWords(edited) : '.';
  }
  // Han reads idle_timeout in seconds (its runner multiplies by 1000), in han-plugin.yml and in overrides alike.
  const idleTimeoutMs =
    override.idle_timeout === false || override.idle_timeout === 0
      ? undefined
      : override.idle_timeout !== undefined
        ? override.idle_timeout * 1000
        : hook.spec.idle_timeout !== undefined && plugin.format === 'han'
          ? hook.spec.idle_timeout * 1000
          : hook.spec.idle_timeout;
  // The command is the manifest's own text run by sh; variables reach it through the environment, so nothing a
  // caller sends is ever pasted into it.
  const env = {
    ...baseEnv,
    SWITCHBOARD_PLUGIN_ROOT: plugin.dir,
    CLAUDE_PLUGIN_ROOT: plugin.dir,
    SWITCHBOARD_PROJECT_DIR: host.projectDir,
    CLAUDE_PROJECT_DIR: host.projectDir,
    SWITCHBOARD_FILES: fileList,
    HAN_FILES: fileList,
    ...(opts.trace ? traceFields(opts.trace, { parent: 'TRACEPARENT', state: 'TRACESTATE' }) : {}),
  };
  const capture = new HeadTail(CAPTURE_KEEP);
  const lines = opts.onLine ? new LineSplitter((line) => opts.onLine?.(directory, line)) : undefined;
  const result = await runProcess('sh', argv().flag('-c').operands(command).build(), {
    signal: opts.signal,
    cwd: dir,
    env,
    input: opts.agent?.eventJson,
    timeoutMs: hook.spec.timeout,
    idleTimeoutMs,
    // The head and tail are all we keep; a test run that prints gigabytes costs no more memory than a short one.
    buffer: false,
    onOutput: (text) => {
      capture.push(text);
      lines?.push(text);
    },
  });
  lines?.flush();
  let output = capture.text();
  if (result.timedOut)
    output += `\n[Killed after ${hook.spec.timeout} ms (timeout): the whole process tree was stopped.]`;
  if (result.idleTimedOut)
    output += `\n[Killed after ${idleTimeoutMs} ms without output (idle_timeout): the whole process tree was stopped.]`;
  if (command !== hook.spec.command)
    output = `[Command from ${rel(host.projectDir, from.command ?? '')}: ${command}]\n${output}`;
  const ok = result.exitCode === 0;
  try {
    // After the run, not before: a hook that fixes files (lint --fix) leaves them as they should be cached.
    await host.store.hooks.setFingerprint(
      key,
      ok && patterns.length ? fingerprint(dir, await matchedFiles(dir, patterns), command) : null,
    );
  } catch (err) {
    host.logger.warn({ err }, 'could not store a hook fingerprint');
  }
  return {
    directory,
    ok,
    cached: false,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    idleTimedOut: result.idleTimedOut,
    durationMs: result.durationMs,
    output,
  };
}
