// `switchboard sessions list|show|tail|clean`: read and tidy the project's sub-agent sessions from the terminal.
// Reads the session store directly (the project's files, or Redis); cleaning goes through session.clean.
import { resolve } from 'node:path';
import { createHub, openProjectStore } from '../hub.ts';
import { createLogger } from '../observe/logger.ts';
import { describeEvent } from '../sources/agents/describe-event.ts';
import { sessionNameProblem } from '../sources/agents/session-name.ts';
import { readSession, sessionStoreOf } from '../sources/agents/session-store.ts';
import type { SessionMeta, TranscriptEvent, TranscriptPage } from '../sources/agents/session-types.ts';
import { CliError, colour, printJson } from './output.ts';

const CLI_PRINCIPAL = { id: 'cli', roles: ['*'], kind: 'cli' as const };

async function callTool(cwd: string, name: string, input: Record<string, unknown>): Promise<unknown> {
  const hub = await createHub({ cwd, logger: createLogger(process.env.SWITCHBOARD_LOG_LEVEL ?? 'warn') });
  try {
    const out = await hub.pipeline.call({ principal: CLI_PRINCIPAL, name, input, transport: 'cli' });
    if (!out.ok) throw new CliError(out.error.message, out.error.code === 'INVALID_INPUT' ? 2 : 1);
    return out.raw ? out.raw.structuredContent : out.value;
  } finally {
    await hub.close();
  }
}

function checkName(name: string): void {
  const problem = sessionNameProblem(name);
  if (problem) throw new CliError(problem, 2);
}

/** One transcript event as a terminal line: its time and what happened. */
function line(e: TranscriptEvent): string | undefined {
  const what = describeEvent(e);
  if (!what) return undefined;
  const time = typeof e.ts === 'string' ? e.ts.slice(11, 19) : '        ';
  return `${colour().dim(time)} ${what}`;
}

export async function sessionsList(opts: { cwd: string; json?: boolean }): Promise<void> {
  const value = await callTool(opts.cwd, 'session.list', { response_format: opts.json ? 'json' : 'markdown' });
  if (opts.json) printJson(value);
  else process.stdout.write(`${String(value)}\n`);
}

/** The meta, the last result and a summary of the transcript. */
export async function sessionsShow(name: string, opts: { cwd: string; json?: boolean }): Promise<void> {
  checkName(name);
  const hub = await createHub({ cwd: opts.cwd, logger: createLogger(process.env.SWITCHBOARD_LOG_LEVEL ?? 'warn') });
  let status: Record<string, unknown>;
  let meta: SessionMeta;
  let page: TranscriptPage;
  let where: string;
  try {
    const out = await hub.pipeline.call({
      principal: CLI_PRINCIPAL,
      name: 'agent.status',
      input: { session_name: name },
      transport: 'cli',
    });
    if (!out.ok) throw new CliError(out.error.message, out.error.code === 'INVALID_INPUT' ? 2 : 1);
    status = out.value as Record<string, unknown>;
    const sessions = sessionStoreOf(hub.services);
    meta = await readSession(sessions, name);
    page = await sessions.transcript(name);
    where = sessions.where(name);
  } finally {
    await hub.close();
  }
  const { events, skipped } = page;
  if (opts.json)
    return printJson({
      meta: { ...meta, status: status.status },
      last_result: meta.last_result ?? null,
      events: events.length,
      skipped_lines: skipped,
    });
  const out = [
    `${colour().bold(meta.session_name)} — ${status.status}`,
    `  agent     ${meta.agent ?? '(none)'}`,
    `  provider  ${meta.provider}${meta.model ? ` (${meta.model})` : ''}${meta.provider_session_id ? ` — session ${meta.provider_session_id}` : ''}`,
    `  directory ${meta.project_dir}`,
    `  created   ${meta.created_at}${meta.last_resumed_at ? `, resumed ${meta.last_resumed_at}` : ''}`,
    `  usage     ${meta.turns} model calls, ${meta.tool_calls} tool calls, ${meta.usage.input_tokens} in / ${meta.usage.output_tokens} out tokens`,
    `  files     ${where} (${events.length} events${skipped ? `, ${skipped} unreadable lines skipped` : ''})`,
  ];
  const last = meta.last_result;
  if (last?.pending_tool_calls?.length)
    out.push(
      '',
      'Waiting for tool results:',
      ...last.pending_tool_calls.map((c) => `  ${c.id} ${c.tool_name} ${JSON.stringify(c.args)}`),
    );
  if (last?.error) out.push('', `${colour().red('Error:')} ${last.error}`);
  if (last?.content) out.push('', last.content);
  process.stdout.write(`${out.join('\n')}\n`);
}

/**
 * Print the transcript (the last `lines` events) and, with --follow, new events as they are written until the
 * session stops running (or Ctrl-C). Reads the project's files, or the shared store when it holds the sessions.
 */
export async function sessionsTail(
  name: string,
  opts: { cwd: string; lines?: string; follow?: boolean; json?: boolean },
): Promise<void> {
  checkName(name);
  const n = opts.lines === undefined ? 20 : Number(opts.lines);
  if (!Number.isInteger(n) || n < 0) throw new CliError('--lines must be a whole number, e.g. -n 50', 2);
  const store = await openProjectStore(opts.cwd);
  try {
    const sessions = sessionStoreOf({ store, projectDir: resolve(opts.cwd) });
    await readSession(sessions, name); // NOT_FOUND with the usual message
    const print = (e: TranscriptEvent) => {
      if (opts.json) return process.stdout.write(`${JSON.stringify(e)}\n`);
      const text = line(e);
      if (text) process.stdout.write(`${text}\n`);
    };
    const page = await sessions.transcript(name);
    // -n counts what is printed: with the line view, events without a line (user messages) do not count.
    const shown = opts.json ? page.events : page.events.filter((e) => describeEvent(e) !== undefined);
    for (const e of n === 0 ? [] : shown.slice(-n)) print(e);
    if (!opts.follow) return;
    let next = page.next;
    let stop = false;
    const onSigint = () => {
      stop = true;
    };
    process.once('SIGINT', onSigint);
    try {
      // Poll: fs.watch misses appends on some filesystems, and a transcript grows at model speed.
      while (!stop) {
        const more = await sessions.transcript(name, next);
        next = more.next;
        for (const e of more.events) print(e);
        if (!(await sessions.lockOwner(name))?.alive) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      process.off('SIGINT', onSigint);
    }
  } finally {
    await store.close();
  }
}

export async function sessionsClean(
  name: string | undefined,
  opts: { cwd: string; all?: boolean; json?: boolean },
): Promise<void> {
  if (!name && !opts.all) throw new CliError('Name a session to delete, or pass --all to delete every session.', 2);
  if (name && opts.all) throw new CliError('Give either a session name or --all, not both.', 2);
  if (name) checkName(name);
  const value = (await callTool(opts.cwd, 'session.clean', name ? { session_name: name } : {})) as {
    removed: string[];
    skipped: { session: string; reason: string }[];
  };
  if (opts.json) return printJson(value);
  process.stdout.write(
    `Removed ${value.removed.length} session${value.removed.length === 1 ? '' : 's'}${value.removed.length ? `: ${value.removed.join(', ')}` : ''}\n`,
  );
  for (const s of value.skipped) process.stdout.write(`Kept ${s.session} (${s.reason}; cancel it first)\n`);
}
