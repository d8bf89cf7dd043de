// The `hook` command group: Switchboard as a coding agent's hook command (Claude Code settings.json `hooks`).
// Each subcommand reads one hook event as JSON on stdin; a fault of ours never blocks the agent (exit 0, say why).
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { loadConfig } from '../config/load.ts';
import { openProjectStore } from '../hub.ts';
import { createLogger } from '../observe/logger.ts';
import { discoverConfigured } from '../sources/plugins/discover.ts';
import { dispatchEvent, type HookEvent, HookEventSchema } from '../sources/plugins/dispatch.ts';
import { HanSettings, logFileIssues } from '../sources/plugins/han-settings.ts';
import { findHook } from '../sources/plugins/index.ts';
import { preToolUse as preToolUseOutput, userPromptSubmit as userPromptOutput } from '../sources/scripts/hooks.ts';

/** Largest event accepted on stdin; Claude Code's events are a few KB (tool inputs included). */
const MAX_EVENT_BYTES = 8 * 1024 * 1024;

export interface HookCommandOptions {
  /** The `--cwd` option. */
  cwd: string;
  /** Whether `--cwd` was given; otherwise the event's own `cwd` names the project. */
  cwdGiven: boolean;
  stdin?: NodeJS.ReadableStream;
  env?: NodeJS.ProcessEnv;
}

/** Read all of stdin (bounded); undefined when it is larger than allowed. */
async function readAll(stream: NodeJS.ReadableStream): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > MAX_EVENT_BYTES) return undefined;
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Read stdin as JSON (bounded); undefined, with the reason logged, when it is empty, too large or not JSON. */
async function readHookJson(stream: NodeJS.ReadableStream, logger: Logger): Promise<unknown> {
  const text = await readAll(stream);
  if (text === undefined) {
    logger.warn(`hook event ignored: stdin is larger than ${MAX_EVENT_BYTES} bytes`);
    return undefined;
  }
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    logger.warn(
      `hook event ignored: stdin is not JSON (${(err as Error).message}); expected a Claude Code hook event object`,
    );
    return undefined;
  }
}

/**
 * Read and check a hook event from stdin. A malformed event is logged to stderr with the reason and answers
 * undefined: the caller then exits 0 without output, because our parsing fault must never block an agent.
 * Shared by every `hook` subcommand.
 *
 * @example
 * const event = await readHookEvent(process.stdin, logger);
 * if (!event) return;
 */
export async function readHookEvent(stream: NodeJS.ReadableStream, logger: Logger): Promise<HookEvent | undefined> {
  const raw = await readHookJson(stream, logger);
  if (raw === undefined) return undefined;
  const parsed = HookEventSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    logger.warn(`hook event ignored: ${issues}; expected an object with hook_event_name (e.g. "Stop")`);
    return undefined;
  }
  return parsed.data;
}

/** The project a hook event is about: `--cwd` when given, else the event's `cwd`, else the working directory. */
export function projectDirFor(event: HookEvent, opts: HookCommandOptions): string {
  if (opts.cwdGiven) return opts.cwd;
  if (event.cwd && existsSync(event.cwd) && statSync(event.cwd).isDirectory()) return resolve(event.cwd);
  return opts.cwd;
}

/**
 * `switchboard hook dispatch`: run the plugin hooks the event matches. Prints `{"decision":"block","reason"}` when
 * a Stop / SubagentStop / PostToolUse check fails, a `permissionDecision: "deny"` when a PreToolUse hook exits 2,
 * nothing when all pass; always exits 0.
 */
export async function hookDispatch(opts: HookCommandOptions): Promise<void> {
  const env = opts.env ?? process.env;
  const logger = createLogger(env.SWITCHBOARD_LOG_LEVEL ?? 'warn');
  const event = await readHookEvent(opts.stdin ?? process.stdin, logger);
  if (!event) return;
  const projectDir = projectDirFor(event, opts);
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  let store: Awaited<ReturnType<typeof openProjectStore>> | undefined;
  try {
    const { config } = loadConfig(projectDir, env);
    const discovery = discoverConfigured(projectDir, env, config.plugins);
    for (const p of discovery.problems) logger.warn({ issues: p.issues }, `plugin manifest ${p.file} is invalid`);
    const han = new HanSettings(projectDir, env);
    han.switches();
    logFileIssues(logger, [...discovery.notices, ...han.takeIssues()]);
    store = await openProjectStore(projectDir, env);
    const result = await dispatchEvent(
      { projectDir, store, env, logger, han, find: (plugin, hook) => findHook(discovery, plugin, hook) },
      discovery,
      event,
      controller.signal,
    );
    if (result.output) process.stdout.write(`${JSON.stringify(result.output)}\n`);
    else if (result.message) process.stderr.write(`${result.message}\n`);
  } catch (err) {
    // Our own failure (bad config, unreadable store): say so, but let the agent carry on.
    logger.warn({ err }, `hook dispatch failed: ${(err as Error).message}`);
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await store?.close();
    logger.flush();
  }
}

/** The script hooks' project: `--cwd` when given, else the event's own `cwd` when it is a folder. */
function scriptProjectDir(raw: unknown, opts: HookCommandOptions): string {
  const cwd = (raw as { cwd?: unknown } | undefined)?.cwd;
  if (opts.cwdGiven || typeof cwd !== 'string') return opts.cwd;
  return existsSync(cwd) && statSync(cwd).isDirectory() ? resolve(cwd) : opts.cwd;
}

/** `switchboard hook user-prompt-submit`: plain text on stdout is added to the prompt's context. */
export async function userPromptSubmit(opts: HookCommandOptions): Promise<void> {
  const env = opts.env ?? process.env;
  const raw = await readHookJson(opts.stdin ?? process.stdin, createLogger(env.SWITCHBOARD_LOG_LEVEL ?? 'warn'));
  const text = userPromptOutput(raw, { cwd: scriptProjectDir(raw, opts), env });
  if (text) process.stdout.write(`${text}\n`);
}

/** `switchboard hook pre-tool-use`: a JSON decision on stdout, or nothing to let the tool run. */
export async function preToolUse(opts: HookCommandOptions): Promise<void> {
  const env = opts.env ?? process.env;
  const raw = await readHookJson(opts.stdin ?? process.stdin, createLogger(env.SWITCHBOARD_LOG_LEVEL ?? 'warn'));
  const decision = preToolUseOutput(raw, { cwd: scriptProjectDir(raw, opts), env });
  if (decision) process.stdout.write(`${JSON.stringify(decision)}\n`);
}
