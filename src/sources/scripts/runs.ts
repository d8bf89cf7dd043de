// Script runs per client: which run a call belongs to (stdio process, HTTP session, or an explicit run_id),
// journalling each run in the Store, and rebuilding a run from its journal when its client (or a run_id) comes
// back after a restart, or when another instance on the same store moved it on (docs/scale-out.md).
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { CallContext } from '../../core/context.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { ScriptRun, Store } from '../../store/contract.ts';
import type { AutoRunner } from './auto-runner.ts';
import type { EventSink, ScriptEvent } from './events.ts';
import { frameLabel } from './executor.ts';
import type { Answer } from './format.ts';
import { holderOf, pruneUnfinished, RELEASED_STDIO } from './left-runs.ts';
import { PythonMissing } from './python.ts';
import { ReplayCursor, ReplayMismatch, ReplayRunner, replayEvents } from './replay.ts';
import type { ScriptRoots } from './resolve.ts';
import { type RunTool, ScriptSession } from './session.ts';
import { autoLabel } from './steps.ts';

export interface RunsOptions {
  store: Store;
  /** This hub process (`services.instanceId`, `<pid>-<random>`): the stdio client key names it. */
  instanceId: string;
  roots: ScriptRoots;
  projectDir: string;
  /** Where a nested script's `working_dir` may be (see ExecutorOptions.confine). */
  confine: (dir: string, base?: string) => string;
  runner: AutoRunner;
  /** Environment of the Python runner of mekara scripts (see ExecutorOptions.pythonEnv). */
  pythonEnv?: NodeJS.ProcessEnv;
  logger: Logger;
  /** The cassette recorders (SWITCHBOARD_VCR_CASSETTE, MEKARA_VCR_CASSETTE); they hear every run. */
  cassette?: EventSink;
  /** Told when a run starts, moves on a step, or finishes (the hub publishes `script.changed`). */
  changed?: (run: { id: string; status: 'running' | 'finished'; principal: string }) => void;
}

/** A run's stack and the step it waits on, as the dashboard shows them (docs/dashboard.md). */
export interface RunView {
  stack: { label: string; script: string; kind: 'compiled' | 'nl'; args: string; workingDir: string }[];
  /** What the top frame waits on: the model (`llm`, with its prompt), the agent after a failure, or nothing. */
  waiting: { kind: string; prompt?: string } | null;
  /** True while a call is running its steps. */
  busy: boolean;
}

export interface RunAnswer extends Answer {
  runId?: string;
}

interface LiveRun {
  id: string;
  principal: string;
  session: ScriptSession;
  /** Calls on one run are serialised: a stack has one pending step. */
  queue: Promise<unknown>;
  /** When a call last used it (idle runs leave memory; their journal brings them back). */
  lastUsed: number;
  /** Calls that change it (start, continue, finish) running or waiting on it. */
  busy: number;
  /**
   * Journal entries the store held after this hub's last write. More in the store means another hub on the same
   * store drove the run since: the copy in memory is stale and is rebuilt from the journal.
   */
  entries: number;
}

/** A run nobody called for this long leaves memory (an abandoned HTTP session); it stays in the journal. */
const IDLE_MS = 60 * 60 * 1000;

/** A new run id: short, URL-safe, unguessable. */
function newRunId(): string {
  return `run-${randomBytes(9).toString('base64url')}`;
}

/**
 * The stable key of the calling client, or undefined for stateless callers. Over stdio the hub process is the
 * client (`stdio:<instance>`: two agents on one project each have their own); over 2025 Streamable HTTP the
 * session is; a local in-process caller (CLI, tests) is its principal. Stateless HTTP (2026-07-28) and REST
 * have none: they pass the `run_id` that `script__start` returned.
 */
export function clientKeyOf(ctx: CallContext, instanceId: string): string | undefined {
  if (ctx.transport === 'stdio') return `stdio:${instanceId}`;
  if (ctx.mcp?.sessionId) return `session:${ctx.mcp.sessionId}`;
  if (ctx.transport === 'cli' || ctx.transport === 'internal') return `${ctx.transport}:${ctx.principal.id}`;
  return undefined;
}

