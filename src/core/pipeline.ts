// The one way in: every transport turns its request into a CallRequest and gets an Outcome back.
// What runs in it, in order, is listed once in `assemblePipeline` (src/hub.ts).
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { callerPaths, errorForCaller, type PathRewriter } from './caller-paths.ts';
import { Cancellation, type CancelWatch } from './cancellation.ts';
import { isInputRequired, isRawResult, type RawResult } from './capability.ts';
import type {
  CallContext,
  ClientChannel,
  LogLevel,
  McpCallInfo,
  Principal,
  Services,
  TransportKind,
} from './context.ts';
import { type Deadline, deadlines } from './deadlines.ts';
import { type ErrorInfo, SwitchboardError, toErrorInfo } from './errors.ts';
import { type LoadProblem, problemText } from './load-problems.ts';
import { nearestNames } from './nearest-names.ts';
import { inProfile } from './profile.ts';
import type { Entry, Registry } from './registry.ts';
import { allowed, visible } from './registry.ts';
import { childSpan, type Span, type TraceContext } from './trace-context.ts';

export interface CallRequest {
  principal: Principal;
  /** Capability name or tool name. */
  name: string;
  input: unknown;
  transport: TransportKind;
  signal?: AbortSignal;
  /**
   * A Cancellation the transport made for this call alone (instead of `signal`): the transport aborts it on cancel
   * and the pipeline on timeout, with nothing linked in between.
   */
  cancellation?: Cancellation;
  requestId?: string;
  progress?: (progress: number, total?: number, message?: string) => Promise<void>;
  log?: (level: LogLevel, data: unknown) => Promise<void>;
  client?: ClientChannel;
  meta?: Record<string, unknown>;
  /** MCP-only request data; set by MCP transports only. */
  mcp?: McpCallInfo;
  /** The caller's W3C trace (a `traceparent` in `_meta` or an HTTP header): the call continues it. */
  trace?: TraceContext;
  /**
   * The registry entry of `name`, when the transport's edge looked it up and found it shown to `principal` in the
   * same turn (src/serve/mcp-edge.ts): the pipeline runs it without looking it up again.
   */
  entry?: Entry;
}

export type Outcome = { ok: true; value: unknown; raw?: RawResult } | { ok: false; error: ErrorInfo };

/** State that flows through the middleware chain for one call. */
export interface CallState {
  req: CallRequest;
  entry: Entry;
  ctx: CallContext;
  /** Parsed input, set by the validate step (or earlier by a step that needs it, such as the result cache). */
  input?: unknown;
  /** Whether the result cache answered the call (`hit`) or was asked and ran it (`miss`); absent: not cached. */
  cache?: 'hit' | 'miss';
  /** Time limit for this call, when policy middleware resolved one (else the capability's, else the default). */
  timeoutMs?: number;
  /** `performance.now()` when the call passed lookup. */
  startedAt: number;
  /** How long the call took (ms), set once it has an outcome, before the observers see it. */
  durationMs: number;
  /** The call's exported span, when telemetry is on (started and ended by its observers, src/observe/). */
  span?: Span;
}

export type Next = () => Promise<Outcome>;
export type Middleware = (state: CallState, next: Next) => Promise<Outcome>;

const noopAsync = async () => {};

/** Format Zod issues the way a model can act on: which field, what was expected. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): {
  message: string;
  issues: { path: string; message: string }[];
} {
  const list = issues.map((i) => ({
    path: i.path.length ? i.path.map(String).join('.') : '(root)',
    message: i.message,
  }));
  return { message: list.map((i) => `${i.path}: ${i.message}`).join('; '), issues: list };
}

/** Parse `input` with a capability's schema or fail with INVALID_INPUT naming each field. */
export function validateInput(entry: Entry, input: unknown): unknown {
  const parsed = entry.capability.input.safeParse(input ?? {});
  if (parsed.success) return parsed.data;
  const { message, issues } = describeIssues(parsed.error.issues);
  throw new SwitchboardError('INVALID_INPUT', `Invalid input for ${entry.tool.name}: ${message}`, { issues });
}

/**
 * Validates, bounds in time, runs and observes one call. Policy (roles, rate limits, breakers, audit)
 * plugs in as middleware through `use`, in the order given.
 */
