// The set of upstream servers a hub proxies: one supervised connection per configured server, their catalogs
// cached in the Store (so `tools/list` answers at once after a restart), and their tools, resources and prompts
// kept in the registry under deterministic names. Config changes add, restart or remove servers in place.
// Beside it: the per-principal connections of per-user OAuth servers and the logins (`oauth-pool.ts`), how a server
// reads in `mcp list --status` (`views.ts`), naming (`naming.ts`), config resolution (`resolve.ts`) and the pinned
// tool definitions that decide which tools are shown (`pin-book.ts`, `pins.ts`), and registering a catalog in the
// registry (`register.ts`). A little over 400 lines: what is left is the manager's own state and its calls.
import type { Tool } from '@modelcontextprotocol/client';
import type { ServerConfig } from '../../config/schema.ts';
import { watchSignal } from '../../core/cancellation.ts';
import { mcpResult } from '../../core/capability.ts';
import type { Principal } from '../../core/context.ts';
import { type ErrorInfo, SwitchboardError } from '../../core/errors.ts';
import { allowed } from '../../core/registry.ts';
import type { ResourceContents } from '../../core/resource.ts';
import { checkStructuredContent } from '../../mcp-client/call-result.ts';
import type { Catalog } from '../../mcp-client/catalog.ts';
import { UpstreamConnection } from '../../mcp-client/connection.ts';
import type { OAuthSession } from '../../mcp-client/oauth/session.ts';
import type { ResolvedServer } from '../../mcp-client/server-spec.ts';
import { Breakers } from '../../policy/breaker.ts';
import type { SourceContext } from '../index.ts';
import { planNames, type ServerNames } from './naming.ts';
import { OAuthPool } from './oauth-pool.ts';
import { PinBook } from './pin-book.ts';
import { type ApprovalMode, type PendingChange, withheldError } from './pins.ts';
import { registerCatalog } from './register.ts';
import { resolveServer, serverDefaults } from './resolve.ts';
import { connectedView, inactiveView, type UpstreamView } from './views.ts';

const CACHE_NAMESPACE = 'upstream.catalog';

interface CachedCatalog {
  fingerprint: string;
  catalog: Catalog;
}

export class UpstreamManager {
  private readonly connections = new Map<string, UpstreamConnection>();
  /** Per-user OAuth servers' connections for callers other than the local person, and every server's login. */
  private readonly pool: OAuthPool;
  /** Servers that are configured but cannot run: disabled, or a config error (a missing variable). */
  private readonly inactive = new Map<string, { status: 'disabled' | 'invalid'; error?: string }>();
  /** Catalogs from the store, shown until the live server lists its own. */
  private readonly cached = new Map<string, Catalog>();
  private names = new Map<string, ServerNames>();
  private readonly breakers = new Breakers();
  /** Each configured server's `approval` mode. */
  private readonly approval = new Map<string, ApprovalMode>();
  private readonly pins: PinBook;
  private readonly sources = new Set<string>();
  private firstRound?: Promise<void>;
  /** Servers started without a cached catalog: until they settle, the hub has nothing of theirs to list. */
  private uncachedRound?: Promise<void>;

  constructor(private readonly ctx: SourceContext) {
    this.pool = new OAuthPool(ctx, (primary, catalog) => {
      // A server nobody local logged in to is listed by the first caller who did.
      if (this.connections.get(primary.name) !== primary || primary.catalog) return;
      this.cached.set(primary.name, catalog);
      this.rebuild();
    });
    this.pins = new PinBook({
      store: ctx.services.store,
      logger: ctx.services.logger,
      bus: ctx.services.bus,
      audit: () => ctx.services.config.get().audit,
      changed: () => this.rebuild(),
    });
  }

  private get services() {
    return this.ctx.services;
  }

  /** Resolves when every server has connected or failed once. */
  ready(): Promise<void> {
    return this.firstRound ?? Promise.resolve();
  }

  /**
   * Resolves when every server has something to list: it connected, failed, or is shown from its cached catalog — or
   * its `startup_timeout_ms` passed (`conn.ready()` waits no longer), so one hung server never holds a list past it.
   */
  listed(): Promise<void> {
    return this.uncachedRound ?? Promise.resolve();
  }