export class ScriptRuns {
  private readonly runs = new Map<string, LiveRun>();
  private readonly clients = new Map<string, string>();
  /** Rebuilds in progress, so two calls arriving together after a restart share one. */
  private readonly restoring = new Map<string, Promise<LiveRun>>();

  constructor(private readonly opts: RunsOptions) {}

  private newSession(): ScriptSession {
    const { roots, projectDir, confine, runner, pythonEnv } = this.opts;
    return new ScriptSession({ roots, projectDir, confine, runner, ...(pythonEnv ? { pythonEnv } : {}) });
  }

  private attach(id: string, principal: string, session: ScriptSession, entries: number): LiveRun {
    const { store, logger } = this.opts;
    let run: LiveRun | undefined;
    // A journal write that fails must not lose the step for the run in memory: it goes on, and only a restart
    // could not rebuild it (said in the log).
    session.record(async (event: ScriptEvent) => {
      try {
        await store.scriptRuns.append(id, [event as unknown as Record<string, unknown>]);
        if (run) run.entries++;
        this.opts.changed?.({ id, status: 'running', principal });
      } catch (err) {
        logger.warn({ err, run: id }, 'script run journal append failed; this run cannot be continued after a restart');
      }
    });
    if (this.opts.cassette) session.record(this.opts.cassette, { all: true });
    run = { id, principal, session, queue: Promise.resolve(), lastUsed: Date.now(), busy: 0, entries };
    this.runs.set(id, run);
    return run;
  }

  /** Rebuild a run from its journal (once, however many calls ask at the same time). */
  private restore(record: ScriptRun): Promise<LiveRun> {
    let pending = this.restoring.get(record.id);
    if (!pending) {
      pending = this.rebuild(record).finally(() => this.restoring.delete(record.id));
      this.restoring.set(record.id, pending);
    }
    return pending;
  }

  /** Replay every recorded call of a run through a fresh executor without running a step. */
  private async rebuild(record: ScriptRun): Promise<LiveRun> {
    const live = this.runs.get(record.id);
    if (live) return live;
    const journal = (await this.opts.store.scriptRuns.journal(record.id)) as unknown as ScriptEvent[];
    const cursor = new ReplayCursor(journal, 'journal');
    // No recorders yet: replaying must not journal the run a second time.
    const session = new ScriptSession({
      roots: this.opts.roots,
      projectDir: this.opts.projectDir,
      confine: this.opts.confine,
      runner: new ReplayRunner(cursor),
      ...(this.opts.pythonEnv ? { pythonEnv: this.opts.pythonEnv } : {}),
    });
    try {
      await replayEvents(session, cursor, new AbortController().signal);
    } catch (err) {
      await session.executor.dispose();
      if (err instanceof ReplayMismatch) {
        await this.opts.store.scriptRuns.update(record.id, { status: 'finished' });
        this.opts.logger.warn({ run: record.id, err: err.message }, 'script run replay diverged');
      }
      // The script is as it was; the machine lacks Python. The run stays open for when it has it again.
      if (err instanceof PythonMissing)
        throw new SwitchboardError(
          'UNAVAILABLE',
          `Script run '${record.id}' cannot be continued now: its compiled script ${err.file} is a Python script (mekara's format) and ${err.problem}. Install Python on that PATH (or start Switchboard with a PATH that has it); the run is kept, and the same call continues it then.`,
          { ...err.details, run_id: record.id },
        );
      throw err;
    }
    // The executor's state is rebuilt; from here its auto steps run for real again.
    session.useRunner(this.opts.runner);
    this.opts.logger.info({ run: record.id, entries: journal.length }, 'script run restored from its journal');
    return this.attach(record.id, record.principal, session, journal.length);
  }

  /**
   * The run in memory if it is still the latest state: a run idle here whose journal another hub extended (the
   * client's next call went to another instance), finished or removed is dropped, so the caller reads the store.
   * A run with a call in progress here is current by definition (this hub is writing its journal).
   */
  private async fresh(run: LiveRun | undefined): Promise<LiveRun | undefined> {
    if (!run || run.busy > 0) return run;
    const record = await this.opts.store.scriptRuns.get(run.id);
    if (record?.status === 'running' && record.entries === run.entries) return run;
    this.runs.delete(run.id);
    for (const [k, id] of this.clients) if (id === run.id) this.clients.delete(k);
    this.opts.logger.debug({ run: run.id }, 'script run moved on elsewhere; rebuilding it from its journal');
    return undefined;
  }

