// The session runtime: creates and resumes sessions, runs one turn at a time per session (many sessions at once),
// keeps meta and transcript in the session store (files, or Redis shared by instances), runs structured-output
// retries, and answers status, result, cancel and clean.
import { existsSync, statSync } from 'node:fs';
import { expandAll } from '../../config/load.ts';
import type { AgentsConfig, Config, PermissionMode } from '../../config/schema.ts';
import type { LogLevel, Principal, Services } from '../../core/context.ts';
import { SwitchboardError, toErrorInfo } from '../../core/errors.ts';
import type { Pipeline } from '../../core/pipeline.ts';
import { minimalEnv } from '../../core/process.ts';
import { exposureFilter } from '../../policy/principal.ts';
import { sessionBusy, sessionRunning, sessionTaken } from '../../store/contract.ts';
import { builtinTools, shellTool } from './builtin-tools.ts';
import { type AgentDefinition, loadDefinition, type ProviderName } from './definitions.ts';
import { describeEvent } from './describe-event.ts';
import { type GrantContext, grant, hubFileDirs, sessionDirectory } from './grant.ts';
import { historyOf } from './history.ts';
import type { McpToolOpener } from './mcp-tools.ts';
import type { LocalTool, Provider, TurnOutcome } from './providers/provider.ts';
import {
  type CallbackTool,
  META_SCHEMA_VERSION,
  type SessionMeta,
  type SessionOptions,
  type ToolResultBlock,
  type TranscriptEvent,
  type TurnLock,
  type TurnResult,
} from './session-files.ts';
import { readSession, type SessionStore, sessionStoreOf } from './session-store.ts';
import { type TranscriptWriter, transcriptWriter } from './transcript-writer.ts';

export interface StartInput {
  session_name: string;
  agent_name?: string;
  prompt: string;
  project_dir?: string;
  /** claude-cli: a mode at or below what the agent is granted. */
  permission_mode?: PermissionMode;
  async?: boolean;
  provider?: ProviderName;
  model?: string;
  max_tokens?: number;
  system_prompt?: string;
  output_schema?: Record<string, unknown>;
  structured_output_retries?: number;
  tools?: CallbackTool[];
  enable_builtins?: boolean;
  builtin_config?: { enable_shell?: boolean; shell_timeout_secs?: number };
}

export interface ResumeInput {
  session_name: string;
  prompt?: string;
  tool_results?: { tool_use_id: string; content: string; is_error?: boolean }[];
  async?: boolean;
}

/** How a turn reports to the call that started it (a synchronous call: progress and log notifications). */
export interface CallHooks {
  /** Who asked for the turn: the agent's built-in tools never get more than this caller may see and call. */
  caller?: Principal;
  signal?: AbortSignal;
  progress?: (progress: number, total?: number, message?: string) => Promise<void>;
  log?: (level: LogLevel, data: unknown) => Promise<void>;
}

interface Run {
  controller: AbortController;
  done: Promise<TurnResult>;
}

export interface RuntimeDeps {
  services: Services;
  pipeline: Pipeline;
  env: NodeJS.ProcessEnv;
  providers: Record<ProviderName, Provider>;
  openMcp: McpToolOpener;
}

const EMPTY_USAGE = () => ({ input_tokens: 0, output_tokens: 0 });

/** The bus event that asks whichever instance runs a session's turn to cancel it (instances on one Redis). */
export const CANCEL_EVENT = 'agent.cancel_requested';

/** How long `agent.cancel` waits for another instance to stop the turn it asked it to cancel. */
export const REMOTE_CANCEL_WAIT_MS = 10_000;

export class AgentRuntime {
  /** Where sessions live: the project's files, or the store when it holds them (Redis). */
  readonly sessions: SessionStore;
  /** The turn lock's owner for turns run here: this hub's instance id, the same one its lease in the store uses. */
  private readonly owner: string;
  private readonly running = new Map<string, Run>();
  /** Turns admitted here whose lock is being taken: they count toward max_running before they run. */
  private readonly admitted = new Set<string>();
  private stopped = false;
  /** While turns run here: the subscription that hears cancels asked for through other instances. */
  private unsubscribeCancels: (() => void) | undefined;