  /** Bring the running set in line with the configuration: add new servers, restart changed ones, stop removed. */
  async apply(servers: ServerConfig[]): Promise<void> {
    const wanted = new Map<string, ResolvedServer>();
    const nextInactive = new Map<string, { status: 'disabled' | 'invalid'; error?: string }>();
    const defaults = serverDefaults(this.services.config.get(), this.services.projectDir, this.ctx.env);
    this.approval.clear();
    for (const cfg of servers) {
      this.approval.set(cfg.name, cfg.approval);
      if (!cfg.enabled) {
        nextInactive.set(cfg.name, { status: 'disabled' });
        continue;
      }
      const r = resolveServer(cfg, this.ctx.env, this.services.projectDir, defaults);
      if (r.ok) wanted.set(cfg.name, r.server);
      else {
        nextInactive.set(cfg.name, { status: 'invalid', error: r.message });
        this.services.logger.error({ server: cfg.name }, r.message);
      }
    }
    const stops: Promise<void>[] = [];
    for (const [name, conn] of this.connections) {
      const next = wanted.get(name);
      if (next && next.fingerprint === conn.server.fingerprint) {
        wanted.delete(name);
        continue;
      }
      this.connections.delete(name);
      this.cached.delete(name);
      this.pins.drop(name);
      stops.push(conn.stop(), ...this.pool.stop(name));
    }
    this.inactive.clear();
    for (const [k, v] of nextInactive) this.inactive.set(k, v);
    await Promise.all(stops);
    const started: UpstreamConnection[] = [];
    for (const server of wanted.values()) {
      const cache = await this.services.store.documents
        .get<CachedCatalog>(CACHE_NAMESPACE, server.name)
        .catch(() => undefined);
      if (cache && cache.value.fingerprint === server.fingerprint) this.cached.set(server.name, cache.value.catalog);
      await this.pins.load(server.name);
      let session: OAuthSession | undefined;
      try {
        session = server.oauth ? this.pool.session(server, server.oauth.shared ? '*' : 'local') : undefined;
      } catch (err) {
        this.inactive.set(server.name, { status: 'invalid', error: (err as Error).message });
        this.services.logger.error({ server: server.name }, (err as Error).message);
        continue;
      }
      const conn = new UpstreamConnection(
        server,
        this.services.logger,
        { catalog: (c) => this.onCatalog(c), status: (c) => this.onStatus(c) },
        session,
      );
      this.connections.set(server.name, conn);
      started.push(conn);
    }
    this.rebuild();
    // A server whose approval mode changed keeps its connection: its listing is kept under the new mode now.
    for (const conn of this.connections.values())
      if (conn.catalog && !started.includes(conn))
        void this.pins.record(conn.name, this.mode(conn.name), conn.catalog.tools);
    for (const conn of started) conn.start();
    const settled = started.map((conn) =>
      conn.ready().then(
        () => undefined,
        () => undefined,
      ),
    );
    const round = Promise.all(settled).then(() => undefined);
    this.firstRound = this.firstRound ? Promise.all([this.firstRound, round]).then(() => undefined) : round;
    const uncached = Promise.all(settled.filter((_, i) => !this.cached.has(started[i].name))).then(() => undefined);
    this.uncachedRound = this.uncachedRound
      ? Promise.all([this.uncachedRound, uncached]).then(() => undefined)
      : uncached;
  }

  /** The connection a caller's request goes through (its own on a per-user OAuth server: oauth-pool.ts). */
  private connectionFor(name: string, principal: Principal | undefined): UpstreamConnection {
    return this.pool.connectionFor(this.connection(name), principal);
  }

  /** After `mcp login` in this process: connect the login's connection now instead of at its next poll. */
  relogin(name: string, key: string): void {
    const primary = this.connections.get(name);
    if (primary) this.pool.relogin(primary, key);
  }

  private onCatalog(conn: UpstreamConnection): void {
    if (this.connections.get(conn.name) !== conn || !conn.catalog) return;
    this.cached.delete(conn.name);
    const value: CachedCatalog = { fingerprint: conn.server.fingerprint, catalog: conn.catalog };
    this.services.store.documents.put(CACHE_NAMESPACE, conn.name, value).catch((err) => {
      this.services.logger.warn({ server: conn.name, err: (err as Error).message }, 'could not cache the catalog');
    });
    void this.pins.record(conn.name, this.mode(conn.name), conn.catalog.tools);
    this.rebuild();
  }

  private mode(name: string): ApprovalMode {
    return this.approval.get(name) ?? 'first-use';
  }

