// `switchboard agents run|list|import`: run a sub-agent turn in-process with a live view of its events on stderr
// (tool calls, tokens) and the answer on stdout; list the project's agent definitions; import agent-orchestrator's.
import { existsSync } from 'node:fs';
import { toErrorInfo } from '../core/errors.ts';
import type { Outcome } from '../core/pipeline.ts';
import { createHub, type Hub } from '../hub.ts';
import { createLogger } from '../observe/logger.ts';
import { SESSION_NAME_MAX, sessionNameProblem } from '../sources/agents/session-name.ts';
import { sessionStoreOf } from '../sources/agents/session-store.ts';
import { parseKeyValues } from './input.ts';
import { CliError, colour, printJson } from './output.ts';

const CLI_PRINCIPAL = { id: 'cli', roles: ['*'], kind: 'cli' as const };

export interface RunOptions {
  cwd: string;
  session?: string;
  provider?: string;
  model?: string;
  maxTokens?: string;
  builtins?: boolean;
  /** `key=value` parameters for an agent with a parameters_schema (values that parse as JSON are used as such). */
  param?: string[];
  json?: boolean;
  quiet?: boolean;
}

/** A session name for a run without --session: the agent's name and the time, in the allowed characters. */
export function defaultSessionName(agent: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${agent.replace(/[^A-Za-z0-9_-]/g, '-')}-${stamp}`.slice(-60);
}

/**
 * The session of a run without `--session`: always a new one. The default name has the second it started in; a
 * second run in the same second gets `-2`, `-3`… instead of resuming the first (only `--session` resumes).
 */
export async function newSessionName(
  taken: (name: string) => Promise<boolean>,
  agent: string,
  now = new Date(),
): Promise<string> {
  const base = defaultSessionName(agent, now);
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '' : `-${n}`;
    // Cut from the front, as defaultSessionName does: the time and the suffix are what tell two runs apart.
    const name = `${base}${suffix}`.slice(-SESSION_NAME_MAX);
    if (!(await taken(name))) return name;
  }
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
  const parameters = opts.param?.length ? parseKeyValues(opts.param) : undefined;
  if (!text && !parameters)
    throw new CliError(
      'Give the prompt after the agent name: switchboard agents run reviewer "Review src/" (or --param key=value for an agent with a parameters_schema)',
      2,
    );
  const problem = opts.session === undefined ? undefined : sessionNameProblem(opts.session);
  if (problem) throw new CliError(`--session: ${problem}`, 2);
  const hub = await open(opts.cwd);
  const sessions = sessionStoreOf(hub.services);
  const taken = async (name: string) => (await sessions.get(name)) !== undefined;
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
    const session = opts.session ?? (await newSessionName(taken, agent));
    const exists = opts.session !== undefined && (await taken(session));
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
          ...(text ? { prompt: text } : {}),
          ...(parameters ? { parameters } : {}),
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

/** `agents import --from agent-orchestrator [DIR] [--agent NAME…] [--json]` */
export async function agentsImport(
  dir: string | undefined,
  opts: { cwd: string; from?: string; agent?: string[]; approveCommands?: boolean; json?: boolean },
): Promise<void> {
  if (opts.from !== 'agent-orchestrator')
    throw new CliError(`--from: expected agent-orchestrator${opts.from ? `, got '${opts.from}'` : ''}.`, 2);
  const { importOrchestratorAgents } = await import('../sources/agents/import-agents.ts');
  const result = importOrchestratorAgents(opts.cwd, dir, opts.agent ?? [], { approveCommands: opts.approveCommands });
  if (opts.json) return printJson(result);
  if (!existsSync(result.from))
    throw new CliError(`No agent-orchestrator agents folder at ${result.from}; pass the folder (e.g. config/agents).`);
  process.stdout.write(`Read ${result.from}\n`);
  process.stdout.write(
    result.imported.length
      ? `Imported into .switchboard/agents: ${result.imported.join(', ')}\n`
      : 'Imported nothing new.\n',
  );
  for (const c of result.commands)
    process.stdout.write(`approved ${c.agent}: server '${c.server}' runs \`${c.command}\`\n`);
  for (const s of result.skipped) process.stdout.write(`${colour().yellow('skipped')} ${s.name}: ${s.reason}\n`);
  if (result.imported.length) process.stdout.write('Check them with: switchboard agents list\n');
}
