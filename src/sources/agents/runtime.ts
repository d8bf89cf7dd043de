// The session runtime, what the agent and session tools call: start and resume a session (one turn at a time per
// session, many sessions at once), its status and result, cancel, list and clean. The parts it uses live beside it:
// the turn itself (`turn.ts`), the tools a turn runs (`turn-tools.ts`), which turns run here and their locks
// (`admission.ts`), cancels between instances (`remote-cancel.ts`), permissions (`grant.ts`) and a resume's
// overrides (`resume-override.ts`). Past ~400 lines: what is left is the session lifecycle itself,
// start to clean, each method short and each needing the others' state (the turns, the sessions, the providers);
// `launch` (a turn's timer, lock renewal and transcript wiring) is the part that could move next.
import { existsSync, statSync } from 'node:fs';
import type { AgentsConfig } from '../../config/schema.ts';
import { SwitchboardError, toErrorInfo } from '../../core/errors.ts';
import { sessionBusy, sessionRunning, sessionTaken } from '../../store/contract.ts';
import { TurnAdmission } from './admission.ts';
import { type AgentDefinition, loadDefinition, type ProviderName } from './definitions.ts';
import { type GrantContext, grant, sessionDirectory } from './grant.ts';
import type { Provider } from './providers/provider.ts';
import { type CancelReport, RemoteCancel } from './remote-cancel.ts';
import { applyOutputSchema, applyResumeOverrides } from './resume-override.ts';
import {
  answeredToolResults,
  checkSchemas,
  firstPrompt,
  type ResumeInput,
  type StartInput,
  turnContext,
  unwrapOutputSchema,
} from './session-input.ts';
import { readSession, type SessionStore, sessionStoreOf } from './session-store.ts';
import {
  META_SCHEMA_VERSION,
  type SessionMeta,
  type SessionOptions,
  type TurnLock,
  type TurnResult,
} from './session-types.ts';
import { transcriptWriter } from './transcript-writer.ts';
import { type CallHooks, emptyUsage, runTurn, type TurnDeps, type TurnInput } from './turn.ts';
import { agentProfile, type TurnToolDeps } from './turn-tools.ts';

export interface RuntimeDeps extends TurnToolDeps {
  providers: Record<ProviderName, Provider>;
}

export class AgentRuntime {
  /** Where sessions live: the project's files, or the store when it holds them (Redis). */
  readonly sessions: SessionStore;
  private readonly turns: TurnAdmission;
  private readonly remoteCancel: RemoteCancel;
  private readonly turnDeps: TurnDeps;

  constructor(private readonly deps: RuntimeDeps) {
    this.sessions = sessionStoreOf(deps.services);
    // The turn lock's owner for turns run here: this hub's instance id, the same one its lease in the store uses.
    this.turns = new TurnAdmission(deps.services, this.sessions, deps.services.instanceId);
    this.remoteCancel = new RemoteCancel(deps.services, this.sessions, this.turns, (name) => this.view(name));
    this.turnDeps = { ...deps, sessions: this.sessions, owner: this.turns.owner };
  }

  config(): AgentsConfig {
    return this.deps.services.config.get().agents;
  }

  provider(name: ProviderName): Provider {
    return this.deps.providers[name];
  }

  /** What is missing to use a provider, or undefined. */
  providerProblem(name: ProviderName): string | undefined {
    return this.deps.providers[name].problem(this.config(), this.deps.env, this.deps.services.projectDir);
  }

