// One upstream MCP server, supervised: connect through the official SDK client (stdio child, Streamable HTTP with
// 2026-07-28 negotiation and 2025 fallback, or legacy SSE), list what it offers, restart it with backoff when it
// goes away, and forward calls with progress, cancellation and per-server timeouts. Past ~400 lines: the lifecycle
// is one state machine, read top to bottom; the transport it opens and the errors it maps live in upstream-edges.ts,
// the OAuth provider in oauth/. The OAuth hooks added here (401 refresh, step-up, login required, ~80 lines) are the
// next thing to move out, beside oauth/session.ts.
import {
  Client,
  type GetPromptResult,
  InsufficientScopeError,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/client';
import type { Logger } from 'pino';
import { version } from '../../version.ts';
import { type CancelWatch, watchSignal } from '../cancellation.ts';
import type { ClientChannel } from '../context.ts';
import { SwitchboardError } from '../errors.ts';
import { paramHeadersOf, paramHeaderValues } from '../mcp-param-headers.ts';
import { CallLane } from './call-lane.ts';
import { checkCallToolResult } from './call-result.ts';
import type { OAuthSession } from './oauth/session.ts';
import type { ResolvedServer } from './server-spec.ts';
import { callError, describeConnectError, isSessionGone, openTransport } from './upstream-edges.ts';

/** What a server offers, as it listed it (tool schemas untouched). */
export interface Catalog {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  serverInfo?: { name: string; version: string };
  listedAt: string;
}

export type ConnectionStatus = 'connecting' | 'connected' | 'failed' | 'login_required' | 'stopped';

export interface ConnectionEvents {
  /** A fresh listing arrived (first connect, reconnect, or a list_changed from the server). */
  catalog(conn: UpstreamConnection): void;
  /** The status changed (for health, events and `mcp list --status`). */
  status(conn: UpstreamConnection): void;
}

export interface CallOptions {
  /** The call's cancellation (a pipeline call's own, or `watchSignal(signal)`); its abort cancels the request. */
  cancel: CancelWatch;
  onprogress?: (p: { progress: number; total?: number; message?: string }) => void;
  /** The calling client's side channel: elicitation and sampling requests from the server are passed to it. */
  client?: ClientChannel;
}

/** Reconnect delays: 0.5 s doubling to 30 s; a connection that stayed up for a minute starts over at 0.5 s. */
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const STABLE_MS = 60_000;
/** While a login is required, the store is read this often for a new one (`mcp login` from another process). */
const LOGIN_POLL_MS = 2_000;
/** The SDK's own per-request timer is disabled for tool calls: the pipeline's timeout (reset by progress) rules. */
const NO_SDK_TIMEOUT = 2_147_483_647;
/** Longest stderr line kept in the log; a chatty child must not flood ours. */
/**
 * The result schema handed to the SDK client for tool calls: it accepts anything, so every tool result — from the
 * SDK client or the call lane — is checked once, by `checkCallToolResult`, with one kind of error.
 */
const UNCHECKED_RESULT = {
  '~standard': { version: 1 as const, vendor: 'switchboard', validate: (value: unknown) => ({ value }) },
};

export class UpstreamConnection {
  status: ConnectionStatus = 'connecting';
  /** Why the last attempt failed or the connection closed. */
  lastError?: string;
  catalog?: Catalog;
  /** Round trip of the last listing, in milliseconds. */
  rttMs?: number;
  /** How many times the server was (re)connected after the first time. */
  restarts = 0;
  /** The protocol era the SDK negotiated (`modern` = 2026-07-28, `legacy` = a 2025 server). */
  era?: 'modern' | 'legacy';

  private client?: Client;
  /** The fast path for tool calls on a stdio connection (see call-lane.ts). */
  private lane?: CallLane;
  private progressSeq = 0;
  private readonly progressRoutes = new Map<string, NonNullable<CallOptions['onprogress']>>();
  /** Calls in flight, newest last: a server's elicitation or sampling request goes to the newest that can answer. */
  private readonly inflight: ClientChannel[] = [];
  private stopping = false;
  private failures = 0;
  private connectedAt = 0;
  private retryTimer?: NodeJS.Timeout;
  private attempt?: Promise<void>;
  private readonly waiters = new Set<() => void>();

  constructor(
    readonly server: ResolvedServer,
    private readonly logger: Logger,
    private readonly events: ConnectionEvents,
    /** The OAuth login this connection uses (a remote server with `[servers.oauth]`). */
    readonly oauth?: OAuthSession,
  ) {}

  get name(): string {
    return this.server.name;
  }

  /** Begin connecting in the background; never throws. */
  start(): void {
    this.attempt ??= this.connect().finally(() => {
      this.attempt = undefined;
    });
  }

  /**
   * The connected client, waiting for a connection in progress up to the startup timeout. A server that is
   * down answers at once with why, so calls fail fast while it is being restarted.
   */
  async ready(cancel?: CancelWatch): Promise<Client> {
    if (this.client && this.status === 'connected') return this.client;
    if (this.status === 'stopped')
      throw new SwitchboardError('UNAVAILABLE', `Upstream server '${this.name}' was removed or stopped.`, {
        server: this.name,
        breaker: 'upstream-down',
      });
    if (this.status === 'failed') throw this.unavailable();
    if (this.status === 'login_required' && this.oauth) throw this.oauth.loginRequired();
    await new Promise<void>((resolve) => {
      let unwatch: (() => void) | undefined;
      const done = () => {
        clearTimeout(timer);
        unwatch?.();
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.server.startupTimeoutMs);
      this.waiters.add(done);
      // Last: an abort that already happened calls `done` at once.
      unwatch = cancel?.onAbort(done);
    });
    if (cancel?.aborted) throw cancel.reason ?? new SwitchboardError('CANCELLED', 'The call was cancelled.');
    if (this.client && this.status === 'connected') return this.client;
    if (this.status === 'login_required' && this.oauth) throw this.oauth.loginRequired();
    throw this.unavailable();
  }

  private unavailable(): SwitchboardError {
    const why = this.lastError ? `: ${this.lastError}` : ' yet';
    return new SwitchboardError(
      'UNAVAILABLE',
      `Upstream server '${this.name}' is not connected${why}. Switchboard keeps retrying; check it with \`switchboard mcp list --status\`.`,
      // Refused before anything was sent: breakers do not count it (see policy/steps/breaker.ts).
      { server: this.name, breaker: 'upstream-down' },
    );
  }

  /**
   * Forward a tool call. Protocol and transport failures become SwitchboardErrors; tool errors stay results.
   * The time limit is the pipeline's (`timeout_ms`, restarted by each progress notification); its abort reaches
   * the server as `notifications/cancelled`.
   */
  async callTool(tool: string, args: Record<string, unknown>, opts: CallOptions): Promise<Record<string, unknown>> {
    // Progress is routed here rather than through the SDK's per-request callback: the SDK drops a progress
    // notification that arrives in the same read as the result, which is the usual case for the last one.
    const token = opts.onprogress ? `sb-${++this.progressSeq}` : undefined;
    if (token && opts.onprogress) this.progressRoutes.set(token, opts.onprogress);
    const channel = opts.client ?? {};
    this.inflight.push(channel);
    try {
      const params = { name: tool, arguments: args, ...(token ? { _meta: { progressToken: token } } : {}) };
      const result = await this.forward(`tools/call of '${tool}'`, opts.cancel, (client) =>
        this.lane
          ? this.lane.call(params, opts.cancel)
          : client.request({ method: 'tools/call', params }, UNCHECKED_RESULT, {
              signal: opts.cancel.signal,
              timeout: NO_SDK_TIMEOUT,
              headers: this.paramHeaders(tool, args),
            }),
      );
      return checkCallToolResult(this.name, tool, result);
    } finally {
      // After the result: a progress notification read together with it is handled first, then the route goes.
      if (token) setImmediate(() => this.progressRoutes.delete(token));
      this.inflight.splice(this.inflight.lastIndexOf(channel), 1);
    }
  }

  /**
   * The `Mcp-Param-*` headers a 2026-07-28 server checks against the body (SEP-2243), from the tool's input schema
   * as listed. The SDK client's `callTool` mirrors them too, but parses the result with its own schema first; the
   * raw request keeps one check of every result (`checkCallToolResult`) and its UPSTREAM errors.
   */
  private paramHeaders(tool: string, args: Record<string, unknown>): Record<string, string> | undefined {
    if (this.era !== 'modern') return undefined;
    const schema = this.catalog?.tools.find((t) => t.name === tool)?.inputSchema;
    const declared = schema ? paramHeadersOf(schema as Record<string, unknown>) : [];
    return declared.length ? paramHeaderValues(declared, args) : undefined;
  }

  async readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    return this.forward(`resources/read of '${uri}'`, watchSignal(signal), (client) =>
      client.readResource({ uri }, { signal, timeout: this.server.timeoutMs, cacheMode: 'bypass' } as never),
    );
  }

  async getPrompt(name: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult> {
    return this.forward(`prompts/get of '${name}'`, watchSignal(signal), (client) =>
      client.getPrompt({ name, arguments: args }, { signal, timeout: this.server.timeoutMs }),
    );
  }

  async complete(params: Record<string, unknown>, signal: AbortSignal): Promise<string[]> {
    return this.forward('completion/complete', watchSignal(signal), async (client) => {
      const r = await client.complete(params as never, { signal, timeout: this.server.timeoutMs });
      return r.completion.values;
    });
  }

  /**
   * Run one request on the live client. An HTTP server that forgot our session (404) is re-initialized and the
   * request sent once more; a closed connection is reported as such and the supervisor restarts the server.
   */
  private async forward<T>(request: string, cancel: CancelWatch, run: (client: Client) => Promise<T>): Promise<T> {
    const client = this.client && this.status === 'connected' ? this.client : await this.ready(cancel);
    try {
      return await run(client);
    } catch (err) {
      if (this.oauth) await this.authFailure(err, client);
      if (isSessionGone(err) && !cancel.aborted) {
        this.logger.info({ server: this.name }, 'upstream session expired (404); re-initializing');
        await this.reconnectNow(client);
        try {
          return await run(await this.ready(cancel));
        } catch (again) {
          throw callError(again, cancel, request, this.server);
        }
      }
      throw callError(err, cancel, request, this.server);
    }
  }

  /**
   * A call the server refused for its login: a 403 asking for a wider scope is remembered for the next login and
   * said so; a login that could not be renewed takes the connection to `login_required` until someone logs in.
   */
  private async authFailure(err: unknown, client: Client): Promise<void> {
    const oauth = this.oauth as OAuthSession;
    if (err instanceof InsufficientScopeError) {
      const scope = await oauth.requireScope(err.requiredScope ?? '');
      const command = oauth.loginRequired().details?.command as string;
      throw new SwitchboardError(
        'FORBIDDEN',
        `Upstream server '${this.name}' needs a wider scope for this call: '${err.requiredScope ?? '(unnamed)'}'. The next login asks for '${scope}'; run: ${command}`,
        { server: this.name, requiredScope: scope, command },
      );
    }
    if (err instanceof SwitchboardError && err.details?.loginRequired) {
      if (this.client === client) {
        this.client = undefined;
        this.lastError = err.message;
        this.setStatus('login_required');
        await client.close().catch(() => {});
        this.watchLogin();
      }
      throw err;
    }
  }

  private async reconnectNow(stale: Client): Promise<void> {
    if (this.client === stale) {
      this.client = undefined;
      this.lane = undefined;
      this.setStatus('connecting');
      await stale.close().catch(() => {});
    }
    this.start();
    await this.attempt;
  }

  private async connect(): Promise<void> {
    if (this.stopping) return;
    this.setStatus('connecting');
    const client = new Client(
      { name: 'switchboard', version },
      {
        // Elicitation and sampling from the server are passed on to the client whose call is in flight.
        capabilities: { elicitation: { form: {} }, sampling: {} },
        ...(this.server.transport === 'http' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
        listChanged: {
          tools: { autoRefresh: false, debounceMs: 50, onChanged: () => this.relist(client) },
          prompts: { autoRefresh: false, debounceMs: 50, onChanged: () => this.relist(client) },
          resources: { autoRefresh: false, debounceMs: 50, onChanged: () => this.relist(client) },
        },
      },
    );
    // What the transport and protocol layer report without failing a call: lines that are not JSON-RPC, answers
    // over the size limit, answers to unknown ids.
    client.onerror = (err) => this.logger.warn({ server: this.name, err: err.message }, 'upstream transport error');
    client.setNotificationHandler('notifications/progress', (n) => {
      const { progressToken, progress, total, message } = n.params;
      this.progressRoutes.get(String(progressToken))?.({
        progress,
        ...(total !== undefined ? { total } : {}),
        ...(message !== undefined ? { message } : {}),
      });
    });
    client.setRequestHandler('elicitation/create', async (request) => {
      const caller = this.newest((c) => c.elicit);
      // Nobody who could answer: decline, which the spec offers for exactly this, rather than fail the call.
      if (!caller?.elicit) return { action: 'decline' as const };
      const answer = (await caller.elicit(request.params as Record<string, unknown>)) as Record<string, unknown>;
      return withDefaults(answer, request.params as Record<string, unknown>) as never;
    });
    client.setRequestHandler('sampling/createMessage', async (request) => {
      const caller = this.newest((c) => c.sample);
      if (!caller?.sample)
        throw new Error(
          `Upstream server '${this.name}' asked for sampling, but the client calling it cannot sample (it did not declare the sampling capability).`,
        );
      return (await caller.sample(request.params as Record<string, unknown>)) as never;
    });
    if (this.oauth && !(await this.loggedIn())) return;
    const transport = openTransport(this.server, this.logger, this.oauth);
    const started = performance.now();
    try {
      await client.connect(transport, { timeout: this.server.startupTimeoutMs });
      if (this.stopping) {
        await client.close().catch(() => {});
        return;
      }
      const catalog = await listCatalog(client, this.server.startupTimeoutMs);
      this.rttMs = Math.round((performance.now() - started) * 10) / 10;
      this.era = client.getProtocolEra();
      if (this.stopping) {
        await client.close().catch(() => {});
        return;
      }
      this.client = client;
      this.lane = this.server.transport === 'stdio' ? new CallLane(transport, this.name) : undefined;
      this.catalog = catalog;
      this.connectedAt = Date.now();
      this.lastError = undefined;
      client.onclose = () => this.closed(client);
      this.setStatus('connected');
      this.events.catalog(this);
    } catch (err) {
      await client.close().catch(() => {});
      if (
        this.oauth &&
        (err instanceof InsufficientScopeError || (err instanceof SwitchboardError && err.details?.loginRequired))
      ) {
        // Even listing needs more than the login granted (403 insufficient_scope): the next login asks for it.
        this.lastError =
          err instanceof InsufficientScopeError
            ? `${this.oauth.loginRequired().message.replace(/ \(.*\)\. Run:/, ` with a wider scope ('${await this.oauth.requireScope(err.requiredScope ?? '')}'). Run:`)}`
            : err.message;
        this.setStatus('login_required');
        this.watchLogin();
        return;
      }
      this.lastError = describeConnectError(err, this.server);
      this.logger.warn({ server: this.name, err: this.lastError }, 'upstream server failed to connect');
      this.setStatus('failed');
      this.scheduleRetry();
    }
  }

  /** Read the login from the store; without tokens the connection waits for one instead of asking the server. */
  private async loggedIn(): Promise<boolean> {
    const oauth = this.oauth as OAuthSession;
    try {
      await oauth.load();
    } catch (err) {
      this.lastError = (err as Error).message;
      this.logger.warn({ server: this.name, err: this.lastError }, 'upstream login could not be read');
      this.setStatus('failed');
      this.scheduleRetry();
      return false;
    }
    if (oauth.hasTokens() && oauth.login?.state !== 'login_required') return true;
    this.lastError = oauth.loginRequired().message;
    this.setStatus('login_required');
    this.watchLogin();
    return false;
  }

  /** Poll the store for a new login (written by `mcp login`, perhaps in another process) and connect with it. */
  private watchLogin(): void {
    if (this.stopping || this.retryTimer || !this.oauth) return;
    const seen = this.oauth.login?.updatedAt;
    const poll = () => {
      this.retryTimer = setTimeout(async () => {
        const now = await this.oauth?.load().catch(() => undefined);
        if (this.stopping) return;
        if (now && now.updatedAt !== seen && now.state === 'active') {
          this.retryTimer = undefined;
          this.start();
        } else poll();
      }, LOGIN_POLL_MS);
      this.retryTimer.unref();
    };
    poll();
  }

  /** Connect again at once (after a login in this process), instead of at the next poll. */
  relogin(): void {
    if (this.status !== 'login_required') {
      // Connected: the next request uses the new login's tokens (a wider scope, another account).
      void this.oauth?.load().catch(() => undefined);
      return;
    }
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.start();
  }

  private newest(can: (c: ClientChannel) => unknown): ClientChannel | undefined {
    for (let i = this.inflight.length - 1; i >= 0; i--) if (can(this.inflight[i])) return this.inflight[i];
    return undefined;
  }

  private async relist(client: Client): Promise<void> {
    if (client !== this.client || this.stopping) return;
    try {
      const started = performance.now();
      this.catalog = await listCatalog(client, this.server.startupTimeoutMs);
      this.rttMs = Math.round((performance.now() - started) * 10) / 10;
      this.events.catalog(this);
    } catch (err) {
      this.logger.warn({ server: this.name, err: (err as Error).message }, 'upstream re-list failed');
    }
  }

  private closed(client: Client): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.lane = undefined;
    if (this.stopping) return;
    this.lastError = 'the server closed the connection (exited or dropped)';
    this.logger.warn({ server: this.name }, 'upstream server closed the connection; restarting');
    if (Date.now() - this.connectedAt > STABLE_MS) this.failures = 0;
    this.setStatus('failed');
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (this.stopping || this.retryTimer) return;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.failures);
    this.failures++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.restarts++;
      this.start();
    }, delay);
    this.retryTimer.unref();
  }

  private setStatus(status: ConnectionStatus): void {
    if (this.status === status) return;
    this.status = status;
    if (status !== 'connecting') {
      for (const w of [...this.waiters]) w();
      this.waiters.clear();
    }
    this.events.status(this);
  }

  /** Close the connection (and the child process) for good. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const client = this.client;
    this.client = undefined;
    this.lane = undefined;
    this.setStatus('stopped');
    await client?.close().catch(() => {});
    await this.attempt?.catch(() => {});
  }
}

/** List everything the server says it has; a capability it does not declare is simply empty. */
async function listCatalog(client: Client, timeout: number): Promise<Catalog> {
  const caps = client.getServerCapabilities() ?? {};
  const opts = { timeout, cacheMode: 'bypass' } as never;
  const [tools, resources, resourceTemplates, prompts] = await Promise.all([
    caps.tools ? client.listTools(undefined, opts).then((r) => r.tools) : [],
    caps.resources ? client.listResources(undefined, opts).then((r) => r.resources) : [],
    caps.resources
      ? client
          .listResourceTemplates(undefined, opts)
          .then((r) => r.resourceTemplates)
          .catch(() => [])
      : [],
    caps.prompts ? client.listPrompts(undefined, opts).then((r) => r.prompts) : [],
  ]);
  const info = client.getServerVersion();
  return {
    tools,
    resources,
    resourceTemplates,
    prompts,
    ...(info ? { serverInfo: { name: info.name, version: info.version } } : {}),
    listedAt: new Date().toISOString(),
  };
}

/**
 * SEP-1034: an accepted form answer gets the schema's default for every field the user left out, so the server
 * sees the values the form showed.
 */
export function withDefaults(
  answer: Record<string, unknown>,
  params: Record<string, unknown>,
): Record<string, unknown> {
  const schema = params.requestedSchema as { properties?: Record<string, { default?: unknown }> } | undefined;
  if (answer?.action !== 'accept' || !schema?.properties) return answer;
  const content = { ...((answer.content as Record<string, unknown>) ?? {}) };
  for (const [field, spec] of Object.entries(schema.properties))
    if (!(field in content) && spec && 'default' in spec) content[field] = spec.default;
  return { ...answer, content };
}
