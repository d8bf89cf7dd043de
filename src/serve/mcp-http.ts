// MCP over Streamable HTTP at /mcp. Spec 2026-07-28 requests go to the SDK's stateless per-request handler;
// 2025-era requests go to sessionful transports so sampling, elicitation and GET streams work. A plain 2026 call
// may be answered before the SDK by the fast path of mcp-modern-call.ts.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  classifyInboundRequest,
  createMcpHandler,
  isInitializeRequest,
  isJSONRPCRequest,
  isJSONRPCResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/server';
import type { Principal } from '../core/context.ts';
import type { Hub } from '../hub.ts';
import { isRemote } from '../observe/shared-bus.ts';
import { jsonRpcError, TransportErrorCode } from './jsonrpc-errors.ts';
import { header, type Lookup } from './mcp-edge.ts';
import { answerModernCall } from './mcp-modern-call.ts';
import { buildMcpServer, forwardListChanges } from './mcp-server.ts';
import { SessionTransport } from './mcp-session-transport.ts';
import { closeTasks } from './mcp-task-table.ts';
import { type Admission, type SessionEnd, SessionTable, sessionLimitsOf } from './session-capacity.ts';

/** The bus event that tells the other instances a client ended its 2025 session (DELETE /mcp). */
const SESSION_ENDED_EVENT = 'mcp_session.ended';

/** How long a client waits before reconnecting to a closed SSE stream (sent as the SSE `retry` field). */
const SSE_RETRY_MS = 1_000;

export interface McpHttp {
  /** Handle a request to /mcp whose body (for POST) has been read and parsed already. */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, principal: Principal): Promise<void>;
  /** Open legacy sessions (for metrics and tests). */
  sessionCount(): number;
  close(): Promise<void>;
}

/** Where a session was opened, for the answer to a request that reaches it under another profile. */
function sessionProfile(found: { principal: Principal } | string): string {
  const name = typeof found === 'string' ? undefined : found.principal.profile?.name;
  return name
    ? `under profile '${name}' (/mcp/${name})`
    : typeof found === 'string'
      ? 'under another profile'
      : 'without a profile (/mcp)';
}

/** Whether a POST body carries a JSON-RPC request (a batch included), not only notifications or responses. */
const carriesRequest = (body: unknown): boolean =>
  Array.isArray(body) ? body.some((m) => isJSONRPCRequest(m)) : isJSONRPCRequest(body);

