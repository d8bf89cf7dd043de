// `switchboard agents run|list`: run a sub-agent turn in-process with a live view of its events on stderr
// (tool calls, tokens) and the answer on stdout; list the project's agent definitions.
import { toErrorInfo } from '../core/errors.ts';
import type { Outcome } from '../core/pipeline.ts';
import { createHub, type Hub } from '../hub.ts';
import { createLogger } from '../observe/logger.ts';
import { sessionNameProblem } from '../sources/agents/session-name.ts';
import { sessionStoreOf } from '../sources/agents/session-store.ts';
import { CliError, colour, printJson } from './output.ts';

const CLI_PRINCIPAL = { id: 'cli', roles: ['*'], kind: 'cli' as const };

export interface RunOptions {
  cwd: string;
  session?: string;
  provider?: string;
  model?: string;
  maxTokens?: string;
  builtins?: boolean;
  json?: boolean;
  quiet?: boolean;
}

/** A session name for a run without --session: the agent's name and the time, in the allowed characters. */
export function defaultSessionName(agent: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${agent.replace(/[^A-Za-z0-9_-]/g, '-')}-${stamp}`.slice(-60);
}

function open(cwd: string): Promise<Hub> {
  return createHub({ cwd, logger: createLogger(process.env.SWITCHBOARD_LOG_LEVEL ?? 'warn') });
}

/** Throw a CliError for a failed outcome (exit 2 for bad input). */
function unwrap(outcome: Outcome): unknown {
  if (outcome.ok) {
    if (outcome.raw?.isError) {
      const text = outcome.raw.content.map((c) => String(c.text ?? '')).join('\n');
      throw new CliError(text, 1);
    }
    return outcome.raw ? outcome.raw.structuredContent : outcome.value;
  }
  throw new CliError(outcome.error.message, outcome.error.code === 'INVALID_INPUT' ? 2 : 1);
}

/**
 * Run one turn of `agent` (a new session, or the next turn of `--session` when it exists). Events stream to stderr
 * as they happen; the final answer goes to stdout (or the whole result with --json). Ctrl-C cancels the turn.
 */
export async function agentsRun(agent: string, prompt: string[], opts: RunOptions): Promise<void> {
  const text = prompt.join(' ').trim();
  if (!text)
    throw new CliError('Give the prompt after the agent name: switchboard agents run reviewer "Review src/"', 2);
  const session = opts.session ?? defaultSessionName(agent);
  const problem = sessionNameProblem(session);
  if (problem) throw new CliError(`--session: ${problem}`, 2);
  const hub = await open(opts.cwd);
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  const started = Date.now();
  const live = (line: string) => {
    if (!opts.quiet)
      process.stderr.write(
        `${colour('stderr').dim(`[${((Date.now() - started) / 1000).toFixed(1)}s]`)} ${colourLine(line)}\n`,
      );
  };
  try {
    const exists = (await sessionStoreOf(hub.services).get(session)) !== undefined;
    const name = exists ? 'agent.resume' : 'agent.start';
    if (exists && opts.builtins)
      throw new CliError(`--builtins is fixed when a session starts; session ${session} exists (start a new one).`, 2);
    // A resume takes provider, model and max tokens too: they run this turn and stay the session's.
    const chosen = {
      ...(opts.provider ? { provider: opts.provider } : {}),
      ...(opts.model ? { model: opts.model } : {}),
      ...(opts.maxTokens ? { max_tokens: Number(opts.maxTokens) } : {}),
    };
    const input = exists
      ? { session_name: session, prompt: text, ...chosen }
      : {
          session_name: session,
          agent_name: agent,
          prompt: text,
          ...chosen,
          ...(opts.builtins ? { enable_builtins: true } : {}),
        };
    live(`${exists ? 'resuming' : 'starting'} session ${colour('stderr').bold(session)} (agent ${agent})`);
    const outcome = await hub.pipeline.call({
      principal: CLI_PRINCIPAL,
      name,
      input,
      transport: 'cli',
      signal: controller.signal,
      progress: async (_p, _t, message) => {
        if (message) live(message);
      },
    });
    if (!outcome.ok && controller.signal.aborted)
      throw new CliError(`Cancelled; resume with --session ${session}.`, 130);
    const result = unwrap(outcome) as {
      content?: string;
      usage?: { input_tokens: number; output_tokens: number };
      status?: string;
    };
    if (opts.json) return printJson(result);
    live(
      `${result.status} — ${result.usage?.input_tokens ?? 0} in / ${result.usage?.output_tokens ?? 0} out tokens — session ${session}`,
    );
    process.stdout.write(`${result.content ?? ''}\n`);
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(toErrorInfo(err).message, 1);
  } finally {
    process.off('SIGINT', onSigint);
    await hub.close();
  }
}

/** The live view's colour for a line of progress (stderr). */
function colourLine(line: string): string {
  if (line.startsWith('tool result')) return colour('stderr').dim(line);
  if (line.startsWith('tool ')) return colour('stderr').cyan(line);
  if (line.startsWith('turn failed') || line.includes('(error)')) return colour('stderr').red(line);
  return line;
}

/** `switchboard agents list`: the agent definitions, broken ones included. */
export async function agentsList(opts: { cwd: string; json?: boolean }): Promise<void> {
  const hub = await open(opts.cwd);
  try {
    const value = unwrap(
      await hub.pipeline.call({
        principal: CLI_PRINCIPAL,
        name: 'agent.list',
        input: { response_format: opts.json ? 'json' : 'markdown' },
        transport: 'cli',
      }),
    );
    if (opts.json) printJson(value);
    else process.stdout.write(`${String(value)}\n`);
  } finally {
    await hub.close();
  }
}