  constructor(private readonly deps: RuntimeDeps) {
    this.sessions = sessionStoreOf(deps.services);
    this.owner = deps.services.instanceId;
  }

  /**
   * How long a turn lock lives without renewal: the instance lease (`[system] instance_ttl_ms`), so a turn of an
   * instance that died is freed as soon as the instance itself counts as gone. Renewed at a third of it while the
   * turn runs; files ignore it (a lock file lives as long as its process).
   */
  private lockTtlMs(): number {
    return (this.deps.services.config.get() as Config).system?.instance_ttl_ms ?? 30_000;
  }

  config(): AgentsConfig {
    return (this.deps.services.config.get() as Config).agents;
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
    const providerName = input.provider ?? agent?.provider ?? cfg.default_provider;
    const provider = this.deps.providers[providerName];
    this.assertConfigured(providerName);
    const tools = input.tools ?? [];
    const enableBuiltins = input.enable_builtins ?? false;
    const shell = input.builtin_config?.enable_shell ?? false;
    if (!provider.toolLoop && (tools.length || enableBuiltins))
      throw new SwitchboardError(
        'INVALID_INPUT',
        `tools and enable_builtins need the anthropic or openai provider; ${providerName} runs its own tools (give it MCP servers in agent.mcp.json instead).`,
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
    await this.checkSchemas(input.output_schema, tools);
    const now = new Date().toISOString();
    const options: SessionOptions = {
      ...(input.system_prompt ? { system_prompt: input.system_prompt } : {}),
      ...(input.max_tokens ? { max_tokens: input.max_tokens } : {}),
      ...(input.output_schema ? { output_schema: input.output_schema } : {}),
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
      usage: EMPTY_USAGE(),
      turns: 0,
      tool_calls: 0,
      options,
    };
    // The lock comes first: no other process may see the new session's "running" meta without its lock.
    await this.admit(input.session_name, () => this.sessions.create(meta));
    return this.launch(meta, agent, { prompt: input.prompt }, input.async ?? false, hooks);
  }

  /** Continue a session: a new prompt, or the answers to its pending tool calls (and optionally a prompt). */
  async resume(input: ResumeInput, hooks: CallHooks = {}): Promise<TurnResult> {
    const meta = await this.view(input.session_name);
    if (this.running.has(input.session_name) || meta.status === 'running') throw sessionBusy(input.session_name);
    const prompt = input.prompt ?? '';
    const given = input.tool_results ?? [];
    if (!prompt.trim() && !given.length)
      throw new SwitchboardError(
        'INVALID_INPUT',
        'prompt: cannot be empty unless tool_results answer pending tool calls. Give a prompt to continue the conversation.',
      );
    let toolResults: ToolResultBlock[] | undefined;
    if (meta.status === 'pending_tool_call' && meta.pending) {
      const expected = meta.pending.calls.map((c) => c.id);
      if (!given.length)
        throw new SwitchboardError(
          'INVALID_INPUT',
          `Session '${meta.session_name}' is waiting for tool results: answer ${expected.join(', ')} with tool_results [{tool_use_id, content, is_error?}].`,
          { pending_tool_calls: meta.pending.calls },
        );
      const ids = new Set(given.map((r) => r.tool_use_id));
      const missing = expected.filter((id) => !ids.has(id));
      const unknown = given.map((r) => r.tool_use_id).filter((id) => !expected.includes(id));
      if (missing.length || unknown.length)
        throw new SwitchboardError(
          'INVALID_INPUT',
          `tool_results must answer exactly the pending calls ${expected.join(', ')}${missing.length ? `; missing: ${missing.join(', ')}` : ''}${unknown.length ? `; unknown: ${unknown.join(', ')}` : ''}.`,
          { pending_tool_calls: meta.pending.calls },
        );
      toolResults = [
        ...meta.pending.local_results,
        ...expected.map((id) => {
          const r = given.find((g) => g.tool_use_id === id) as (typeof given)[number];
          return {
            type: 'tool_result' as const,
            tool_use_id: id,
            content: r.content,
            ...(r.is_error ? { is_error: true } : {}),
          };
        }),
      ];
    } else if (given.length) {
      throw new SwitchboardError(
        'INVALID_INPUT',
        `tool_results: session '${meta.session_name}' has no pending tool calls (status ${meta.status}); resume with a prompt instead.`,
      );
    }
    this.assertConfigured(meta.provider);
    const agent = meta.agent ? loadDefinition(this.deps.services.projectDir, meta.agent) : undefined;
    this.recheckGrant(meta, agent);
    await this.admit(meta.session_name, async () => {});
    meta.last_resumed_at = new Date().toISOString();
    return this.launch(meta, agent, { prompt: prompt || undefined, toolResults }, input.async ?? false, hooks);
  }

  /** The session's state, waiting up to `waitMs` for a running turn to finish. */
  async status(name: string, waitMs = 0, signal?: AbortSignal): Promise<TurnResult & { running: boolean }> {
    const run = this.running.get(name);
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
  async cancel(name: string): Promise<{ session_id: string; cancelled: boolean; status: string; message: string }> {
    const meta = await this.view(name);
    const run = this.running.get(name);
    if (!run) {
      if (meta.status === 'running') return this.cancelElsewhere(name);
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
   * Cancel a turn another process runs. Instances on one Redis share the bus: the request goes out on it, the
   * instance running the turn aborts it, and this waits (bounded) until the session store says it stopped.
   * Without a shared bus (SQLite: separate hubs on one project) there is no way to reach it: CONFLICT says where.
   */
  private async cancelElsewhere(
    name: string,
  ): Promise<{ session_id: string; cancelled: boolean; status: string; message: string }> {
    const holder = (await this.sessions.lockOwner(name))?.holder ?? 'another process';
    if (this.deps.services.store.kind !== 'redis')
      throw new SwitchboardError(
        'CONFLICT',
        `Session '${name}' runs in another Switchboard process (${holder}); cancel it there.`,
      );
    this.deps.services.bus.publish({ type: CANCEL_EVENT, session: name, at: new Date().toISOString() });
    const until = Date.now() + REMOTE_CANCEL_WAIT_MS;
    let meta = await this.view(name);
    while (meta.status === 'running' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      meta = await this.view(name);
    }
    if (meta.status === 'running')
      throw new SwitchboardError(
        'UNAVAILABLE',
        `Asked the Switchboard instance running session '${name}' (${holder}) to cancel its turn, but it was still running after ${REMOTE_CANCEL_WAIT_MS / 1000} s. Check that instance is connected to Redis, or retry agent__cancel.`,
      );
    return {
      session_id: name,
      cancelled: meta.status === 'cancelled',
      status: meta.status,
      message:
        meta.status === 'cancelled'
          ? `Cancelled the running turn of '${name}' (it ran on another instance).`
          : `Session '${name}' ended (status ${meta.status}) before the cancel reached it.`,
    };
  }

  /**
   * Hear cancels for turns running here while any does: on Redis the bus reads the shared stream only while
   * someone follows it, so an instance with no turn running pays nothing for this.
   */
  private followCancels(): void {
    if (this.unsubscribeCancels || this.deps.services.store.kind !== 'redis') return;
    this.unsubscribeCancels = this.deps.services.bus.subscribe((event) => {
      if (event.type !== CANCEL_EVENT || typeof event.session !== 'string') return;
      this.running
        .get(event.session)
        ?.controller.abort(
          new SwitchboardError('CANCELLED', 'Cancelled with agent__cancel (through another instance).'),
        );
    });
  }

  private unfollowCancels(): void {
    if (this.running.size > 0) return;
    this.unsubscribeCancels?.();
    this.unsubscribeCancels = undefined;
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
        if (this.running.has(n)) throw sessionRunning(n);
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
    this.stopped = true;
    const runs = [...this.running.values()];
    for (const r of runs)
      r.controller.abort(new SwitchboardError('UNAVAILABLE', 'Switchboard stopped during the turn.'));
    await Promise.all(runs.map((r) => r.done.catch(() => {})));
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
    let lock = this.running.has(name) ? undefined : await this.sessions.lockOwner(name);
    const meta = await readSession(this.sessions, name);
    // A new session is locked, then created: a lock missing before a "running" meta was read may exist now.
    if (!lock && meta.status === 'running' && !this.running.has(name)) lock = await this.sessions.lockOwner(name);
    return this.reconcile(meta, lock);
  }

  private async reconcile(meta: SessionMeta, lock: TurnLock | undefined): Promise<SessionMeta> {
    const name = meta.session_name;
    if (this.running.has(name) || lock?.alive) return meta.status === 'running' ? meta : { ...meta, status: 'running' };
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
        usage: EMPTY_USAGE(),
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
    const config = this.deps.services.config.get() as Config;
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
   * Admit a turn in this process and take the session's lock; the admission holds its place among `max_running`
   * while the lock (and a new session's create) are awaited, until `launch` counts it as running.
   */
  private async admit(name: string, prepare: () => Promise<void>): Promise<void> {
    if (this.stopped) throw new SwitchboardError('UNAVAILABLE', 'Switchboard is stopping; no new turns start.');
    if (this.running.has(name) || this.admitted.has(name)) throw sessionBusy(name);
    const max = this.config().max_running;
    const busyHere = this.running.size + this.admitted.size;
    if (busyHere >= max)
      throw new SwitchboardError(
        'RATE_LIMITED',
        `${busyHere} turns are running, the most this process runs at once ([agents] max_running = ${max}). Retry when one finishes.`,
        { retryAfterMs: 5000 },
      );
    this.admitted.add(name);
    try {
      await this.sessions.lock(name, this.owner, this.lockTtlMs());
      await prepare().catch(async (err) => {
        await this.unlock(name);
        throw err;
      });
    } catch (err) {
      this.admitted.delete(name);
      throw err;
    }
  }

  private async checkSchemas(outputSchema: Record<string, unknown> | undefined, tools: CallbackTool[]): Promise<void> {
    if (!outputSchema && tools.length === 0) return;
    // Ajv is loaded only for turns that bring JSON Schemas, not at start-up.
    const { jsonValidator } = await import('../../core/ajv.ts');
    if (outputSchema) {
      const v = jsonValidator(outputSchema);
      if (!v.ok) throw new SwitchboardError('INVALID_INPUT', `output_schema is not a valid JSON Schema: ${v.message}`);
    }
    const seen = new Set<string>();
    for (const [i, t] of tools.entries()) {
      if (seen.has(t.name)) throw new SwitchboardError('INVALID_INPUT', `tools.${i}.name: '${t.name}' is given twice.`);
      seen.add(t.name);
      if (t.input_schema.type !== 'object')
        throw new SwitchboardError(
          'INVALID_INPUT',
          `tools.${i}.input_schema must have type "object" (tool inputs are objects), e.g. {"type": "object", "properties": {…}}.`,
        );
      const v = jsonValidator(t.input_schema);
      if (!v.ok)
        throw new SwitchboardError('INVALID_INPUT', `tools.${i}.input_schema is not a valid JSON Schema: ${v.message}`);
    }
  }

  /** Let go of this hub's lock on a session; a store that is away only delays it (the lease runs out). */
  private async unlock(name: string): Promise<void> {
    await this.sessions
      .unlock(name, this.owner)
      .catch((err) => this.deps.services.logger.warn({ err, session: name }, 'could not release a turn lock'));
  }

  /**
   * With the session's lock held: run the turn now (synchronous) or in the background (async). While it runs the
   * lock's lease is renewed; a renewal that finds the lock taken over (this instance was gone longer than a lease,
   * and another resumed the session) stops the turn, and its fenced writes change nothing any more.
   */
  private async launch(
    meta: SessionMeta,
    agent: AgentDefinition | undefined,
    turn: { prompt?: string; toolResults?: ToolResultBlock[] },
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
    const ttl = this.lockTtlMs();
    const renewal = setInterval(
      () => {
        this.sessions.renew(name, this.owner, ttl).then(
          (held) => {
            if (!held)
              controller.abort(
                new SwitchboardError(
                  'UNAVAILABLE',
                  `Session '${name}' was taken over by another turn: this instance lost its turn lock (its lease ran out).`,
                ),
              );
          },
          (err) => this.deps.services.logger.warn({ err, session: name }, 'could not renew a turn lock'),
        );
      },
      Math.max(50, Math.floor(ttl / 3)),
    );
    renewal.unref();
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
    const transcript = transcriptWriter(this.sessions, name, this.owner, (err) => {
      const info = toErrorInfo(err);
      controller.abort(
        new SwitchboardError(
          info.code === 'CONFLICT' ? 'UNAVAILABLE' : info.code,
          `Could not write the transcript: ${info.message}`,
        ),
      );
    });
    // An async turn reports to nobody, but its tools are still bounded by the caller who started it.
    const reporting: CallHooks = async ? { caller: hooks.caller } : hooks;
    const lock = { released: false };
    const done = this.execute(meta, agent, turn, controller.signal, reporting, transcript, lock).finally(async () => {
      clearTimeout(timer);
      clearInterval(renewal);
      hooks.signal?.removeEventListener('abort', onCallAbort);
      // Normally released with the last meta write already; this covers a turn whose last write failed.
      if (!lock.released) await this.unlock(name);
      this.running.delete(name);
      this.unfollowCancels();
    });
    this.running.set(name, { controller, done });
    this.admitted.delete(name);
    this.followCancels();
    if (!async) return done;
    done.catch((err) => this.deps.services.logger.error({ err, session: name }, 'agent turn failed unexpectedly'));
    return { ...this.summary(meta), status: 'running' };
  }

  private async execute(
    meta: SessionMeta,
    agent: AgentDefinition | undefined,
    turn: { prompt?: string; toolResults?: ToolResultBlock[] },
    signal: AbortSignal,
    hooks: CallHooks,
    transcript: TranscriptWriter,
    lock: { released: boolean },
  ): Promise<TurnResult> {
    const name = meta.session_name;
    const cfg = this.config();
    const provider = this.deps.providers[meta.provider];
    let step = 0;
    let providerIdSaved: Promise<void> = Promise.resolve();
    const emit = (events: TranscriptEvent[]) => {
      transcript.append(events);
      for (const e of events) {
        if (e.type === 'provider_start' && typeof e.provider_session_id === 'string' && !meta.provider_session_id) {
          // The provider named its session before starting it: the stored meta names it now, so a turn cut short
          // (a crash, a cancel) resumes the provider's own session instead of starting a new one.
          meta.provider_session_id = e.provider_session_id;
          providerIdSaved = this.sessions
            .put(meta, { holder: this.owner })
            .catch((err) =>
              this.deps.services.logger.warn({ err, session: name }, 'could not record the provider session id'),
            );
        }
        if (!hooks.progress && !hooks.log) continue;
        const line = describeEvent(e);
        if (!line) continue;
        hooks.progress?.(++step, undefined, line).catch(() => {});
        hooks.log?.('info', { session: name, event: e.type, message: line }).catch(() => {});
      }
    };
    emit([
      {
        type: 'turn_start',
        provider: meta.provider,
        model: meta.model,
        ...(turn.prompt ? { prompt: turn.prompt } : {}),
        ...(turn.toolResults ? { tool_results: turn.toolResults.length } : {}),
      },
    ]);
    this.announce(meta, 'running');
    let mcpClose: (() => Promise<void>) | undefined;
    const totals = { usage: EMPTY_USAGE(), modelCalls: 0, toolCalls: 0 };
    const add = (o: TurnOutcome) => {
      totals.usage.input_tokens += o.usage.input_tokens;
      totals.usage.output_tokens += o.usage.output_tokens;
      totals.modelCalls += o.modelCalls;
      totals.toolCalls += o.toolCalls;
      if (o.providerSessionId) meta.provider_session_id = o.providerSessionId;
    };
    let result: TurnResult;
    try {
      const localTools: LocalTool[] = [];
      if (provider.toolLoop) {
        if (meta.options.enable_builtins) {
          const builtins = Array.isArray(agent?.builtins) ? agent.builtins : undefined;
          const principal = agentPrincipal(name, agent?.roles ?? ['agent'], hooks.caller, builtins);
          localTools.push(...builtinTools(this.deps.services.registry, this.deps.pipeline, principal));
          if (meta.options.builtin_config.enable_shell)
            localTools.push(
              shellTool(meta.project_dir, meta.options.builtin_config.shell_timeout_secs, this.childEnv()),
            );
        }
        if (agent && Object.keys(agent.mcpServers).length) {
          // `${VAR}` expands as in Claude Code's .mcp.json (claude-cli expands the file itself); a server whose
          // variable is missing is left out and noted, the others still open.
          const servers: typeof agent.mcpServers = {};
          for (const [server, spec] of Object.entries(agent.mcpServers)) {
            try {
              servers[server] = expandAll(
                spec,
                `${agent.mcpConfigPath}: mcpServers.${server}`,
                this.deps.env,
              ) as typeof spec;
            } catch (err) {
              emit([{ type: 'mcp_unavailable', server, error: toErrorInfo(err).message }]);
            }
          }
          const mcp = await this.deps.openMcp(servers, { cwd: meta.project_dir, env: this.childEnv(), signal });
          mcpClose = mcp.close;
          localTools.push(...mcp.tools);
          for (const f of mcp.failures) emit([{ type: 'mcp_unavailable', server: f.server, error: f.error }]);
        }
      }
      const schema = meta.options.output_schema;
      // Structured output (and Ajv with it) is loaded only for sessions that have an output_schema.
      const so = schema ? await import('./structured-output.ts') : undefined;
      const system = [
        agent?.systemPrompt,
        meta.options.system_prompt,
        so && schema ? so.schemaInstruction(schema) : undefined,
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
        return historyOf((await this.sessions.transcript(name)).events);
      };
      const hubDirs = hubFileDirs(
        this.deps.services.projectDir,
        this.deps.services.config.get() as Config,
        this.deps.env,
      );
      const request = async (prompt: string | undefined, toolResults: ToolResultBlock[] | undefined) => ({
        meta,
        agent,
        ...(system ? { systemPrompt: system } : {}),
        ...(meta.model ? { model: meta.model } : {}),
        maxTokens: meta.options.max_tokens ?? agent?.max_tokens ?? cfg.max_tokens,
        maxTokensExplicit: Boolean(meta.options.max_tokens ?? agent?.max_tokens),
        ...(prompt ? { prompt } : {}),
        ...(toolResults ? { toolResults } : {}),
        history: await history(),
        callbackTools: meta.options.tools,
        localTools,
        maxModelCalls: cfg.max_model_calls,
        signal,
        env: this.deps.env,
        config: cfg,
        hubDirs,
        emit,
      });
      let outcome = await provider.runTurn(await request(turn.prompt, turn.toolResults));
      add(outcome);
      let structured: unknown = null;
      let warnings: string[] | null = null;
      if (so && schema && outcome.status === 'completed') {
        let check = so.checkOutput(outcome.text, schema);
        for (let attempt = 1; check.problems.length && attempt <= meta.options.structured_output_retries; attempt++) {
          emit([{ type: 'structured_retry', attempt, problems: check.problems }]);
          outcome = await provider.runTurn(await request(so.retryPrompt(check.problems), undefined));
          add(outcome);
          if (outcome.status !== 'completed') break;
          check = so.checkOutput(outcome.text, schema);
        }
        if (outcome.status === 'completed') {
          structured = check.value;
          warnings = check.problems.length ? check.problems : null;
        }
      }
      result = this.finish(meta, outcome.status, totals, {
        content: outcome.text,
        structured_output: structured,
        schema_warnings: warnings,
        ...(outcome.pending ? { pending_tool_calls: outcome.pending.calls } : {}),
      });
      if (outcome.pending) meta.pending = outcome.pending;
    } catch (err) {
      const aborted = signal.aborted;
      const info = toErrorInfo(aborted ? signal.reason : err);
      const status = !aborted
        ? 'failed'
        : info.code === 'CANCELLED'
          ? 'cancelled'
          : info.code === 'UNAVAILABLE'
            ? 'interrupted'
            : 'failed';
      result = this.finish(meta, status, totals, {
        content: '',
        structured_output: null,
        schema_warnings: null,
        error: info.message,
      });
    } finally {
      await mcpClose?.().catch(() => {});
    }
    emit([
      {
        type: 'turn_end',
        status: result.status,
        usage: totals.usage,
        ...(result.error ? { error: result.error } : {}),
      },
    ]);
    try {
      await transcript.flush();
    } catch (err) {
      this.deps.services.logger.error({ err, session: name }, 'could not write the end of an agent turn');
    }
    try {
      await providerIdSaved;
      // The meta and the lock's release in one step: nobody sees the turn over without its result.
      await this.sessions.put(meta, { holder: this.owner, release: true });
      lock.released = true;
    } catch (err) {
      this.deps.services.logger.error({ err, session: name }, 'could not record the end of an agent turn');
    }
    this.announce(meta, result.status, totals.usage);
    return result;
  }

  /** Publish `agent.turn` on the hub's bus (the event log, `switchboard events tail`, other subscribers). */
  private announce(meta: SessionMeta, status: string, usage?: { input_tokens: number; output_tokens: number }): void {
    this.deps.services.bus.publish({
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
  private finish(
    meta: SessionMeta,
    status: SessionMeta['status'],
    totals: { usage: { input_tokens: number; output_tokens: number }; modelCalls: number; toolCalls: number },
    rest: Pick<TurnResult, 'content' | 'structured_output' | 'schema_warnings' | 'pending_tool_calls' | 'error'>,
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

  /** Environment for children Switchboard starts for an agent (shell tool, MCP servers): no secrets by default. */
  private childEnv(): Record<string, string> {
    return minimalEnv({}, this.deps.env);
  }
}

/**
 * The principal an agent's built-in tool calls run as: the roles of its definition, but never more than the
 * caller's (a caller cannot gain a role by starting an agent that has it), the caller's exposure filter, and the
 * capability globs its agent.json `builtins` lists (when it lists some).
 *
 * @example
 * agentPrincipal('s1', ['admin', 'agent'], { id: 'tok', roles: ['agent'] }).roles // → ['agent']
 */
export function agentPrincipal(
  session: string,
  agentRoles: string[],
  caller: Principal | undefined,
  builtins?: string[],
): Principal {
  const callerRoles = caller?.roles ?? ['*'];
  const roles = callerRoles.includes('*')
    ? agentRoles
    : agentRoles.includes('*')
      ? callerRoles
      : agentRoles.filter((r) => callerRoles.includes(r));
  const listed = builtins ? exposureFilter([{ allow: builtins }]) : undefined;
  const callerSees = caller?.sees;
  const sees = listed && callerSees ? (name: string) => listed(name) && callerSees(name) : (listed ?? callerSees);
  return { id: `agent:${session}`, roles, kind: 'internal', ...(sees ? { sees } : {}) };
}
