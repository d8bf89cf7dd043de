// One turn of a session, with its lock held: the provider call and the structured-output retries, the transcript
// (and the progress lines a synchronous caller sees), the usage folded into the meta, and the turn's end recorded
// with the lock's release in one write.
import type { AgentsConfig } from '../../config/schema.ts';
import type { LogLevel, Principal } from '../../core/context.ts';
import { toErrorInfo } from '../../core/errors.ts';
import type { TraceContext } from '../../core/trace-context.ts';
import { type PassedLimit, passCallerLimit } from '../../policy/caller-limit.ts';
import { fillPlaceholders, fillServers } from './agent-orchestrator.ts';
import type { AgentDefinition, ProviderName } from './definitions.ts';
import { describeEvent } from './describe-event.ts';
import { hubFileDirs } from './grant.ts';
import { historyOf } from './history.ts';
import type { LocalTool, Provider, TurnOutcome } from './providers/provider.ts';
import type { SessionStore } from './session-store.ts';
import type { ExtractionError, SessionMeta, ToolResultBlock, TranscriptEvent, TurnResult } from './session-types.ts';
import type { TranscriptWriter } from './transcript-writer.ts';
import { type TurnToolDeps, turnCallerLimit, turnTools } from './turn-tools.ts';

/** How a turn reports to the call that started it (a synchronous call: progress and log notifications). */
export interface CallHooks {
  /** Who asked for the turn: the agent's built-in tools never get more than this caller may see and call. */
  caller?: Principal;
  /** The W3C trace of the call that asked for the turn: its model calls carry it on (`traceparent`). */
  trace?: TraceContext;
  signal?: AbortSignal;
  progress?: (progress: number, total?: number, message?: string) => Promise<void>;
  log?: (level: LogLevel, data: unknown) => Promise<void>;
}

/** What a turn answers: a new prompt, or the results of the pending tool calls (and optionally a prompt). */
export interface TurnInput {
  prompt?: string;
  toolResults?: ToolResultBlock[];
  /** Meerkat's transient_turn_context: seen by this turn's model calls, kept out of the history. */
  context?: string;
}

export interface TurnDeps extends TurnToolDeps {
  providers: Record<ProviderName, Provider>;
  sessions: SessionStore;
  /** The turn lock's holder: every write of the turn is fenced by it. */
  owner: string;
}

type Usage = { input_tokens: number; output_tokens: number };
interface Totals {
  usage: Usage;
  modelCalls: number;
  toolCalls: number;
}

export const emptyUsage = (): Usage => ({ input_tokens: 0, output_tokens: 0 });

/** Whether the turn's end reached the store with the lock's release (else the caller unlocks). */
export interface LockState {
  released: boolean;
}

