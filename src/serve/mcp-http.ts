// MCP over Streamable HTTP at /mcp. Spec 2026-07-28 requests go to the SDK's stateless per-request handler;
// 2025-era requests go to sessionful transports so sampling, elicitation and GET streams work.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, isInitializeRequest, isLegacyRequest } from '@modelcontextprotocol/server';
import type { Principal } from '../core/context.ts';
import type { Hub } from '../hub.ts';
import { buildMcpServer } from './mcp-server.ts';

export interface McpHttp {
  /** Handle a request to /mcp whose body (for POST) has been read and parsed already. */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, principal: Principal): Promise<void>;
  /** Open legacy sessions (for metrics and tests). */
  sessionCount(): number;
  close(): Promise<void>;
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

export function createMcpHttp(hub: Hub, opts: { maxBodyBytes: number }): McpHttp {
  const anonymous: Principal = { id: 'anonymous', roles: ['*'] };
  // The principal rides on the SDK's pass-through authInfo (set on `req.auth` below).
  const modern = createMcpHandler(
    (ctx) =>
      buildMcpServer(hub, {
        principal: (ctx.authInfo?.extra?.principal as Principal | undefined) ?? anonymous,
        transport: 'http',
      }),
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
    transport: NodeStreamableHTTPServerTransport;
    principal: Principal;
    unsubscribe: () => void;
  }
  const sessions = new Map<string, Session>();

  async function handleLegacy(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    principal: Principal,
  ): Promise<void> {
    const sid = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sid) ? sid[0] : sid;
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session)
        return jsonRpcError(res, 404, -32001, `Session '${sessionId}' not found; start a new session with initialize.`);
      if (session.principal.id !== principal.id)
        return jsonRpcError(res, 403, -32000, 'This session belongs to another principal.');
      await session.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'POST' && isInitializeRequest(body)) {
      const server = buildMcpServer(hub, { principal, transport: 'http' });
      const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          const unsubscribe = hub.services.registry.onChange((kind) => {
            const send =
              kind === 'tools'
                ? server.sendToolListChanged()
                : kind === 'resources'
                  ? server.sendResourceListChanged()
                  : server.sendPromptListChanged();
            send.catch(() => {});
          });
          sessions.set(id, { transport, principal, unsubscribe });
        },
      });
      transport.onclose = () => {
        const id = transport.sessionId;
        if (id) {
          sessions.get(id)?.unsubscribe();
          sessions.delete(id);
        }
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'POST')
      return jsonRpcError(
        res,
        400,
        -32000,
        'Bad Request: no Mcp-Session-Id header; send initialize first (or use protocol 2026-07-28, which needs no session).',
      );
    return jsonRpcError(
      res,
      405,
      -32000,
      `Method ${req.method} needs an Mcp-Session-Id header naming an open session.`,
    );
  }

  return {
    async handle(req, res, body, principal) {
      if (req.method === 'POST') {
        const probe = new Request('http://localhost/mcp', {
          method: 'POST',
          headers: Object.entries(req.headers).flatMap(([k, v]) =>
            v === undefined
              ? []
              : Array.isArray(v)
                ? v.map((x) => [k, x] as [string, string])
                : [[k, v] as [string, string]],
          ),
          body: JSON.stringify(body ?? null),
        });
        if (await isLegacyRequest(probe, body, { maxRequestBodySize: opts.maxBodyBytes }))
          return handleLegacy(req, res, body, principal);
        (req as IncomingMessage & { auth?: unknown }).auth = {
          token: '',
          clientId: principal.id,
          scopes: principal.roles,
          extra: { principal },
        };
        return modernNode(req as any, res as any, body);
      }
      return handleLegacy(req, res, body, principal);
    },
    sessionCount: () => sessions.size,
    async close() {
      unsubscribeModern();
      for (const s of sessions.values()) {
        s.unsubscribe();
        await s.transport.close().catch(() => {});
      }
      sessions.clear();
      await modern.close();
    },
  };
}
