// Over 400 lines on purpose: the connection's lifecycle is one state machine and reads best whole; its parts that
// stand alone live beside it (idle-watch.ts, side-channel.ts, upstream-edges.ts, catalog.ts).
// One upstream MCP server, supervised: connect through the official SDK client (stdio child, Streamable HTTP with
// 2026-07-28 negotiation and 2025 fallback, or legacy SSE), list what it offers, restart it with backoff when it
// goes away, and forward calls with progress, cancellation and per-server timeouts. The lifecycle is one state
// machine, read top to bottom; beside it: the transport it opens and the errors it maps (upstream-edges.ts), the
// listing (catalog.ts), progress, elicitation and sampling routed to the calls in flight (side-channel.ts), and the
// OAuth provider (oauth/session.ts) with this connection's hooks for it (oauth/connection-login.ts).
import {
  Client,
  type GetPromptResult,
  type ReadResourceResult,
  TRACEPARENT_META_KEY,
  TRACESTATE_META_KEY,
} from '@modelcontextprotocol/client';
import type { Logger } from 'pino';
import { type CancelWatch, watchSignal } from '../core/cancellation.ts';
import type { ClientChannel } from '../core/context.ts';
import { SwitchboardError } from '../core/errors.ts';
import { paramHeadersOf, paramHeaderValues } from '../core/mcp-param-headers.ts';
import { TASKS_EXTENSION } from '../core/mcp-tasks-extension.ts';
import { type TraceContext, traceFields } from '../core/trace-context.ts';
import { version } from '../version.ts';
import { CallLane } from './call-lane.ts';
import { checkCallToolResult, UNCHECKED_RESULT } from './call-result.ts';
import { type Catalog, listCatalog } from './catalog.ts';
import { IdleWatch } from './idle-watch.ts';
import { ConnectionLogin } from './oauth/connection-login.ts';
import type { OAuthSession } from './oauth/session.ts';
import type { ResolvedServer } from './server-spec.ts';
import { type OnProgress, SideChannel } from './side-channel.ts';
import type { FenceState } from './stdio-client-transport.ts';
import { callError, describeConnectError, isSessionGone, openTransport } from './upstream-edges.ts';
import { awaitUpstreamTask, upstreamTaskOf } from './upstream-task.ts';

/** `idle`: a stdio server stopped after `idle_timeout_ms` unused; its catalog stays listed and the next call starts it. */
export type ConnectionStatus = 'connecting' | 'connected' | 'idle' | 'failed' | 'login_required' | 'stopped';

export interface ConnectionEvents {
  /** A fresh listing arrived (first connect, reconnect, or a list_changed from the server). */
  catalog(conn: UpstreamConnection): void;
  /** The status changed (for health, events and `mcp list --status`). */
  status(conn: UpstreamConnection): void;
}

export interface CallOptions {
  /** The call's cancellation (a pipeline call's own, or `watchSignal(signal)`); its abort cancels the request. */
  cancel: CancelWatch;
  onprogress?: OnProgress;
  /** The calling client's side channel: elicitation and sampling requests from the server are passed to it. */
  client?: ClientChannel;
  /** The call's W3C trace, passed to the server in `_meta` (`traceparent`, `tracestate`). */
  trace?: TraceContext;
}

/** Reconnect delays: 0.5 s doubling to 30 s; a connection that stayed up for a minute starts over at 0.5 s. */
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const STABLE_MS = 60_000;
/** The SDK's own per-request timer is disabled for tool calls: the pipeline's timeout (reset by progress) rules. */
const NO_SDK_TIMEOUT = 2_147_483_647;
/** Longest stderr line kept in the log; a chatty child must not flood ours. */

export class UpstreamConnection {
  status: ConnectionStatus = 'connecting';
  /** Why the last attempt failed or the connection closed. */
  lastError?: string;
  catalog?: Catalog;
  /** Round trip of the last listing, in milliseconds. */
  rttMs?: number;
  /** How many times the server was (re)connected after the first time. */
  restarts = 0;
  /** A fenced stdio server's fence at its last start: built, or why not (it then runs unfenced, with a warning). */
  fence?: FenceState;
  /** The protocol era the SDK negotiated (`modern` = 2026-07-28, `legacy` = a 2025 server). */
  era?: 'modern' | 'legacy';

  private client?: Client;
  /** The fast path for tool calls on a stdio connection (see call-lane.ts). */
  private lane?: CallLane;
  /** Progress, elicitation and sampling from the server, to the calls in flight (side-channel.ts). */
  private readonly side: SideChannel;
  private stopping = false;
  private failures = 0;
  private connectedAt = 0;
  private retryTimer?: NodeJS.Timeout;
  private attempt?: Promise<void>;
  private readonly waiters = new Set<() => void>();
  /** Stops an unused stdio server after `idle_timeout_ms` (idle-watch.ts). */
  private readonly idle: IdleWatch;
  /** The OAuth hooks: login checks, refusals, the poll for a new login (oauth/connection-login.ts). */
  private readonly login?: ConnectionLogin;