/** Run one turn to its end; never rejects for the turn's own failures (they are its result). */
export async function runTurn(
  deps: TurnDeps,
  meta: SessionMeta,
  agent: AgentDefinition | undefined,
  turn: TurnInput,
  signal: AbortSignal,
  hooks: CallHooks,
  transcript: TranscriptWriter,
  lock: LockState,
): Promise<TurnResult> {
  agent = agent && forSession(agent, meta);
  const cfg = deps.services.config.get().agents;
  const provider = deps.providers[meta.provider];
  // With telemetry on, the turn is a span in the call's trace, and the parent of its model requests.
  const agentName = agent?.name ?? meta.agent ?? undefined;
  const span = deps.services.tracer?.start(`invoke_agent${agentName ? ` ${agentName}` : ''}`, hooks.trace, {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': agentName,
    'gen_ai.provider.name': meta.provider,
    'gen_ai.request.model': meta.model ?? undefined,
    'switchboard.agent.session': meta.session_name,
  });
  const trace = span?.trace ?? hooks.trace;
  const events = turnEvents(deps, meta, hooks, transcript);
  const emit = events.emit;
  emit([
    {
      type: 'turn_start',
      provider: meta.provider,
      model: meta.model,
      ...(turn.prompt ? { prompt: turn.prompt } : {}),
      ...(turn.toolResults ? { tool_results: turn.toolResults.length } : {}),
    },
  ]);
  announce(deps, meta, 'running');
  let mcpClose: (() => Promise<void>) | undefined;
  const totals: Totals = { usage: emptyUsage(), modelCalls: 0, toolCalls: 0 };
  const add = (o: TurnOutcome) => {
    totals.usage.input_tokens += o.usage.input_tokens;
    totals.usage.output_tokens += o.usage.output_tokens;
    totals.modelCalls += o.modelCalls;
    totals.toolCalls += o.toolCalls;
    if (o.providerSessionId) meta.provider_session_id = o.providerSessionId;
  };
  let result: TurnResult;
  let limit: PassedLimit | undefined;
  try {
    // Every Switchboard the turn starts serves at most what the caller could call directly (docs/security.md rule 2):
    // claude starts the servers of agent.mcp.json and of its own settings; the API providers those of agent.mcp.json.
    if (!provider.toolLoop || Object.keys(agent?.mcpServers ?? {}).length)
      limit = await passCallerLimit(turnCallerLimit(deps.services.registry, meta.session_name, agent, hooks.caller));
    const limitEnv = limit?.env ?? {};
    const own = provider.toolLoop
      ? await turnTools(deps, meta, agent, hooks.caller, signal, emit, limitEnv, trace)
      : { tools: [] };
    mcpClose = own.close;
    const { outcome, structured, extraction } = await askModel(
      { deps, meta, agent, provider, cfg, tools: own.tools, limitEnv, trace, signal, emit, transcript },
      turn,
      add,
    );
    result = finish(meta, outcome.status, totals, {
      content: outcome.text,
      structured_output: structured,
      // Switchboard checks every answer itself and lowers no schema for a provider: nothing to warn about.
      schema_warnings: null,
      ...(extraction ? { extraction_error: extraction } : {}),
      ...(outcome.pending ? { pending_tool_calls: outcome.pending.calls } : {}),
    });
    if (outcome.pending) meta.pending = outcome.pending;
  } catch (err) {
    result = finish(meta, endStatus(signal), totals, {
      content: '',
      structured_output: null,
      schema_warnings: null,
      error: toErrorInfo(signal.aborted ? signal.reason : err).message,
    });
  } finally {
    await mcpClose?.().catch(() => {});
    await limit?.dispose().catch(() => {});
  }
  await recordEnd(deps, meta, result, totals.usage, events, transcript, lock);
  if (span) {
    span.set({
      'gen_ai.usage.input_tokens': totals.usage.input_tokens,
      'gen_ai.usage.output_tokens': totals.usage.output_tokens,
      'switchboard.agent.model_calls': totals.modelCalls,
      'switchboard.agent.tool_calls': totals.toolCalls,
      'switchboard.agent.status': result.status,
    });
    span.end(result.error === undefined ? undefined : result.status);
  }
  return result;
}

/** The agent as this session runs it: its MCP servers' placeholders filled with the session's name and parameters. */
function forSession(agent: AgentDefinition, meta: SessionMeta): AgentDefinition {
  if (!agent.mcpInline) return agent;
  const mcpServers = fillServers(agent.mcpServers, { params: meta.options.parameters, sessionId: meta.session_name });
  return { ...agent, mcpServers };
}

/** What a turn's model calls are made with, besides their input. */
interface Asking {
  deps: TurnDeps;
  meta: SessionMeta;
  agent: AgentDefinition | undefined;
  provider: Provider;
  cfg: AgentsConfig;
  tools: LocalTool[];
  /** The caller's limit for the processes the provider starts (claude-cli). */
  limitEnv: Record<string, string>;
  trace?: TraceContext;
  signal: AbortSignal;
  emit: (events: TranscriptEvent[]) => void;
  transcript: TranscriptWriter;
}

/**
 * Ask the provider for the turn's answer; with an output_schema, check it and ask again with the problems, up to
 * `structured_output_retries` times. `add` takes each call's usage.
 */