  /** The run for an explicit run_id: in memory, else rebuilt from the store. The caller must own it. */
  private async byId(id: string, principal: string): Promise<LiveRun> {
    const live = await this.fresh(this.runs.get(id));
    if (live) {
      if (live.principal !== principal) throw notYours(id);
      return live;
    }
    const record = await this.opts.store.scriptRuns.get(id).catch(() => undefined);
    if (record?.status !== 'running')
      throw new SwitchboardError(
        'NOT_FOUND',
        `No running script run '${id}'. It finished, or the id is wrong; call script__status without run_id to see your runs.`,
      );
    if (record.principal !== principal) throw notYours(id);
    return this.restore(record);
  }

  /**
   * The run this client drives now, if any: in memory, else the newest journalled run of the same client key. A
   * new stdio process is a new client, so it starts a new stack; what an earlier one left is continued by run_id.
   */
  private async current(key: string, principal: string): Promise<LiveRun | undefined> {
    const id = this.clients.get(key);
    const live = await this.fresh(id ? this.runs.get(id) : undefined);
    if (live) return live;
    const record = (
      await this.opts.store.scriptRuns.list({ clientKey: key, principal, status: 'running', limit: 1 })
    )[0];
    if (!record) return undefined;
    const run = await this.restore(record);
    this.clients.set(key, run.id);
    return run;
  }

  /**
   * Delete unfinished runs nobody touched since `before` whose client is gone (see pruneUnfinished); a run
   * working or being rebuilt here is kept.
   */
  pruneUnfinished(before: string): Promise<number> {
    return pruneUnfinished(
      this.opts.store,
      before,
      (id) => (this.runs.get(id)?.busy ?? 0) > 0 || this.restoring.has(id),
    );
  }

  /**
   * Mark this hub's stdio runs as left by a process that ended (it is stopping): the next stdio hub lists them and
   * continues one by run_id. End the scripts held in memory (Python runners exit); their journals bring them back.
   */
  async release(): Promise<void> {
    for (const run of this.runs.values()) await run.session.executor.dispose();
    const own = `stdio:${this.opts.instanceId}`;
    for (const [key, id] of this.clients) {
      if (key !== own) continue;
      await this.opts.store.scriptRuns
        .update(id, { clientKey: RELEASED_STDIO })
        .catch((err) => this.opts.logger.warn({ err, run: id }, 'could not release a script run'));
    }
  }

  /**
   * Answer a run tool for the calling client. `input.run_id` picks a run explicitly (and binds it to this
   * client); otherwise the client's current run is used, and `script__start` opens a new one when there is none.
   */
  async call(tool: RunTool, input: Record<string, unknown>, ctx: CallContext): Promise<RunAnswer> {
    const { run_id: runId, ...rest } = input as { run_id?: string } & Record<string, unknown>;
    const principal = ctx.principal.id;
    const key = clientKeyOf(ctx, this.opts.instanceId);
    let run: LiveRun | undefined;
    if (typeof runId === 'string') {
      run = await this.byId(runId, principal);
      if (key && this.clients.get(key) !== run.id) {
        this.clients.set(key, run.id);
        await this.opts.store.scriptRuns.update(run.id, { clientKey: key });
      }
    } else if (key) {
      run = await this.current(key, principal);
    } else if (tool !== 'script__start') {
      throw new SwitchboardError(
        'INVALID_INPUT',
        'run_id: this client has no session, so pass the run_id that script__start returned.',
      );
    }
    if (!run) {
      if (tool === 'script__status') return this.idleStatus(principal);
      if (tool !== 'script__start')
        throw new SwitchboardError('CONFLICT', 'No script is running for this client. Call script__start to run one.');
      const id = newRunId();
      const name = typeof rest.name === 'string' ? rest.name : 'script';
      await this.opts.store.scriptRuns.create({ id, clientKey: key ?? `run:${id}`, principal, name });
      run = this.attach(id, principal, this.newSession(), 0);
      this.opts.changed?.({ id, status: 'running', principal });
      if (key) this.clients.set(key, id);
    }
    const target = run;
    // Looking must not wait behind a call that is running auto steps (a long build): say what runs now.
    const changes = tool !== 'script__status';
    if (!changes && target.busy > 0) return { ...this.runningStatus(target), runId: target.id };
    if (changes) target.busy++;
    target.lastUsed = Date.now();
    // A client without a session names its run in every call: its suggested next calls say which.
    const sessionless = key ? undefined : target.id;
    const tracer = ctx.services.tracer;
    const tracing = tracer && ctx.trace ? { tracer, parent: ctx.trace } : undefined;
    const result = target.queue.then(() => target.session.call(tool, rest, ctx.signal, sessionless, tracing));
    target.queue = result.catch(() => {});
    try {
      const answer = await result.finally(() => this.settle(target));
      return { ...answer, runId: target.id };
    } finally {
      if (changes) target.busy--;
      target.lastUsed = Date.now();
      this.evictIdle(target.lastUsed);
    }
  }