export class Pipeline {
  private chain: Middleware[] = [validate, execute];
  private readonly observers: ((state: CallState, outcome: Outcome) => void)[] = [];
  private readonly refusals: ((req: CallRequest, error: ErrorInfo) => void)[] = [];
  private readonly starts: ((state: CallState) => void)[] = [];

  /** Rewrites absolute server paths in text for callers (failed calls here; resource and prompt errors in serve). */
  readonly pathsForCaller: PathRewriter;

  constructor(private readonly services: Services) {
    this.pathsForCaller = callerPaths(services.projectDir);
  }

  /** Add a middleware that runs after lookup and before validation (auth, rate limit, breaker), in order. */
  use(mw: Middleware): this {
    this.chain = [...this.chain.slice(0, -2), mw, validate, execute];
    return this;
  }

  /** Note the start of every call that passed lookup (in-flight gauges): synchronous, no middleware frame. */
  onStart(fn: (state: CallState) => void): this {
    this.starts.push(fn);
    return this;
  }

  /** Observe calls refused before lookup succeeded (unknown or hidden tools) — the audit trail records them. */
  observeRefusals(fn: (req: CallRequest, error: ErrorInfo) => void): this {
    this.refusals.push(fn);
    return this;
  }

  /** Observe every finished call (metrics, events, audit). Observers must not throw. */
  observe(fn: (state: CallState, outcome: Outcome) => void): this {
    this.observers.push(fn);
    return this;
  }

  async call(asked: CallRequest): Promise<Outcome> {
    let req = asked;
    // The transport's edge may have looked the tool up (and checked it is shown) in this same turn already.
    let entry = req.entry ?? this.services.registry.get(req.name);
    let shown = req.entry !== undefined || (entry !== undefined && visible(req.principal, entry.capability));
    // A call that stands for another (catalog.call) continues as that call, from lookup on.
    if (entry?.capability.forwards && shown) {
      const target = forwardedCall(req, entry.capability.forwards, this.services.registry);
      if ('code' in target) return this.refuse(req, target);
      req = target;
      entry = this.services.registry.get(req.name);
      shown = entry !== undefined && visible(req.principal, entry.capability);
    }
    // A capability the principal may not see answers exactly like an unknown one.
    if (!entry || !shown) return this.refuse(req, notVisible(req.principal, req.name, entry, this.services));
    const state: CallState = { req, entry, ctx: this.contextFor(req), startedAt: performance.now(), durationMs: 0 };
    for (const s of this.starts) s(state);
    const chain = this.chain;
    let outcome: Outcome;
    try {
      const dispatch = (i: number): Promise<Outcome> => chain[i](state, () => dispatch(i + 1));
      outcome = await dispatch(0);
    } catch (err) {
      outcome = { ok: false, error: toErrorInfo(err) };
    }
    // Measured once for every observer (metrics, events, audit): a clock read each cost more than the arithmetic.
    state.durationMs = performance.now() - state.startedAt;
    for (const o of this.observers) {
      try {
        o(state, outcome);
      } catch (err) {
        this.services.logger.warn({ err }, 'call observer failed');
      }
    }
    // After the observers: the audit trail and event log keep the full paths, as the logs do.
    return outcome.ok ? outcome : { ok: false, error: errorForCaller(outcome.error, this.pathsForCaller) };
  }

  /** Answer a call refused before it reached a capability; the refusal observers (the audit trail) see it. */
  private refuse(req: CallRequest, error: ErrorInfo): Outcome {
    for (const r of this.refusals) {
      try {
        r(req, error);
      } catch {
        // Observers must not change the answer.
      }
    }
    return { ok: false, error: errorForCaller(error, this.pathsForCaller) };
  }

  private contextFor(req: CallRequest): CallContext {
    return new PipelineContext(req, this.services, this.defaultLog);
  }

  /** Handler logs of calls whose transport has no client to log to go to the hub's logger. */
  private readonly defaultLog = async (level: LogLevel, data: unknown): Promise<void> => {
    this.services.logger[level === 'warning' ? 'warn' : level === 'notice' ? 'info' : level]({ data }, 'handler log');
  };
}

/**
 * A call's context. A class rather than a literal so the per-call cost is one object: `signal` is a getter on the
 * prototype that makes the AbortController only when a handler reads it (`execute` sets the cancellation).
 */