export function createMcpHttp(hub: Hub, opts: { maxBodyBytes: number }): McpHttp {
  const anonymous: Principal = { id: 'anonymous', roles: ['*'] };
  // The principal, and the tool a `tools/call` was looked up as, ride on the SDK's pass-through authInfo (set on
  // `req.auth` below): the request's server is built for them.
  const modern = createMcpHandler(
    (ctx) => {
      const extra = ctx.authInfo?.extra as { principal?: Principal; lookup?: Lookup } | undefined;
      return buildMcpServer(
        { hub, principal: extra?.principal ?? anonymous, ...(extra?.lookup ? { lookup: extra.lookup } : {}) },
        { transport: 'http' },
      );
    },
    {
      legacy: 'reject',
      maxRequestBodySize: opts.maxBodyBytes,
      onerror: (err) => hub.services.logger.debug({ err: err.message }, 'mcp http (modern) error'),
    },
  );
  const modernNode = toNodeHandler(modern);
  const unsubscribeModern = hub.services.registry.onChange((kind) => {
    if (kind === 'tools') modern.notify.toolsChanged();
    else if (kind === 'resources') modern.notify.resourcesChanged();
    else modern.notify.promptsChanged();
  });

  interface Session {
    transport: SessionTransport;
    principal: Principal;
    unsubscribe: () => void;
  }
  // 2025 sessions live in memory, within [server] max_sessions and max_sessions_per_principal, until deleted, ended
  // for room or idle past session_idle_timeout_ms (clients re-initialize on the 404): session-capacity.ts.
  const limits = () => sessionLimitsOf(hub.config.get().server);
  const sessions = new SessionTable<Session>(limits);
  // An idle session also ends when it is next asked for; the sweep frees the memory of those nobody asks for again.
  const sweep = setInterval(() => sessions.sweep(), Math.min(60_000, Math.max(1_000, limits().idleMs / 2)));
  sweep.unref();

  // Scale-out (Redis store): session records are shared, so any instance can take over a session it did not open.
  const directory = hub.scale?.sessions;
  /** Why a session could not be taken over: unknown, another principal's, its roles or its profile changed, no room. */
  type Adopted = Session | 'unknown' | 'forbidden' | 'roles' | 'profile' | Extract<Admission, { ok: false }>;
  const adopting = new Map<string, Promise<Adopted>>();
  // A client's answer to a server-to-client request, received by another instance and routed here.
  const offRouted = directory?.onRouted(({ sessionId, message }) => {
    sessions.get(sessionId)?.transport.onmessage?.(message as JSONRPCMessage);
  });
  // A session its client ended (DELETE) at another instance ends here too, so none answers for it any more.
  const offEnded = directory
    ? hub.services.bus.subscribe((event) => {
        const id = (event as { session?: unknown }).session;
        if (event.type === SESSION_ENDED_EVENT && typeof id === 'string' && isRemote(event, hub.services.instanceId))
          void sessions
            .get(id)
            ?.transport.close()
            .catch(() => {});
      })
    : undefined;

  /**
   * End a session the table picked. One ended for room loses its shared record too, so its client gets the 404 that
   * makes it initialize again, on any instance; one ended idle keeps it (it may live on elsewhere, as a record expires
   * after the same idle time).
   */
  function endSession(id: string, session: Session, why: SessionEnd): void {
    hub.services.logger[why === 'evicted' ? 'info' : 'debug'](
      { session: id, principal: session.principal.id, why },
      why === 'evicted'
        ? 'ended an idle 2025 MCP session to make room for a new one'
        : 'ended an idle 2025 MCP session',
    );
    if (why === 'evicted') void directory?.remove(id).catch(() => {});
    void session.transport.close().catch(() => {});
  }

  /**
   * A protocol server and a sessionful transport for session `id` (fixed in advance, so the record can be
   * written before the client ever sees the id). With a directory, every server-to-client request is claimed, so
   * the client's answer finds its way back here from whichever instance receives it.
   */
  async function openSession(id: string, principal: Principal): Promise<SessionTransport> {
    const server = buildMcpServer({ hub, principal }, { transport: 'http' });
    let session: Session | undefined;
    const transport: SessionTransport = new SessionTransport({
      id,
      hub,
      principal,
      server,
      retryMs: SSE_RETRY_MS,
      onsessioninitialized: (sid) => {
        const opened: Session = { transport, principal, unsubscribe: forwardListChanges(hub, server) };
        session = opened;
        sessions.open(sid, opened, (why) => endSession(sid, opened, why));
      },
      ...(directory ? { beforeRequest: (request) => directory.claim(id, request.id) } : {}),
    });
    // Set before connect: the server chains its own close handling onto this one.
    transport.onclose = () => {
      const sid = transport.sessionId;
      if (sid && session) {
        session.unsubscribe();
        sessions.remove(sid, session);
        // Closed here (idle, shutdown): the shared record stays, so the session lives on elsewhere or after restart.
        directory?.forget(sid);
      }
    };
    await server.connect(transport);
    return transport;
  }

  /**
   * Answer the initialize of session `id` (its place already held): `answer` sends it through the new transport. A
   * failed initialize gives its place back.
   */
  async function initialize(
    id: string,
    principal: Principal,
    answer: (transport: SessionTransport) => Promise<void>,
  ): Promise<void> {
    let transport: SessionTransport | undefined;
    try {
      transport = await openSession(id, principal);
      await answer(transport);
    } finally {
      if (!sessions.isOpen(id)) {
        sessions.remove(id);
        void transport?.close().catch(() => {});
      }
    }
  }

  /**
   * Take over a session another instance (or this one before a restart) opened: replay its initialize here. Only
   * for the caller that opened it, with the same roles (checked before anything is built).
   */
  async function adopt(id: string, principal: Principal): Promise<Adopted> {
    const record = await directory!.load(id);
    if (!record) return 'unknown';
    if (record.principal.id !== principal.id) return 'forbidden';
    if (record.principal.roles.join(',') !== principal.roles.join(',')) return 'roles';
    if (record.principal.profile !== principal.profile?.name) return 'profile';
    const admission = sessions.admit(id, principal.id);
    if (!admission.ok) return admission;
    await initialize(id, principal, (transport) => transport.replayInitialize(record.initialize));
    return sessions.get(id) ?? 'unknown';
  }

  async function findSession(id: string, principal: Principal): Promise<Adopted> {
    const local = sessions.get(id);
    if (local) return local;
    if (!directory) return 'unknown';
    let pending = adopting.get(id);
    if (!pending) {
      pending = adopt(id, principal).finally(() => adopting.delete(id));
      adopting.set(id, pending);
    }
    return pending;
  }

  async function handleLegacy(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    principal: Principal,
  ): Promise<void> {
    const sid = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sid) ? sid[0] : sid;
    if (sessionId) {
      let found: Adopted;
      try {
        found = await findSession(sessionId, principal);
      } catch (err) {
        return jsonRpcError(res, 503, TransportErrorCode.Refused, (err as Error).message);
      }
      if (found === 'unknown')
        return jsonRpcError(
          res,
          404,
          TransportErrorCode.SessionNotFound,
          `Session '${sessionId}' not found; start a new session with initialize.`,
        );
      if (typeof found === 'object' && 'ok' in found)
        return jsonRpcError(res, found.status, TransportErrorCode.Refused, found.message);
      // A session serves the caller that opened it, with the roles it had then; changed roles need a new session.
      if (found === 'forbidden' || (found as Session).principal.id !== principal.id)
        return jsonRpcError(res, 403, TransportErrorCode.Refused, 'This session belongs to another principal.');
      if (found === 'roles' || (found as Session).principal.roles.join(',') !== principal.roles.join(','))
        return jsonRpcError(
          res,
          404,
          TransportErrorCode.SessionNotFound,
          'The roles of this token changed; start a new session with initialize.',
        );
      // A session keeps the profile it was opened under: the same URL (/mcp or /mcp/NAME) continues it.
      if (found === 'profile' || (found as Session).principal.profile?.name !== principal.profile?.name)
        return jsonRpcError(
          res,
          404,
          TransportErrorCode.SessionNotFound,
          `This session was opened ${sessionProfile(found)}; continue it at that URL, or start a new session with initialize.`,
        );
      const session = found as Session;
      const done = sessions.started(sessionId, {
        stream: req.method === 'GET',
        request: req.method === 'POST' && carriesRequest(body),
      });
      res.once('close', done);
      if (directory) {
        directory.touch(sessionId);
        // The client's answer to a request another instance sent: hand it over and acknowledge it here.
        if (
          req.method === 'POST' &&
          isJSONRPCResponse(body) &&
          (await directory.route(sessionId, body).catch(() => false))
        ) {
          res.writeHead(202).end();
          return;
        }
      }
      await session.transport.handle(req, res, body);
      if (req.method === 'DELETE' && directory) {
        await directory.remove(sessionId).catch(() => {});
        hub.services.bus.publish({ type: SESSION_ENDED_EVENT, session: sessionId, at: new Date().toISOString() });
      }
      return;
    }
    if (req.method === 'POST' && isInitializeRequest(body)) {
      const id = randomUUID();
      // A place for the new session, made by ending idle ones when the principal's share or the instance is full.
      const admission = sessions.admit(id, principal.id);
      if (!admission.ok) return jsonRpcError(res, admission.status, TransportErrorCode.Refused, admission.message);
      if (directory) {
        try {
          await directory.save(id, {
            principal: {
              id: principal.id,
              roles: principal.roles,
              ...(principal.profile ? { profile: principal.profile.name } : {}),
            },
            initialize: body,
            createdAt: new Date().toISOString(),
          });
        } catch (err) {
          sessions.remove(id);
          return jsonRpcError(res, 503, TransportErrorCode.Refused, (err as Error).message);
        }
      }
      res.once('close', sessions.started(id, { stream: false, request: false }));
      await initialize(id, principal, (transport) => transport.handle(req, res, body));
      return;
    }
    if (req.method === 'POST')
      return jsonRpcError(
        res,
        400,
        TransportErrorCode.Refused,
        'Bad Request: no Mcp-Session-Id header; send initialize first (or use protocol 2026-07-28, which needs no session).',
      );
    return jsonRpcError(
      res,
      405,
      TransportErrorCode.Refused,
      `Method ${req.method} needs an Mcp-Session-Id header naming an open session.`,
    );
  }

  return {
    async handle(req, res, body, principal) {
      if (req.method === 'POST') {
        // Anything that claims the 2026-07-28 envelope (even malformed) is the modern handler's to answer or reject.
        const inbound = classifyInboundRequest({
          httpMethod: 'POST',
          protocolVersionHeader: header(req, 'mcp-protocol-version'),
          mcpMethodHeader: header(req, 'mcp-method'),
          mcpNameHeader: header(req, 'mcp-name'),
          body,
        });
        if (inbound.kind === 'legacy') return handleLegacy(req, res, body, principal);
        let lookup: Lookup | undefined;
        if (inbound.kind === 'modern' && inbound.messageKind === 'request' && inbound.message.method === 'tools/call') {
          const answer = await answerModernCall(hub, req, res, inbound.message, body, principal);
          if (answer === 'answered') return;
          lookup = answer;
        }
        (req as IncomingMessage & { auth?: unknown }).auth = {
          token: '',
          clientId: principal.id,
          scopes: principal.roles,
          extra: { principal, lookup },
        };
        return modernNode(req as any, res as any, body);
      }
      return handleLegacy(req, res, body, principal);
    },
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(sweep);
      await closeTasks(hub);
      unsubscribeModern();
      offRouted?.();
      offEnded?.();
      // Each one's close handler unsubscribes it and gives its place back.
      for (const s of [...sessions.sessions()]) await s.transport.close().catch(() => s.unsubscribe());
      await modern.close();
    },
  };
}