  constructor(
    readonly server: ResolvedServer,
    private readonly logger: Logger,
    private readonly events: ConnectionEvents,
    /** The OAuth login this connection uses (a remote server with `[servers.oauth]`). */
    readonly oauth?: OAuthSession,
  ) {
    this.side = new SideChannel(server.name);
    this.idle = new IdleWatch(server.idleTimeoutMs ?? 0, () => {
      if (this.status === 'connected' && !this.stopping) void this.rest();
    });
    if (oauth) this.login = new ConnectionLogin(oauth, server.name);
  }

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
    if (this.status === 'idle') this.start();
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
    const call = this.side.begin(opts.onprogress, opts.client);
    try {
      const meta = {
        ...(call.token ? { progressToken: call.token } : {}),
        ...(opts.trace ? traceFields(opts.trace, { parent: TRACEPARENT_META_KEY, state: TRACESTATE_META_KEY }) : {}),
      };
      const params = { name: tool, arguments: args, ...(call.token || opts.trace ? { _meta: meta } : {}) };
      const result = await this.forward(`tools/call of '${tool}'`, opts.cancel, async (client) => {
        const answer = this.lane
          ? await this.lane.call(params, opts.cancel)
          : await client.request({ method: 'tools/call', params }, UNCHECKED_RESULT, {
              signal: opts.cancel.signal,
              timeout: NO_SDK_TIMEOUT,
              headers: this.paramHeaders(tool, args),
            });
        // A 2026-07-28 server may answer a long call with a task: the call waits for it (upstream-task.ts).
        const task = upstreamTaskOf(answer);
        if (!task) return answer;
        return awaitUpstreamTask(client, task, {
          server: this.name,
          tool,
          cancel: opts.cancel,
          timeoutMs: this.server.timeoutMs,
          ...(opts.client ? { channel: opts.client } : {}),
        });
      });
      return checkCallToolResult(this.name, tool, result);
    } finally {
      call.end();
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
    this.idle.begin();
    try {
      return await this.forwardNow(request, cancel, run);
    } finally {
      this.idle.end();
    }
  }

  private async forwardNow<T>(request: string, cancel: CancelWatch, run: (client: Client) => Promise<T>): Promise<T> {
    const client = this.client && this.status === 'connected' ? this.client : await this.ready(cancel);
    try {
      return await run(client);
    } catch (err) {
      if (this.login && (await this.login.callRefused(err))) {
        // The login could not be renewed: wait for a new one instead of retrying the server.
        if (this.client === client) {
          this.client = undefined;
          this.needLogin((err as Error).message);
          await client.close().catch(() => {});
        }
        throw err;
      }
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
        // The tasks extension: a 2026-07-28 server may answer a long call with a task, which the call waits for.
        capabilities: { elicitation: { form: {} }, sampling: {}, extensions: { [TASKS_EXTENSION]: {} } },
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
    this.side.attach(client);
    const refused = this.login && (await this.login.check());
    if (refused)
      return refused.status === 'failed'
        ? this.fail(refused.why, 'upstream login could not be read')
        : this.needLogin(refused.why);
    const transport = openTransport(this.server, this.logger, this.oauth, (fence) => {
      if (!fence.fenced && this.fence?.fenced !== false)
        this.logger.warn({ server: this.name, why: fence.why }, 'upstream server runs unfenced');
      this.fence = fence;
    });
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
      this.idle.start();
      this.setStatus('connected');
      this.events.catalog(this);
    } catch (err) {
      await client.close().catch(() => {});
      const why = this.login && (await this.login.connectRefused(err));
      if (why !== undefined) return this.needLogin(why);
      this.fail(describeConnectError(err, this.server), 'upstream server failed to connect');
    }
  }

  /** Stop the idle server's process; its catalog stays, and `ready` starts it again for the next request. */
  private async rest(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.lane = undefined;
    this.failures = 0;
    this.logger.info({ server: this.name, idle_ms: this.server.idleTimeoutMs }, 'upstream server idle; stopped');
    this.setStatus('idle');
    await client?.close().catch(() => {});
  }

  private fail(why: string, log: string): void {
    this.lastError = why;
    this.logger.warn({ server: this.name, err: why }, log);
    this.setStatus('failed');
    this.scheduleRetry();
  }

  /** No login to connect with, or the server refused it: wait for a new one (`login_required`), not retry. */
  private needLogin(why: string): void {
    this.lastError = why;
    this.setStatus('login_required');
    if (!this.stopping && !this.retryTimer) this.login?.watch(() => this.start());
  }

  /** Connect again at once (after a login in this process), instead of at the next poll. */
  relogin(): void {
    if (this.status !== 'login_required') {
      // Connected: the next request uses the new login's tokens (a wider scope, another account).
      void this.oauth?.load().catch(() => undefined);
      return;
    }
    this.login?.unwatch();
    this.start();
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
    if (this.stopping || this.retryTimer || this.login?.watching) return;
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
    this.idle.stop();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.login?.stop();
    const client = this.client;
    this.client = undefined;
    this.lane = undefined;
    this.setStatus('stopped');
    await client?.close().catch(() => {});
    await this.attempt?.catch(() => {});
  }
}