  /** Start a new session with its first turn. */
  async start(input: StartInput, hooks: CallHooks = {}): Promise<TurnResult> {
    const cfg = this.config();
    if (await this.sessions.get(input.session_name)) throw sessionTaken(input.session_name);
    const agent = input.agent_name ? loadDefinition(this.deps.services.projectDir, input.agent_name) : undefined;
    agentProfile(this.deps.services.config.get(), agent); // An unknown profile fails the start, before any session.
    const providerName = input.provider ?? agent?.provider ?? cfg.default_provider;
    const provider = this.deps.providers[providerName];
    this.assertConfigured(providerName);
    const tools = input.tools ?? [];
    const enableBuiltins = input.enable_builtins ?? false;
    const shell = input.builtin_config?.enable_shell ?? false;
    if (!provider.toolLoop && (tools.length || enableBuiltins))
      throw new SwitchboardError(
        'INVALID_INPUT',
        `tools and enable_builtins need an API provider (anthropic, openai or gemini); ${providerName} runs its own tools (give it MCP servers in agent.mcp.json instead).`,
      );
    if (shell && !enableBuiltins)
      throw new SwitchboardError('INVALID_INPUT', 'builtin_config.enable_shell needs enable_builtins: true.');
    const where = this.grantContext();
    const permissionMode = grant(where, agent, {
      provider: providerName,
      permission_mode: input.permission_mode,
      builtins: enableBuiltins,
      shell,
    });
    const projectDir = sessionDirectory(where, agent, input.project_dir);
    const first = await firstPrompt(agent, input);
    // The agent's output_schema (agent-orchestrator's blueprints have one) unless the call gives its own; either may
    // be Meerkat's wrapper form.
    const requested = input.output_schema ?? agent?.output_schema;
    const output = requested ? unwrapOutputSchema(requested) : undefined;
    await checkSchemas(output?.schema, tools);
    const now = new Date().toISOString();
    const options: SessionOptions = {
      ...(input.system_prompt ? { system_prompt: input.system_prompt } : {}),
      ...(input.max_tokens ? { max_tokens: input.max_tokens } : {}),
      ...(output ? { output_schema: output.schema } : {}),
      ...(output?.name ? { output_schema_name: output.name } : {}),
      ...(first.parameters ? { parameters: first.parameters } : {}),
      structured_output_retries: input.structured_output_retries ?? 2,
      tools,
      ...(permissionMode ? { permission_mode: permissionMode } : {}),
      enable_builtins: enableBuiltins,
      builtin_config: { enable_shell: shell, shell_timeout_secs: input.builtin_config?.shell_timeout_secs ?? 30 },
    };
    const meta: SessionMeta = {
      schema_version: META_SCHEMA_VERSION,
      session_name: input.session_name,
      agent: agent?.name ?? null,
      provider: providerName,
      model: input.model ?? agent?.model ?? provider.defaultModel(cfg) ?? null,
      project_dir: projectDir,
      created_at: now,
      last_resumed_at: null,
      status: 'running',
      provider_session_id: null,
      usage: emptyUsage(),
      turns: 0,
      tool_calls: 0,
      options,
    };
    const context = turnContext(input.transient_turn_context, providerName, provider.toolLoop);
    // The lock comes first: no other process may see the new session's "running" meta without its lock.
    await this.turns.admit(input.session_name, () => this.sessions.create(meta));
    return this.launch(meta, agent, { prompt: first.prompt, context }, input.async ?? false, hooks);
  }

  /** Continue a session: a new prompt, or the answers to its pending tool calls (and optionally a prompt). */
  async resume(input: ResumeInput, hooks: CallHooks = {}): Promise<TurnResult> {
    const meta = await this.view(input.session_name);
    if (this.turns.isRunning(input.session_name) || meta.status === 'running') throw sessionBusy(input.session_name);
    const prompt = input.prompt ?? '';
    const given = input.tool_results ?? [];
    if (!prompt.trim() && !given.length)
      throw new SwitchboardError(
        'INVALID_INPUT',
        'prompt: cannot be empty unless tool_results answer pending tool calls. Give a prompt to continue the conversation.',
      );
    const toolResults = answeredToolResults(meta, given);
    const agent = meta.agent ? loadDefinition(this.deps.services.projectDir, meta.agent) : undefined;
    agentProfile(this.deps.services.config.get(), agent);
    applyResumeOverrides(meta, agent, input, this.deps.providers, () => this.config());
    await applyOutputSchema(meta, input.output_schema);
    this.assertConfigured(meta.provider);
    this.recheckGrant(meta, agent);
    const context = turnContext(
      input.transient_turn_context,
      meta.provider,
      this.deps.providers[meta.provider].toolLoop,
    );
    await this.turns.admit(meta.session_name, async () => {});
    meta.last_resumed_at = new Date().toISOString();
    return this.launch(meta, agent, { prompt: prompt || undefined, toolResults, context }, input.async ?? false, hooks);
  }