async function askModel(
  { deps, meta, agent, provider, cfg, tools, limitEnv, trace, signal, emit, transcript }: Asking,
  turn: TurnInput,
  add: (o: TurnOutcome) => void,
): Promise<{ outcome: TurnOutcome; structured: unknown; extraction?: ExtractionError }> {
  const schema = meta.options.output_schema;
  // Structured output (and Ajv with it) is loaded only for sessions that have an output_schema.
  const so = schema ? await import('./structured-output.ts') : undefined;
  const system = [
    agent?.systemPrompt &&
      fillPlaceholders(agent.systemPrompt, { params: meta.options.parameters, sessionId: meta.session_name }),
    meta.options.system_prompt,
    so && schema ? so.schemaInstruction(schema, meta.options.output_schema_name) : undefined,
  ]
    .filter((s) => s?.trim())
    .join('\n\n');
  // The model sees the conversation as stored: what this turn emitted so far is written first.
  // A new session's first model call has no history yet: no read (on Redis, one round trip less per start).
  let fresh = meta.last_resumed_at === null;
  const history = async () => {
    const skip = fresh || !provider.toolLoop;
    fresh = false;
    if (skip) return [];
    await transcript.flush();
    return historyOf((await deps.sessions.transcript(meta.session_name)).events);
  };
  const hubDirs = hubFileDirs(deps.services.projectDir, deps.services.config.get(), deps.env);
  const request = async (
    prompt: string | undefined,
    toolResults: ToolResultBlock[] | undefined,
    turnContext?: string,
  ) => ({
    meta,
    agent,
    ...(system ? { systemPrompt: system } : {}),
    ...(meta.model ? { model: meta.model } : {}),
    maxTokens: meta.options.max_tokens ?? agent?.max_tokens ?? cfg.max_tokens,
    maxTokensExplicit: Boolean(meta.options.max_tokens ?? agent?.max_tokens),
    ...(prompt ? { prompt } : {}),
    ...(toolResults ? { toolResults } : {}),
    ...(turnContext ? { turnContext } : {}),
    history: await history(),
    callbackTools: meta.options.tools,
    localTools: tools,
    limitEnv,
    ...(trace ? { trace } : {}),
    maxModelCalls: cfg.max_model_calls,
    signal,
    env: deps.env,
    config: cfg,
    hubDirs,
    emit,
  });
  // The turn context goes to the turn's own model calls, not to the structured-output retries (as in Meerkat).
  let outcome = await provider.runTurn(await request(turn.prompt, turn.toolResults, turn.context));
  add(outcome);
  let structured: unknown = null;
  let extraction: ExtractionError | undefined;
  if (so && schema && outcome.status === 'completed') {
    let check = so.checkOutput(outcome.text, schema);
    let attempts = 1;
    for (; check.problems.length && attempts <= meta.options.structured_output_retries; attempts++) {
      emit([{ type: 'structured_retry', attempt: attempts, problems: check.problems }]);
      outcome = await provider.runTurn(await request(so.retryPrompt(check.problems), undefined));
      add(outcome);
      if (outcome.status !== 'completed') break;
      check = so.checkOutput(outcome.text, schema);
    }
    // As Meerkat: the turn completed; what still fails is no structured_output but an extraction_error.
    if (outcome.status === 'completed' && check.problems.length)
      extraction = { last_output: outcome.text, attempts, reason: check.problems.join('; ') };
    else if (outcome.status === 'completed') structured = check.value;
  }
  return { outcome, structured, extraction };
}

interface TurnEvents {
  emit: (events: TranscriptEvent[]) => void;
  /** Settles when the provider session id the turn learned is stored (at once when there is none). */
  providerIdSaved: () => Promise<void>;
}

/**
 * The turn's `emit`: events go to the transcript and, for a synchronous caller, become progress and log lines.
 * A provider that names its session before starting it gets that id into the stored meta at once, so a turn cut
 * short (a crash, a cancel) resumes the provider's own session instead of starting a new one.
 */
