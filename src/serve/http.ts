// The HTTP server: DNS-rebinding guards, body limits, and routing to MCP (/mcp), REST (/v1), the dashboard (/ui),
// ClaudeBench's JSON-RPC (/rpc, when on) and probes; every call answers through the one pipeline. Off loopback it
// binds only with tokens or OAuth to check.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localhostAllowedOrigins, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import type { Principal } from '../core/context.ts';
import { httpStatus, SwitchboardError, toErrorInfo } from '../core/errors.ts';
import type { Hub } from '../hub.ts';
import { HttpAuth, hasRole, TOKEN_GONE } from '../policy/auth.ts';
import { MCP_METADATA_PATH, METADATA_PATH, oauthResourceFor } from '../policy/oauth.ts';
import type { Exposure } from '../policy/principal.ts';
import { selectProfile } from '../policy/profile-select.ts';
import { parseJson, readBody } from './body.ts';
import { claudeBenchRoutes } from './claudebench/rpc.ts';
import { createDashboard } from './dashboard/routes.ts';
import { ProtocolErrorCode, TransportErrorCode } from './jsonrpc-errors.ts';
import { createMcpHttp } from './mcp-http.ts';
import { callTool, listTools, openApi, sendError, sendJson, streamEvents } from './rest.ts';
import { type Route, RouteTable } from './route-table.ts';

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
  const oauthConfigured = hub.config.get().auth?.oauth !== undefined;
  if (exposed && !oauthConfigured && (await hub.services.store.tokens.count()) === 0) {
    throw new SwitchboardError(
      'FORBIDDEN',
      `Refusing to bind ${host}: off loopback every caller must present a token, and none exists. Create one first (switchboard token create NAME --roles agent), configure [auth.oauth], or use --host 127.0.0.1.`,
    );
  }
  hub.metrics.collectProcessMetrics();
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const publicHost = cfg.public_url ? new URL(cfg.public_url).hostname : undefined;
  const hostnames = [
    ...new Set([...LOOPBACK_HOSTS, bracketed, ...cfg.allowed_hosts, ...(publicHost ? [publicHost] : [])]),
  ];
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
  const dashboard = createDashboard(hub, auth, opts.exposure);

  /** Every route, first-listed first (route-table.ts); a path no route matches is a 404 once its caller authenticates. */
  const routes = new RouteTable([
    // `/mcp/NAME` is MCP under profile NAME (both HTTP eras), answered as /mcp once the profile is chosen.
    ...['/mcp', '/mcp/:profile'].map(
      (path): Route => ({
        method: 'ALL',
        path,
        jsonRpc: true,
        async handle({ req, res, principal }) {
          const body = req.method === 'POST' ? await readJsonOrAnswer(req, res, maxBody, true) : undefined;
          if (body === ANSWERED) return;
          return mcp.handle(req, res, body, principal);
        },
      }),
    ),
    // Probes answer everyone, any method: load balancers and orchestrators carry no token.
    { method: 'ALL', path: '/healthz', open: true, handle: ({ res }) => sendJson(res, 200, { status: 'ok' }) },
    {
      method: 'ALL',
      path: '/readyz',
      open: true,
      async handle({ res }) {
        const ok = await hub.services.store.ping().catch(() => false);
        sendJson(res, ok ? 200 : 503, { status: ok ? 'ready' : 'not ready', store: hub.services.store.kind });
      },
    },
    // OAuth protected resource metadata (RFC 9728) is public: clients read it to learn where to sign in.
    ...[METADATA_PATH, MCP_METADATA_PATH].map(
      (path): Route => ({
        method: 'ALL',
        path,
        open: true,
        handle({ res }) {
          if (auth.oauth) return sendJson(res, 200, auth.oauth.metadata(), { 'cache-control': 'max-age=3600' });
          sendError(res, {
            code: 'NOT_FOUND',
            message: `${path} is published only when [auth.oauth] is configured; this server takes Switchboard tokens only.`,
          });
        },
      }),
    ),
    // The dashboard's page (data in it only for a caller that needs no token), its ticketed event stream (both under
    // the same Host/Origin guard) and its API.
    ...dashboard.routes,
    // Operator views: every caller's events and the metrics, so only admins (403 for a valid token without it).
    {
      method: 'GET',
      path: '/metrics',
      admin: true,
      async handle({ res }) {
        const text = await hub.metrics.prometheus();
        res.writeHead(200, { 'content-type': hub.metrics.contentType });
        res.end(text);
      },
    },
    {
      method: 'GET',
      path: '/v1/events',
      admin: true,
      handle: ({ req, res, token }) =>
        streamEvents(hub, req, res, token ? { endOn: (end) => auth.watch(token, () => end(TOKEN_GONE)) } : {}),
    },
    {
      method: 'GET',
      path: '/v1/tools',
      handle: async ({ res, principal }) => sendJson(res, 200, await listTools(hub, principal)),
    },
    {
      method: 'GET',
      path: '/v1/openapi.json',
      handle: ({ res, principal }) => sendJson(res, 200, openApi(hub, principal), {}, { pretty: true }),
    },
    {
      method: 'POST',
      path: '/v1/tools/:name',
      async handle({ req, res, params, principal }) {
        const body = await readJsonOrAnswer(req, res, maxBody, false);
        if (body === ANSWERED) return;
        return callTool(hub, res, req, params.name ?? '', body, principal);
      },
    },
    // ClaudeBench's JSON-RPC endpoint, for its clients as they are; absent unless turned on.
    ...claudeBenchRoutes(hub, async (req, res) => {
      const body = await readJsonOrAnswer(req, res, maxBody, true);
      return body === ANSWERED ? undefined : { body };
    }),
    {
      method: 'ALL',
      path: '/v1/tools/:name',
      handle: ({ res, path }) =>
        sendJson(
          res,
          405,
          { error: { code: 'INVALID_REQUEST', message: `Use POST ${path} with the input as a JSON body.` } },
          { allow: 'POST' },
        ),
    },
  ]);

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = requestTarget(req.url ?? '/');
    if (!target)
      return sendError(res, {
        code: 'INVALID_REQUEST',
        message: `The request target '${clip(req.url ?? '')}' is not a path; send a path such as /mcp or /v1/tools.`,
      });
    const path = target.path;
    const matched = routes.match(req.method ?? 'GET', path);
    const route = matched?.route;
    const params = matched?.params ?? {};
    // MCP's routes answer refusals in JSON-RPC's shape, every other route in the REST error shape.
    const jsonRpc = route?.jsonRpc === true;
    const refused = guard(req, target.host);
    if (refused) {
      if (jsonRpc)
        return sendJson(res, 403, {
          jsonrpc: '2.0',
          error: { code: TransportErrorCode.Refused, message: refused },
          id: null,
        });
      return sendError(res, { code: 'FORBIDDEN', message: refused });
    }
    // The MCP adapters build their URL from the Host header and `req.url`: give them the origin-form.
    req.url = target.originForm;
    if (route?.open) return route.handle({ req, res, path, params });
    const authn = await auth.authenticate(req, jsonRpc);
    if (!authn.ok) {
      const headers: Record<string, string> = authn.challenge ? { 'www-authenticate': authn.challenge } : {};
      if (jsonRpc) {
        const code = authn.status === 401 ? TransportErrorCode.Unauthorized : TransportErrorCode.Refused;
        return sendJson(
          res,
          authn.status,
          { jsonrpc: '2.0', error: { code, message: authn.message }, id: null },
          headers,
        );
      }
      const code = { 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 503: 'UNAVAILABLE' }[authn.status];
      return sendJson(res, authn.status, { error: { code, message: authn.message } }, headers);
    }
    let principal: Principal;
    try {
      principal = selectProfile(hub.config.get(), authn.principal, {
        ...(authn.profile ? { bound: { name: authn.profile, by: `token '${authn.principal.id}'` } } : {}),
        ...requestedProfile(params.profile, req.headers[PROFILE_HEADER]),
      });
    } catch (err) {
      const info = toErrorInfo(err);
      if (jsonRpc)
        return sendJson(res, httpStatus(info.code), {
          jsonrpc: '2.0',
          error: { code: TransportErrorCode.Refused, message: info.message },
          id: null,
        });
      return sendError(res, info);
    }
    if (!route)
      return sendError(res, {
        code: 'NOT_FOUND',
        message: `No route ${req.method} ${clip(path)}. Try POST /mcp, GET /v1/tools or GET /v1/openapi.json.`,
      });
    if (route.admin && !hasRole(principal, ['admin'])) {
      const message = `${path} needs the 'admin' role; this token has: ${principal.roles.join(', ') || 'no roles'}.`;
      // An OAuth caller is told which scopes would give the role (RFC 6750 insufficient_scope), to ask for them.
      const scope = principal.kind === 'oauth' ? auth.oauth?.scopesGranting(['admin']).join(' ') : undefined;
      const headers: Record<string, string> =
        scope && auth.oauth
          ? { 'www-authenticate': auth.oauth.challenge(false, { error: 'insufficient_scope', scope }) }
          : {};
      return sendJson(res, 403, { error: { code: 'FORBIDDEN', message } }, headers);
    }
    return route.handle({ req, res, path, params, principal, ...(authn.token ? { token: authn.token } : {}) });
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
  const url = `http://${bracketed}:${actual}`;
  try {
    auth.oauth = oauthResourceFor(hub.config.get(), url, exposed);
    // The resource and audience are what the identity provider must be set up with: say them once.
    if (auth.oauth)
      hub.services.logger.info(
        { issuer: auth.oauth.settings.issuer, resource: auth.oauth.resource, audience: auth.oauth.audience },
        'accepting OAuth access tokens',
      );
  } catch (err) {
    await new Promise((resolve) => server.close(resolve));
    throw err;
  }
  return {
    server,
    port: actual,
    url,
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

/** The header that selects a profile on any route (REST has no /mcp/NAME path). */
const PROFILE_HEADER = 'switchboard-profile';

/** The profile a request asks for: its /mcp/NAME path or its Switchboard-Profile header (both: they must agree). */
function requestedProfile(
  fromPath: string | undefined,
  header: string | string[] | undefined,
): { requested?: { name: string; via: string } } {
  const fromHeader = Array.isArray(header) ? header[0] : header?.trim();
  if (fromPath !== undefined && fromHeader && fromHeader !== fromPath)
    throw new SwitchboardError(
      'INVALID_REQUEST',
      `The path /mcp/${clip(fromPath)} and the Switchboard-Profile header '${clip(fromHeader)}' name different profiles; name one.`,
    );
  if (fromPath !== undefined) return { requested: { name: fromPath, via: `/mcp/${clip(fromPath)}` } };
  if (fromHeader) return { requested: { name: fromHeader, via: 'the Switchboard-Profile header' } };
  return {};
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
      const code = info.code === 'INVALID_REQUEST' ? ProtocolErrorCode.ParseError : ProtocolErrorCode.InvalidRequest;
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