  /** Drop runs idle for an hour from memory (not from the store): a client that comes back rebuilds them. */
  private evictIdle(now: number): void {
    for (const run of this.runs.values()) {
      if (run.busy > 0 || this.restoring.has(run.id) || now - run.lastUsed < IDLE_MS) continue;
      this.runs.delete(run.id);
      void run.session.executor.dispose();
      for (const [k, id] of this.clients) if (id === run.id) this.clients.delete(k);
    }
  }

  /** A run whose stack emptied is finished: marked in the store and dropped from memory. */
  private settle(run: LiveRun): Promise<void> | undefined {
    if (run.session.executor.running || !this.runs.has(run.id)) return;
    this.runs.delete(run.id);
    for (const [k, id] of this.clients) if (id === run.id) this.clients.delete(k);
    return this.opts.store.scriptRuns
      .update(run.id, { status: 'finished' })
      .then(() => this.opts.changed?.({ id: run.id, status: 'finished', principal: run.principal }))
      .catch((err) => this.opts.logger.warn({ err, run: run.id }, 'could not mark a script run finished'));
  }

  /** The stack of a run this process holds in memory; undefined for runs elsewhere (finished, idle, another hub). */
  view(id: string): RunView | undefined {
    const run = this.runs.get(id);
    if (!run) return undefined;
    const ex = run.session.executor;
    const p = ex.pending();
    return {
      stack: ex.stack.map((f) => ({
        label: frameLabel(f),
        script: f.script.name,
        kind: f.kind,
        args: f.args,
        workingDir: f.workingDir,
      })),
      waiting:
        p.kind === 'none'
          ? null
          : p.kind === 'llm'
            ? { kind: 'llm', prompt: p.step.prompt }
            : p.kind === 'shell_failure'
              ? { kind: 'shell_failure', prompt: `${p.failure.command} exited with ${p.failure.exit_code}` }
              : { kind: p.kind },
      busy: run.busy > 0,
    };
  }

  private runningStatus(run: LiveRun): RunAnswer {
    const ex = run.session.executor;
    const top = ex.stack.at(-1);
    const step = top?.kind === 'compiled' ? top.step : undefined;
    const doing = step?.__switchboardStep === 'auto' ? `the auto step \`${autoLabel(step)}\`` : 'its steps';
    return {
      text: `Stack: \`${ex.trace()}\`\n\nAnother call is running this script now (${doing}). Its answer will say what comes next; ask again after it returns.`,
      state: 'running',
    };
  }

  private async idleStatus(principal: string): Promise<RunAnswer> {
    const { store } = this.opts;
    const open = await store.scriptRuns.list({ principal, status: 'running', limit: 10 });
    const lines = ['No script is running for this client. Call `script__start` to run one.'];
    if (open.length) {
      lines.push('', 'Unfinished runs you can continue by passing their `run_id` to any script tool:');
      for (const r of open)
        lines.push(`- \`${r.id}\`: \`${r.name}\`, last active ${r.updatedAt}, ${await holderOf(store, r)}`);
    }
    return { text: lines.join('\n'), state: 'idle' };
  }
}

function notYours(id: string): SwitchboardError {
  return new SwitchboardError('FORBIDDEN', `Script run '${id}' was started by another principal.`);
}
