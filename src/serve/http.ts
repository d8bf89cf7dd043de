// The HTTP server: DNS-rebinding guards, body limits, and routing to MCP (/mcp), REST (/v1), the dashboard (/ui)
// and probes.
// Loopback only until authentication exists; every route answers through the one pipeline.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localhostAllowedOrigins, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { SwitchboardError, toErrorInfo } from '../core/errors.ts';
import type { Hub } from '../hub.ts';
import { HttpAuth, hasRole } from '../policy/auth.ts';
import type { Exposure } from '../policy/principal.ts';
import { parseJson, readBody } from './body.ts';
import { createDashboard } from './dashboard/routes.ts';
import { createMcpHttp } from './mcp-http.ts';
import { callTool, listTools, openApi, sendError, sendJson, streamEvents } from './rest.ts';

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

export interface HttpOptions {
  host?: string;
  port?: number;
  /** `serve --only/--except`: an exposure filter over capability names for every caller of this server. */
  exposure?: Exposure;
}

export interface HttpHandle {
  server: Server;
  url: string;
  port: number;
  /** Stop accepting, let in-flight calls finish for up to `graceMs` (default 5 s), then close everything. */
  close(graceMs?: number): Promise<void>;
}

/** Whether an address is loopback (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export async function serveHttp(hub: Hub, opts: HttpOptions = {}): Promise<HttpHandle> {
  const cfg = hub.config.get().server;
  const host = opts.host ?? cfg.host;
  const port = opts.port ?? cfg.port;
  const exposed = !isLoopback(host);
  if (exposed && (await hub.services.store.tokens.count()) === 0) {
    throw new SwitchboardError(
      'FORBIDDEN',
      `Refusing to bind ${host}: off loopback every caller must present a token, and none exists. Create one first (switchboard token create NAME --roles agent), or use --host 127.0.0.1.`,
    );
  }
  hub.metrics.collectProcessMetrics();
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const hostnames = [...new Set([...LOOPBACK_HOSTS, bracketed, ...cfg.allowed_hosts])];
  const originHostnames = [...new Set([...localhostAllowedOrigins(), bracketed])];
  const exactOrigins = new Set(cfg.allowed_origins.map(normalOrigin));
  /** DNS-rebinding guard: the Host must name this server; a browser Origin must be local or listed exactly. */
  const guard = (req: IncomingMessage, targetHost: string | undefined): string | undefined => {
    // An absolute-form target's host overrides the Host header (RFC 9112 §3.2.2): both must name this server.
    for (const host of targetHost === undefined ? [req.headers.host] : [req.headers.host, targetHost]) {
      const h = validateHostHeader(host, hostnames);
      if (!h.ok) return h.message;
    }
    const origin = req.headers.origin;
    if (origin === undefined || exactOrigins.has(normalOrigin(origin))) return undefined;
    const o = validateOriginHeader(origin, originHostnames);
    return o.ok ? undefined : o.message;
  };
  const maxBody = cfg.max_body_bytes;
  const mcp = createMcpHttp(hub, { maxBodyBytes: maxBody });
  const auth = new HttpAuth(hub.services.store, () => hub.config.get(), opts.exposure, exposed);
  const dashboard = createDashboard(hub);

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = requestTarget(req.url ?? '/');
    if (!target)
      return sendError(res, {
        code: 'INVALID_REQUEST',
        message: `The request target '${clip(req.url ?? '')}' is not a path; send a path such as /mcp or /v1/tools.`,
      });
    const path = target.path;
    const refused = guard(req, target.host);
    if (refused) {
      // The same refusal in each face's own error shape.
      if (path === '/mcp')
        return sendJson(res, 403, { jsonrpc: '2.0', error: { code: -32000, message: refused }, id: null });
      return sendError(res, { code: 'FORBIDDEN', message: refused });
    }
    // The MCP adapters build their URL from the Host header and `req.url`: give them the origin-form.
    req.url = target.originForm;
    // Probes answer everyone: load balancers and orchestrators carry no token.
    if (path === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      const ok = await hub.services.store.ping().catch(() => false);
      return sendJson(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready', store: hub.services.store.kind });
    }
    // The dashboard's page (no data in it) and its ticketed event stream, under the same Host/Origin guard.
    if (await dashboard.serveOpen(req, res, path)) return;
    const authn = await auth.authenticate(req);
    if (!authn.ok) {
      const headers = { 'www-authenticate': authn.challenge };
      if (path === '/mcp')
        return sendJson(
          res,
          401,
          { jsonrpc: '2.0', error: { code: -32001, message: authn.message }, id: null },
          headers,
        );
      return sendJson(res, 401, { error: { code: 'UNAUTHORIZED', message: authn.message } }, headers);
    }
    const principal = authn.principal;
    if (path === '/mcp') {
      const body = req.method === 'POST' ? await readJsonOrAnswer(req, res, maxBody, true) : undefined;
      if (body === ANSWERED) return;
      return mcp.handle(req, res, body, principal);
    }
    // Operator views: every caller's events and the metrics, so only admins (403 for a valid token without it).
    if ((path === '/v1/events' || path === '/metrics') && req.method === 'GET' && !hasRole(principal, ['admin'])) {
      return sendError(res, {
        code: 'FORBIDDEN',
        message: `${path} needs the 'admin' role; this token has: ${principal.roles.join(', ') || 'no roles'}.`,
      });
    }
    if (path === '/metrics' && req.method === 'GET') {
      const text = await hub.metrics.prometheus();
      res.writeHead(200, { 'content-type': hub.metrics.contentType });
      return void res.end(text);
    }
    if (await dashboard.serve(req, res, path, principal)) return;
    if (path === '/v1/tools' && req.method === 'GET') return sendJson(res, 200, await listTools(hub, principal));
    if (path === '/v1/openapi.json' && req.method === 'GET')
      return sendJson(res, 200, openApi(hub, principal), {}, { pretty: true });
    if (path === '/v1/events' && req.method === 'GET') return streamEvents(hub, req, res);
    const m = /^\/v1\/tools\/([^/]+)$/.exec(path);
    if (m) {
      if (req.method !== 'POST')
        return sendJson(
          res,
          405,
          { error: { code: 'INVALID_REQUEST', message: `Use POST ${path} with the input as a JSON body.` } },
          { allow: 'POST' },
        );
      const body = await readJsonOrAnswer(req, res, maxBody, false);
      if (body === ANSWERED) return;
      return callTool(hub, res, req, m[1], body, principal);
    }
    sendError(res, {
      code: 'NOT_FOUND',
      message: `No route ${req.method} ${clip(path)}. Try POST /mcp, GET /v1/tools or GET /v1/openapi.json.`,
    });
  }

  // In-flight calls, for a graceful stop; long-lived streams (GET /mcp, /v1/events, /v1/ui/events) are not counted.
  let inFlight = 0;
  const server = createServer((req, res) => {
    if (req.method !== 'GET') {
      inFlight++;
      res.once('close', () => inFlight--);
    }
    route(req, res).catch((err) => {
      hub.services.logger.error({ err }, 'http request failed');
      if (!res.headersSent) sendError(res, toErrorInfo(err));
      else res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    server,
    port: actual,
    url: `http://${bracketed}:${actual}`,
    /** Stop accepting, let in-flight requests finish for up to `graceMs`, then cut what is left. */
    async close(graceMs = 5_000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      await mcp.close();
      dashboard.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

const ANSWERED = Symbol('answered');

/** Read and parse a JSON body; on failure answer the request (413 / 400) and return ANSWERED. */
async function readJsonOrAnswer(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  jsonRpc: boolean,
): Promise<unknown> {
  try {
    return parseJson(await readBody(req, limit));
  } catch (err) {
    const info = toErrorInfo(err);
    if (jsonRpc) {
      const code = info.code === 'INVALID_REQUEST' ? -32700 : -32600;
      const status = info.code === 'PAYLOAD_TOO_LARGE' ? 413 : 400;
      sendJson(res, status, { jsonrpc: '2.0', error: { code, message: info.message }, id: null });
    } else sendError(res, info);
    return ANSWERED;
  }
}

/** A request target read as {@link requestTarget} does. */
export interface RequestTarget {
  /** The normalised path (`/v1/../mcp` → `/mcp`), what routing matches. */
  path: string;
  /** The host an absolute-form target names; undefined for origin-form. */
  host?: string;
  /** The target in origin-form (path and query), as the MCP adapters expect `req.url`. */
  originForm: string;
}

/**
 * Read a request target (RFC 9112 §3.2). Origin-form (`/mcp?x=1`) is read as a path even when it starts with `//`
 * (resolved against a base URL, `//x/mcp` would be host `x`, path `/mcp`); absolute-form (`http://host/mcp`) yields
 * its path and host. Anything else (`*`, `host:port`) is undefined.
 *
 * @example
 * requestTarget('//'); // { path: '//', originForm: '//' }
 * requestTarget('http://localhost:7777/mcp?a=1'); // { path: '/mcp', host: 'localhost:7777', originForm: '/mcp?a=1' }
 * requestTarget('*'); // undefined
 */
export function requestTarget(raw: string): RequestTarget | undefined {
  try {
    if (raw.startsWith('/')) return { path: new URL(`http://localhost${raw}`).pathname, originForm: raw };
    if (/^https?:\/\//i.test(raw)) {
      const url = new URL(raw);
      return { path: url.pathname, host: url.host, originForm: `${url.pathname}${url.search}` };
    }
  } catch {}
  return undefined;
}

/** A request target or path as an error message may quote it: long ones cut (it can be up to ~16 KB). */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function normalOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return origin;
  }
}