class PipelineContext implements CallContext {
  principal: Principal;
  transport: TransportKind;
  requestId: string;
  cancellation?: CancelWatch;
  progress: (progress: number, total?: number, message?: string) => Promise<void>;
  log: (level: LogLevel, data: unknown) => Promise<void>;
  client: ClientChannel;
  meta?: Record<string, unknown>;
  mcp?: McpCallInfo;
  trace?: TraceContext;
  span?: Span;
  services: Services;

  constructor(req: CallRequest, services: Services, defaultLog: (level: LogLevel, data: unknown) => Promise<void>) {
    this.principal = req.principal;
    this.transport = req.transport;
    this.requestId = req.requestId ?? randomUUID();
    this.progress = req.progress ?? noopAsync;
    this.log = req.log ?? defaultLog;
    this.client = req.client ?? {};
    this.meta = req.meta;
    this.mcp = req.mcp;
    // With telemetry on, the call's exported span is its span instead (set as the call starts: src/observe/).
    if (req.trace && !services.tracer) this.trace = childSpan(req.trace);
    this.services = services;
  }

  get signal(): AbortSignal {
    // Before `execute` (a middleware reading it) there is no call cancellation yet: make it here.
    this.cancellation ??= new Cancellation();
    return this.cancellation.signal;
  }
}

/**
 * The answer to a call of a name the caller cannot see. Under a profile it names the profile: a tool the caller's
 * roles allow but the profile leaves out says so (the caller could see it without the profile); anything else
 * reads as unknown, with the nearest names the caller can see.
 */
function notVisible(principal: Principal, name: string, entry: Entry | undefined, services: Services): ErrorInfo {
  const { registry, problems } = services;
  const profile = principal.profile;
  if (profile && entry && allowed(principal, entry.capability.roles) && !inProfile(profile, entry.capability.name))
    return {
      code: 'NOT_FOUND',
      message: `Tool '${name}' is not in profile '${profile.name}': its allow/deny globs ([profiles.${profile.name}]) leave it out. List the profile's tools with tools/list (or GET /v1/tools).`,
      details: { profile: profile.name },
    };
  const broken = entry ? undefined : problems.forTool(name);
  if (broken) return notLoaded(name, broken);
  const held = entry ? undefined : services.withheld?.(name, principal);
  if (held) return held;
  return unknownTool(name, nearestVisible(registry, principal, name), profile?.name);
}

/** The answer to a call of a tool no file defines now because the file that would define it failed to load. */
function notLoaded(name: string, problem: LoadProblem): ErrorInfo {
  const what = { handlers: 'handler module', plugins: 'plugin manifest', scripts: 'script' }[problem.source];
  const restart = problem.source === 'handlers' ? ' and restart Switchboard (handler modules load at start)' : '';
  return {
    code: 'NOT_FOUND',
    message: `Tool '${name}' is not loaded: the ${what} that defines it failed to load — ${problemText(problem)}. Fix the file${restart}; system.health lists every file that failed to load.`,
    details: { file: problem.file, ...(problem.line === undefined ? {} : { line: problem.line }) },
  };
}