  /** The session's state, waiting up to `waitMs` for a running turn to finish. */
  async status(name: string, waitMs = 0, signal?: AbortSignal): Promise<TurnResult & { running: boolean }> {
    const run = this.turns.run(name);
    if (run && waitMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      await Promise.race([
        run.done.catch(() => {}),
        new Promise<void>((r) => {
          timer = setTimeout(r, waitMs);
          onAbort = () => r();
          signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    } else if (!run && waitMs > 0) {
      // A turn of another Switchboard process (this project's files) or instance (the shared store): watch it.
      const until = Date.now() + waitMs;
      while (Date.now() < until && !signal?.aborted && (await this.view(name)).status === 'running')
        await new Promise((r) => setTimeout(r, 100));
    }
    const meta = await this.view(name);
    return { ...this.summary(meta), running: meta.status === 'running' };
  }

  /** A session's summary: the last finished turn's result, or the running state. */
  summary(meta: SessionMeta): TurnResult {
    if (meta.status !== 'running' && meta.last_result) return { ...meta.last_result, status: meta.status };
    return {
      session_id: meta.session_name,
      status: meta.status,
      turns: meta.turns,
      tool_calls: meta.tool_calls,
      usage: meta.usage,
      content: '',
      structured_output: null,
      schema_warnings: null,
      provider_session_id: meta.provider_session_id,
    };
  }

  /** Stop a running turn and its child processes; waits until the turn has recorded its end. */
  async cancel(name: string): Promise<CancelReport> {
    const meta = await this.view(name);
    const run = this.turns.run(name);
    if (!run) {
      if (meta.status === 'running') return this.remoteCancel.request(name);
      return {
        session_id: name,
        cancelled: false,
        status: meta.status,
        message: `Session '${name}' is not running (status ${meta.status}).`,
      };
    }
    run.controller.abort(new SwitchboardError('CANCELLED', 'Cancelled with agent__cancel.'));
    const result = await run.done;
    return {
      session_id: name,
      cancelled: true,
      status: result.status,
      message: `Cancelled the running turn of '${name}'.`,
    };
  }

  /**
   * Remove one session (meta, transcript, lock), or every session; running ones are refused (one) or skipped (all).
   * The store refuses a session whose lock is live in the same step as the delete, so a turn starting meanwhile
   * is never deleted under its feet.
   */
  async clean(name?: string): Promise<{ removed: string[]; skipped: { session: string; reason: string }[] }> {
    if (name) await readSession(this.sessions, name); // NOT_FOUND with the usual message
    const names = name ? [name] : await this.sessions.names();
    const removed: string[] = [];
    const skipped: { session: string; reason: string }[] = [];
    for (const n of names) {
      try {
        if (this.turns.isRunning(n)) throw sessionRunning(n);
        if (await this.sessions.remove(n)) removed.push(n);
      } catch (err) {
        if (name || toErrorInfo(err).code !== 'CONFLICT') throw err;
        skipped.push({ session: n, reason: 'running' });
      }
    }
    return { removed, skipped };
  }

  /** Every session's meta (a running status whose process or instance is gone reads as interrupted). */
  async list(): Promise<{ sessions: (SessionMeta | { session_name: string; error: string })[] }> {
    const names = await this.sessions.names();
    return {
      sessions: await Promise.all(
        names.map(async (n) => {
          try {
            return await this.view(n);
          } catch (err) {
            return { session_name: n, error: toErrorInfo(err).message };
          }
        }),
      ),
    };
  }

  /** Abort every running turn (the hub is stopping) and wait for them to record it. */
  async stop(): Promise<void> {
    await this.turns.stop();
  }

  /**
   * The session as it stands (NOT_FOUND when there is none): `running` while a live holder has its turn lock (the
   * lock, not the meta, records a running turn — one write less per turn); `interrupted` when the lock's holder is
   * gone (its process died, or its instance's lease ran out), or a new session's meta says running with no lock (a
   * crash). An interrupted session is saved as such, with an error saying why, and is resumable anywhere.
   *
   * The lock is read before the meta: a turn ends by writing its meta and then unlocking, so this order never
   * takes a finished turn for a crashed one.
   */
  async view(name: string): Promise<SessionMeta> {
    let lock = this.turns.isRunning(name) ? undefined : await this.sessions.lockOwner(name);
    const meta = await readSession(this.sessions, name);
    // A new session is locked, then created: a lock missing before a "running" meta was read may exist now.
    if (!lock && meta.status === 'running' && !this.turns.isRunning(name)) lock = await this.sessions.lockOwner(name);
    return this.reconcile(meta, lock);
  }

  private async reconcile(meta: SessionMeta, lock: TurnLock | undefined): Promise<SessionMeta> {
    const name = meta.session_name;
    if (this.turns.isRunning(name) || lock?.alive)
      return meta.status === 'running' ? meta : { ...meta, status: 'running' };
    if (!lock && meta.status !== 'running') return meta;
    if (meta.status === 'interrupted') return meta;
    const error = lock
      ? `The turn was interrupted: the Switchboard ${lock.holder} that ran it stopped before the turn ended (a crash, a kill, or its lease in the store ran out). Resume the session to continue.`
      : 'The turn was interrupted before it ended (no Switchboard process holds it any more). Resume the session to continue.';
    const fixed: SessionMeta = {
      ...meta,
      status: 'interrupted',
      last_result: {
        session_id: name,
        status: 'interrupted',
        turns: 0,
        tool_calls: 0,
        usage: emptyUsage(),
        content: '',
        structured_output: null,
        schema_warnings: null,
        error,
        provider_session_id: meta.provider_session_id,
        finished_at: new Date().toISOString(),
      },
    };
    try {
      await this.sessions.put(fixed);
    } catch {
      // Reading must not fail because the directory is read-only or the store is away; the next turn writes it.
    }
    return fixed;
  }

  private grantContext(): GrantContext {
    const config = this.deps.services.config.get();
    return {
      projectRoot: this.deps.services.projectDir,
      extraDirs: config.workspace.extra_dirs,
      config: config.agents,
    };
  }

  /**
   * Before a resumed turn: what the session was started with must still be allowed by its definition as it is on
   * disk now, and by the configuration (narrowed since: refused, naming the setting). A session stored before
   * permission modes were recorded gets the most its agent is granted now.
   *
   * A turn that works in the session's directory (claude-cli, the shell tool, the agent's MCP servers) needs it on
   * this machine: a session in a shared store may have been started on another one with another checkout path.
   */
  private recheckGrant(meta: SessionMeta, agent: AgentDefinition | undefined): void {
    const options = meta.options;
    const needsDirectory =
      !this.deps.providers[meta.provider].toolLoop ||
      options.builtin_config.enable_shell ||
      Object.keys(agent?.mcpServers ?? {}).length > 0;
    if (needsDirectory && !(existsSync(meta.project_dir) && statSync(meta.project_dir).isDirectory()))
      throw new SwitchboardError(
        'INVALID_INPUT',
        `Session '${meta.session_name}' works in ${meta.project_dir}, which is not a directory on this Switchboard instance (it was started on another machine). Resume it through an instance that has that directory.`,
      );
    const where = this.grantContext();
    const permissionMode = grant(where, agent, {
      provider: meta.provider,
      permission_mode: options.permission_mode,
      builtins: options.enable_builtins,
      shell: options.builtin_config.enable_shell,
    });
    if (permissionMode) options.permission_mode = permissionMode;
    if (needsDirectory) sessionDirectory(where, agent, meta.project_dir);
  }

  private assertConfigured(name: ProviderName): void {
    const problem = this.providerProblem(name);
    if (problem) throw new SwitchboardError('INVALID_INPUT', problem, { provider: name });
  }

  /**
   * With the session's lock held: run the turn now (synchronous) or in the background (async), bounded by
   * `[agents] turn_timeout_ms`, with the lock's lease renewed while it runs.
   */
  private async launch(
    meta: SessionMeta,
    agent: AgentDefinition | undefined,
    turn: TurnInput,
    async: boolean,
    hooks: CallHooks,
  ): Promise<TurnResult> {
    const name = meta.session_name;
    const controller = new AbortController();
    const cfg = this.config();
    const timer = setTimeout(
      () =>
        controller.abort(
          new SwitchboardError(
            'TIMEOUT',
            `The turn ran longer than ${cfg.turn_timeout_ms} ms ([agents] turn_timeout_ms).`,
          ),
        ),
      cfg.turn_timeout_ms,
    );
    const stopRenewing = this.turns.renewWhileRunning(name, controller);
    // A synchronous run belongs to its call: the call's cancel or timeout stops the turn (async runs are independent).
    const onCallAbort = () => {
      const reason = hooks.signal?.reason;
      const info = toErrorInfo(reason);
      controller.abort(
        info.code === 'TIMEOUT'
          ? new SwitchboardError('TIMEOUT', `${info.message} Use async: true and agent__status for long runs.`)
          : new SwitchboardError('CANCELLED', 'The call that ran the turn was cancelled.'),
      );
    };
    if (!async) hooks.signal?.addEventListener('abort', onCallAbort, { once: true });
    // The lock now says a turn runs; the meta is written when the turn ends (a new session's already says running).
    meta.status = 'running';
    delete meta.pending;
    // A transcript that cannot be written (the store went away) ends the turn: its history would have a gap.
    const transcript = transcriptWriter(
      this.sessions,
      name,
      this.turns.owner,
      (err) => {
        const info = toErrorInfo(err);
        controller.abort(
          new SwitchboardError(
            info.code === 'CONFLICT' ? 'UNAVAILABLE' : info.code,
            `Could not write the transcript: ${info.message}`,
          ),
        );
      },
      // Watchers (the dashboard) read the new events with session.transcript once they are written.
      (count) =>
        this.deps.services.bus.publish({
          type: 'agent.transcript',
          session: name,
          count,
          at: new Date().toISOString(),
        }),
    );
    // An async turn reports to nobody, but its tools are still bounded by the caller who started it.
    const reporting: CallHooks = async
      ? { caller: hooks.caller, ...(hooks.trace ? { trace: hooks.trace } : {}) }
      : hooks;
    const lock = { released: false };
    const signal = controller.signal;
    const done = runTurn(this.turnDeps, meta, agent, turn, signal, reporting, transcript, lock).finally(async () => {
      clearTimeout(timer);
      stopRenewing();
      hooks.signal?.removeEventListener('abort', onCallAbort);
      // Normally released with the last meta write already; this covers a turn whose last write failed.
      if (!lock.released) await this.turns.unlock(name);
      this.turns.ended(name);
      this.remoteCancel.unfollow();
    });
    this.turns.started(name, { controller, done });
    this.remoteCancel.follow();
    if (!async) return done;
    done.catch((err) => this.deps.services.logger.error({ err, session: name }, 'agent turn failed unexpectedly'));
    return { ...this.summary(meta), status: 'running' };
  }
}