  private onStatus(conn: UpstreamConnection): void {
    if (this.connections.get(conn.name) !== conn) return;
    this.services.bus.publish({
      type: 'upstream.status',
      server: conn.name,
      status: conn.status,
      ...(conn.lastError ? { error: conn.lastError } : {}),
      at: new Date().toISOString(),
    });
  }

  private catalogOf(name: string): Catalog | undefined {
    return this.connections.get(name)?.catalog ?? this.cached.get(name);
  }

  /** The catalog clients are shown: without the tools withheld until approved (docs/security.md#pinned-tools). */
  private shownOf(name: string): Catalog | undefined {
    const catalog = this.catalogOf(name);
    if (!catalog) return undefined;
    const { visible } = this.pins.decide(name, this.mode(name), catalog.tools);
    return visible.length === catalog.tools.length ? catalog : { ...catalog, tools: visible };
  }

  /** The withheld definitions of a configured server, as an operator reviews them. */
  pending(name: string): PendingChange[] {
    const mode = this.approval.get(name);
    return mode && mode !== 'off' ? this.pins.pending(name) : [];
  }

  /**
   * Approve a server's withheld definitions (`tools`, or all) as `by`: they are listed at once here, and within
   * PIN_POLL_MS on every other hub on the store. Undefined for a server not configured.
   */
  async approve(name: string, tools: readonly string[], by: string): Promise<PendingChange[] | undefined> {
    if (!this.approval.has(name)) return undefined;
    return this.pins.approve(name, tools, by);
  }

  /** Resolves when every pin decision asked for so far is kept (the CLI waits for it before reading `pending`). */
  settled(): Promise<void> {
    return this.pins.settled();
  }

  /**
   * The answer to a call of a tool withheld until approved, instead of "unknown tool": which server, what changed,
   * and the command that approves it. Undefined for any other name, or for a caller who may not see the server.
   */
  withheldTool(name: string, principal: Principal): ErrorInfo | undefined {
    for (const [server, names] of this.names) {
      if (!name.startsWith(`${names.domain}__`)) continue;
      const conn = this.connections.get(server);
      if (!conn || !allowed(principal, conn.server.roles.length ? conn.server.roles : undefined)) continue;
      const tool = name.slice(names.domain.length + 2);
      const change = this.pending(server).find((c) => c.name === tool);
      if (change) return withheldError(name, server, change);
    }
    return undefined;
  }

  /** Re-register every upstream tool, resource and prompt under freshly planned names, as one registry change. */
  private rebuild(): void {
    const registry = this.services.registry;
    const listings = [...this.connections.values()].map((conn) => {
      const catalog = this.shownOf(conn.name);
      return {
        name: conn.name,
        tools: catalog?.tools.map((t) => t.name) ?? [],
        prompts: catalog?.prompts.map((p) => p.name) ?? [],
        allow: conn.server.allow,
        deny: conn.server.deny,
      };
    });
    const taken = (name: string) => {
      const entry = registry.get(name);
      return entry !== undefined && !entry.capability.source?.startsWith('upstream:');
    };
    registry.batch(() => {
      for (const source of this.sources) registry.removeSource(source);
      this.sources.clear();
      this.names = planNames(listings, taken);
      for (const conn of this.connections.values()) {
        const catalog = this.shownOf(conn.name);
        const names = this.names.get(conn.name);
        if (!catalog || !names) continue;
        this.sources.add(
          registerCatalog(this.services.registry, this.services.logger, conn, catalog, names, {
            callTool: (tool, input, ctx) => this.callTool(conn.name, tool, input, ctx),
            readResource: (uri, ctx) => this.readResource(conn.name, uri, ctx.signal, ctx.principal),
            complete: (params) =>
              this.connection(conn.name).complete(params, AbortSignal.timeout(conn.server.timeoutMs)),
            getPrompt: (prompt, args, ctx) =>
              this.connectionFor(conn.name, ctx.principal).getPrompt(prompt, args, ctx.signal),
          }),
        );
      }
    });
  }

  private connection(name: string): UpstreamConnection {
    const conn = this.connections.get(name);
    if (!conn) throw new SwitchboardError('NOT_FOUND', `Upstream server '${name}' is no longer configured.`);
    return conn;
  }