function turnEvents(deps: TurnDeps, meta: SessionMeta, hooks: CallHooks, transcript: TranscriptWriter): TurnEvents {
  let step = 0;
  let providerIdSaved: Promise<void> = Promise.resolve();
  const emit = (events: TranscriptEvent[]) => {
    transcript.append(events);
    for (const e of events) {
      if (e.type === 'provider_start' && typeof e.provider_session_id === 'string' && !meta.provider_session_id) {
        meta.provider_session_id = e.provider_session_id;
        providerIdSaved = deps.sessions
          .put(meta, { holder: deps.owner })
          .catch((err) =>
            deps.services.logger.warn({ err, session: meta.session_name }, 'could not record the provider session id'),
          );
      }
      if (!hooks.progress && !hooks.log) continue;
      const line = describeEvent(e);
      if (!line) continue;
      hooks.progress?.(++step, undefined, line).catch(() => {});
      hooks.log?.('info', { session: meta.session_name, event: e.type, message: line }).catch(() => {});
    }
  };
  return { emit, providerIdSaved: () => providerIdSaved };
}

/** How a turn that threw ended: cancelled (a cancel), interrupted (the hub stopped, the lock was lost) or failed. */
function endStatus(signal: AbortSignal): SessionMeta['status'] {
  if (!signal.aborted) return 'failed';
  const code = toErrorInfo(signal.reason).code;
  return code === 'CANCELLED' ? 'cancelled' : code === 'UNAVAILABLE' ? 'interrupted' : 'failed';
}

/** Write `turn_end`, then the meta and the lock's release in one step: nobody sees the turn over without its result. */
async function recordEnd(
  deps: TurnDeps,
  meta: SessionMeta,
  result: TurnResult,
  usage: Usage,
  events: TurnEvents,
  transcript: TranscriptWriter,
  lock: LockState,
): Promise<void> {
  const name = meta.session_name;
  events.emit([{ type: 'turn_end', status: result.status, usage, ...(result.error ? { error: result.error } : {}) }]);
  try {
    await transcript.flush();
  } catch (err) {
    deps.services.logger.error({ err, session: name }, 'could not write the end of an agent turn');
  }
  try {
    await events.providerIdSaved();
    await deps.sessions.put(meta, { holder: deps.owner, release: true });
    lock.released = true;
  } catch (err) {
    deps.services.logger.error({ err, session: name }, 'could not record the end of an agent turn');
  }
  announce(deps, meta, result.status, usage);
}

/** Publish `agent.turn` on the hub's bus (the event log, `switchboard events tail`, other subscribers). */
function announce(deps: TurnDeps, meta: SessionMeta, status: string, usage?: Usage): void {
  deps.services.bus.publish({
    type: 'agent.turn',
    session: meta.session_name,
    agent: meta.agent,
    provider: meta.provider,
    status,
    ...(usage ? { usage } : {}),
    at: new Date().toISOString(),
  });
}

/** Fold a turn's totals into the meta and build its result. */
function finish(
  meta: SessionMeta,
  status: SessionMeta['status'],
  totals: Totals,
  rest: Pick<
    TurnResult,
    'content' | 'structured_output' | 'schema_warnings' | 'extraction_error' | 'pending_tool_calls' | 'error'
  >,
): TurnResult {
  meta.status = status;
  meta.turns += totals.modelCalls;
  meta.tool_calls += totals.toolCalls;
  meta.usage = {
    input_tokens: meta.usage.input_tokens + totals.usage.input_tokens,
    output_tokens: meta.usage.output_tokens + totals.usage.output_tokens,
  };
  const result: TurnResult = {
    session_id: meta.session_name,
    status,
    turns: totals.modelCalls,
    tool_calls: totals.toolCalls,
    usage: totals.usage,
    ...rest,
    provider_session_id: meta.provider_session_id,
    finished_at: new Date().toISOString(),
  };
  if (!result.pending_tool_calls) delete result.pending_tool_calls;
  if (!result.error) delete result.error;
  meta.last_result = result;
  return result;
}
