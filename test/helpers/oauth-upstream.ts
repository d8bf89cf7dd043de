// A real OAuth world on loopback for the upstream login tests: an authorization server (oidc-provider, with dynamic
// registration, PKCE, refresh tokens and JWT access tokens for the MCP server as resource), a protected MCP server
// (the SDK's server, tokens checked with jose against the AS's keys, a tool that needs a wider scope), and a
// "person" who follows the authorization URL with fetch and consents, so no browser is needed.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import Provider from 'oidc-provider';
import { afterAll, beforeAll } from 'vitest';
import { z } from 'zod';

const listen = async (server: Server) => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
};
const close = (server: Server) =>
  new Promise<void>((r) => {
    server.closeAllConnections();
    server.close(() => r());
  });

export interface AuthServer {
  issuer: string;
  /** Who the next consent logs in as. */
  user: string;
  /** Access token lifetime for tokens issued from now on, in seconds. */
  accessTtl: number;
  /** Refresh requests answered so far (grant_type=refresh_token). */
  refreshes: number;
  /** Refuse every refresh from now on (as a revoked grant would be). */
  refuseRefresh: boolean;
  close(): Promise<void>;
}

export async function startAuthServer(resource: () => string): Promise<AuthServer> {
  const server = createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const state: AuthServer = {
    issuer,
    user: 'alice',
    accessTtl: 3600,
    refreshes: 0,
    refuseRefresh: false,
    close: () => close(server),
  };
  const provider = new Provider(issuer, {
    clients: [],
    scopes: ['openid', 'offline_access', 'read', 'write'],
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource(),
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'read write',
          audience: resource(),
          accessTokenTTL: state.accessTtl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    // Refresh tokens for every client allowed the grant, without requiring offline_access.
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(g: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
  });
  provider.proxy = false;
  // Silence oidc-provider's own error logging of refused refreshes (expected in these tests).
  provider.on('server_error', () => {});
  const callback = provider.callback();
  server.on('request', async (req: IncomingMessage, res: ServerResponse) => {
    try {
      const m = /^\/interaction\/([^/?]+)/.exec(req.url ?? '');
      if (m) {
        // The person: logs in as `state.user` and consents to everything asked.
        const details = await provider.interactionDetails(req, res);
        if (details.prompt.name === 'login') {
          await provider.interactionFinished(
            req,
            res,
            { login: { accountId: state.user } },
            { mergeWithLastSubmission: false },
          );
          return;
        }
        const params = details.params as Record<string, string>;
        const missing = details.prompt.details ?? {};
        const grant = new provider.Grant({
          accountId: details.session?.accountId as string,
          clientId: params.client_id,
        });
        if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
        for (const [rs, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
          grant.addResourceScope(rs, scopes.join(' '));
        const grantId = await grant.save();
        await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
        return;
      }
      if (req.method === 'POST' && req.url?.startsWith('/token')) {
        // Counted and, on demand, refused here, before the AS sees it.
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const body = Buffer.concat(chunks);
        if (new URLSearchParams(body.toString()).get('grant_type') === 'refresh_token') {
          state.refreshes++;
          if (state.refuseRefresh) {
            res.writeHead(400, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ error: 'invalid_grant', error_description: 'grant revoked' }));
            return;
          }
        }
        // The stream is read: oidc-provider takes an already-read body from req.body.
        Object.assign(req, { body: body.toString() });
      }
      return callback(req, res);
    } catch (err) {
      res.writeHead(500).end(String((err as Error).message));
    }
  });
  return state;
}

export interface ProtectedServer {
  url: string;
  /** Bearer tokens presented, by the subject they belong to (a test reads who called). */
  calls: Array<{ sub: string; tool: string }>;
  /** Answer 401 to every token issued before this moment (ms), as a server that revoked them would. */
  rejectIssuedBefore: number;
  close(): Promise<void>;
}

/** An MCP server on loopback that accepts only the AS's access tokens for it; `write_note` needs scope `write`. */
export async function startProtectedServer(as: () => AuthServer): Promise<ProtectedServer> {
  const server = createServer();
  const port = await listen(server);
  const url = `http://127.0.0.1:${port}/mcp`;
  const prm = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
  const state: ProtectedServer = { url, calls: [], rejectIssuedBefore: 0, close: () => close(server) };
  let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const challenge = (res: ServerResponse, status: 401 | 403, scope: string, error?: string) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      'www-authenticate': `Bearer ${error ? `error="${error}", ` : ''}resource_metadata="${prm}", scope="${scope}"`,
    });
    res.end(JSON.stringify({ error: error ?? 'invalid_token' }));
  };
  server.on('request', async (req, res) => {
    if (req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ resource: url, authorization_servers: [as().issuer], scopes_supported: ['read', 'write'] }),
      );
      return;
    }
    const header = req.headers.authorization ?? '';
    const token = /^Bearer (.+)$/.exec(header)?.[1];
    let claims: { sub?: string; scope?: string; iat?: number } | undefined;
    if (token) {
      jwks ??= createRemoteJWKSet(new URL(`${as().issuer}/jwks`));
      claims = await jwtVerify(token, jwks, { issuer: as().issuer, audience: url })
        .then((r) => r.payload as typeof claims)
        .catch(() => undefined);
    }
    if (!claims || (claims.iat ?? 0) * 1000 < state.rejectIssuedBefore) return challenge(res, 401, 'read');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    const granted = String(claims.scope ?? '').split(' ');
    if (body?.method === 'tools/call') {
      const tool = String(body.params?.name);
      if (tool === 'write_note' && !granted.includes('write'))
        return challenge(res, 403, 'read write', 'insufficient_scope');
      state.calls.push({ sub: String(claims.sub), tool });
    }
    const sid = req.headers['mcp-session-id'] as string | undefined;
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport) {
      const t: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id: string) => {
          sessions.set(id, t);
        },
      });
      transport = t;
      await build(() => String(claims?.sub)).connect(t);
    }
    await transport.handleRequest(req, res, body);
  });
  return state;
}

function build(who: () => string) {
  const server = new McpServer({ name: 'protected', version: '1.0.0' });
  server.registerTool('whoami', { description: 'Who the token belongs to.', inputSchema: z.object({}) }, async () => ({
    content: [{ type: 'text', text: who() }],
  }));
  server.registerTool(
    'write_note',
    { description: 'Needs scope write.', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text: `noted: ${text}` }] }),
  );
  return server;
}

/**
 * The person at the browser: follows the authorization URL through the AS's redirects (keeping its cookies) until
 * it reaches the loopback redirect, which it requests too — exactly what a browser does after consent.
 */
export async function followAuthorization(start: URL): Promise<void> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(url, {
      redirect: 'manual',
      headers: jar.size ? { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } : {},
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    await res.body?.cancel().catch(() => {});
    const location = res.headers.get('location');
    if (!location) {
      if (res.status >= 400) throw new Error(`authorization stopped at ${url.href}: HTTP ${res.status}`);
      return;
    }
    url = new URL(location, url);
  }
  throw new Error('too many redirects following the authorization URL');
}

/** Both servers for a test file: started before its tests, closed after; read them through the getters. */
export function useOAuthWorld(): { as: () => AuthServer; mcp: () => ProtectedServer } {
  let as: AuthServer;
  let mcp: ProtectedServer;
  beforeAll(async () => {
    mcp = await startProtectedServer(() => as);
    as = await startAuthServer(() => mcp.url);
  });
  afterAll(async () => {
    await mcp.close();
    await as.close();
  });
  return { as: () => as, mcp: () => mcp };
}