/** The answer to a call of a name the caller cannot see, with the nearest names it can (`nearest`), if any. */
export function unknownTool(name: string, nearest: readonly string[] = [], profile?: string): ErrorInfo {
  const quoted = nearest.map((n) => `'${n}'`);
  const guess = quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}` : quoted[0];
  return {
    code: 'NOT_FOUND',
    message: `Unknown tool '${name}'${profile ? ` in profile '${profile}'` : ''}.${guess ? ` Did you mean ${guess}?` : ''} List the available tools with tools/list (or GET /v1/tools).`,
  };
}

/** The call a forwarding capability stands for, or why there is none (its input is wrong, or it forwards again). */
function forwardedCall(
  req: CallRequest,
  forwards: NonNullable<Entry['capability']['forwards']>,
  registry: Services['registry'],
): CallRequest | ErrorInfo {
  let target: { name: string; input: unknown };
  try {
    target = forwards(req.input ?? {});
  } catch (err) {
    return toErrorInfo(err);
  }
  if (registry.get(target.name)?.capability.forwards)
    return { code: 'INVALID_INPUT', message: `${req.name} cannot call '${target.name}': it calls other tools itself.` };
  const { entry: _forwarder, ...rest } = req;
  return { ...rest, name: target.name, input: target.input };
}

/**
 * The visible names nearest to an unknown one, spelled the way the caller spelled it: capability names
 * (`task.create`) for a dotted name, tool names (`task__create`) otherwise.
 */
function nearestVisible(registry: Registry, principal: Principal, name: string): string[] {
  const dotted = name.includes('.') && !name.includes('__');
  const names: string[] = [];
  for (const entry of registry.entries())
    if (visible(principal, entry.capability)) names.push(dotted ? entry.capability.name : entry.tool.name);
  return nearestNames(name, names);
}

// Not async: a call that passes validation goes straight on to `execute` without a promise of its own.
const validate: Middleware = (state, next) => {
  // Already parsed by an earlier step (the result cache keys on the parsed input).
  if (state.input !== undefined) return next();
  try {
    state.input = validateInput(state.entry, state.req.input);
  } catch (err) {
    return Promise.reject(err);
  }
  return next();
};

/** Run the handler under a timeout linked to the caller's signal; check the output against its schema. */
const execute: Middleware = async (state) => {
  const { capability } = state.entry;
  const timeoutMs =
    state.timeoutMs ?? capability.policy?.timeoutMs ?? state.ctx.services.config.get().policy.timeout_ms;
  const cancellation = state.req.cancellation ?? new Cancellation();
  const detach = state.req.signal ? cancellation.follow(state.req.signal) : undefined;
  let timedOut = false;
  if (cancellation.aborted)
    return { ok: false, error: { code: 'CANCELLED', message: 'The call was cancelled before it started.' } };
  let deadline: Deadline | undefined;
  const expire = () => {
    timedOut = true;
    cancellation.abort(new SwitchboardError('TIMEOUT', `${state.entry.tool.name} timed out after ${timeoutMs} ms.`));
  };
  const arm = () => {
    deadline?.cancel();
    deadline = deadlines.arm(timeoutMs, expire);
  };
  arm();
  const ctx = state.ctx;
  ctx.cancellation = cancellation;
  if (capability.policy?.progressResetsTimeout) {
    const progress = ctx.progress;
    ctx.progress = (p, t, m) => {
      if (!timedOut) arm();
      return progress(p, t, m);
    };
  }
  try {
    const returned = capability.handle(state.input, ctx);
    // Wait for a promise only until the signal aborts: a handler that ignores its signal cannot hold the call.
    const value = isThenable(returned) ? await untilAborted(returned, cancellation) : returned;
    if (isRawResult(value)) {
      // MCP transports route a call by the declaration before it runs (serve/mcp-edge.ts): an undeclared ask is a bug.
      if (isInputRequired(value) && !capability.interactive)
        return {
          ok: false,
          error: {
            code: 'INTERNAL',
            message: `${state.entry.tool.name} asked the client for input (inputRequired) but is not declared interactive; add \`interactive: true\` to its definition.`,
          },
        };
      // Only an MCP client can answer an input request; elsewhere it is a capability this caller cannot use.
      if (isInputRequired(value) && !ctx.mcp)
        return {
          ok: false,
          error: {
            code: 'UNAVAILABLE',
            message: `${state.entry.tool.name} needs input that only an MCP client can provide (input_required); call it over MCP.`,
          },
        };
      return { ok: true, value: value.structuredContent, raw: value };
    }
    if (capability.output) {
      const parsed = capability.output.safeParse(value);
      if (!parsed.success) {
        const { message } = describeIssues(parsed.error.issues);
        return {
          ok: false,
          error: {
            code: 'INTERNAL',
            message: `${state.entry.tool.name} returned output that does not match its schema: ${message}`,
          },
        };
      }
      return { ok: true, value: parsed.data };
    }
    return { ok: true, value };
  } catch (err) {
    if (timedOut)
      return {
        ok: false,
        error: {
          code: 'TIMEOUT',
          message: `${state.entry.tool.name} timed out after ${timeoutMs} ms.`,
          details: { timeoutMs },
        },
      };
    if (cancellation.aborted)
      return { ok: false, error: { code: 'CANCELLED', message: 'The call was cancelled by the caller.' } };
    return { ok: false, error: toErrorInfo(err) };
  } finally {
    deadline?.cancel();
    detach?.();
  }
};

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function untilAborted<T>(work: PromiseLike<T>, cancellation: Cancellation): Promise<T> {
  if (cancellation.aborted) return Promise.reject(cancellation.reason);
  return new Promise<T>((resolve, reject) => {
    const off = cancellation.onAbort(reject);
    work.then(
      (v) => {
        off();
        resolve(v);
      },
      (e) => {
        off();
        reject(e);
      },
    );
  });
}