  /**
   * Forward a call through the server's breaker. The result is checked against the tool's outputSchema as listed
   * (the schema callers were shown), as the pipeline checks a handler's output.
   */
  private async callTool(
    server: string,
    tool: Tool,
    args: Record<string, unknown>,
    ctx: Parameters<Parameters<UpstreamManager['services']['registry']['add']>[0]['handle']>[1],
  ) {
    const conn = this.connectionFor(server, ctx.principal);
    const policy = this.breakerPolicy();
    const key = `upstream:${server}`;
    const admission = this.breakers.admit(key, policy);
    if (!admission.ok)
      throw new SwitchboardError(
        'UNAVAILABLE',
        `Upstream server '${server}' failed ${policy.threshold} times in a row; its circuit is open. Retry in ${Math.ceil(admission.retryAfterMs / 1000)} s.`,
        { server, retryAfterMs: admission.retryAfterMs, breaker: 'upstream-open' },
      );
    // The call's own cancellation when the pipeline gives it: reading ctx.signal would make an AbortController.
    const cancel = ctx.cancellation ?? watchSignal(ctx.signal);
    // With telemetry on, the hop is a span of its own, the parent the server is told of.
    const hop = this.services.tracer?.start(
      `tools/call ${tool.name}`,
      ctx.trace,
      { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': tool.name, 'switchboard.upstream.server': server },
      'client',
    );
    const trace = hop?.trace ?? ctx.trace;
    const sentAt = hop ? performance.now() : 0;
    let failure: string | undefined;
    try {
      const result = await conn.callTool(tool.name, args, {
        cancel,
        client: ctx.client,
        ...(trace ? { trace } : {}),
        onprogress: (p) => {
          void ctx.progress(p.progress, p.total, p.message);
        },
      });
      if (result.isError === true) failure = 'tool_error';
      checkStructuredContent(server, tool.name, result, tool.outputSchema as Record<string, unknown> | undefined);
      this.breakers.record(key, policy, false, admission.probe);
      return mcpResult(result);
    } catch (err) {
      failure = (err as SwitchboardError).code ?? 'INTERNAL';
      // Only the server's own failures count against it: not a cancel, not bad input.
      const { code, details } = err as SwitchboardError;
      // A timeout aborts the call too, but it is the server's silence, so it counts; a caller's cancel does not.
      const failed =
        (code === 'TIMEOUT' || !cancel.aborted) &&
        details?.breaker === undefined &&
        (code === 'UNAVAILABLE' || code === 'TIMEOUT' || code === 'INTERNAL' || code === 'UPSTREAM');
      if (failed) this.breakers.record(key, policy, true, admission.probe);
      else this.breakers.release(key, admission.probe);
      throw err;
    } finally {
      if (hop) {
        const roundTripMs = Math.round((performance.now() - sentAt) * 1000) / 1000;
        ctx.span?.set({ 'switchboard.upstream.round_trip_ms': roundTripMs, 'switchboard.upstream.server': server });
        hop.end(failure);
      }
    }
  }

  private async readResource(
    server: string,
    uri: string,
    signal: AbortSignal,
    principal?: Principal,
  ): Promise<ResourceContents[]> {
    const result = await this.connectionFor(server, principal).readResource(uri, signal);
    return result.contents as ResourceContents[];
  }

  private breakerPolicy() {
    const b = this.services.config.get().policy.breaker;
    return { threshold: b.threshold, resetMs: b.reset_ms, halfOpenProbes: b.half_open_probes };
  }

  /** Every configured server with its state, by name. */
  views(): UpstreamView[] {
    const out: UpstreamView[] = [];
    for (const [name, conn] of this.connections) {
      const withheld = this.pending(name).length;
      out.push({
        ...connectedView(conn, this.names.get(name), this.shownOf(name)),
        ...(withheld ? { withheld } : {}),
      });
    }
    for (const [name, state] of this.inactive) out.push(inactiveView(name, state));
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Stop one server's connection; the next `apply` starts it afresh. False when it is not running. */
  async forget(name: string): Promise<boolean> {
    const conn = this.connections.get(name);
    if (!conn) return false;
    this.connections.delete(name);
    await conn.stop();
    return true;
  }

  async stop(): Promise<void> {
    const conns = [...this.connections.values()];
    const pooled = this.pool.stopAll();
    this.pins.stop();
    this.connections.clear();
    await Promise.all([...conns.map((c) => c.stop()), ...pooled]);
    this.services.registry.batch(() => {
      for (const source of this.sources) this.services.registry.removeSource(source);
    });
    this.sources.clear();
  }
}
