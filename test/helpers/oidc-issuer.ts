// Test helper: a real OAuth 2.1 / OpenID authorization server (oidc-provider) on 127.0.0.1, issuing JWT access tokens
// for any resource indicator (RFC 8707), with dynamic client registration and PKCE. The one user, `alice`, signs in
// and consents to what is asked for without a page: the interaction route below finishes each prompt through the
// provider's own interaction API. Two confidential clients take the client-credentials grant: `robot`, and
// `robot-ops`, whose tokens carry `groups: ["ops"]`. Public clients (a browser app such as the dashboard) can be
// added once their redirect URI is known; their redirect URI's origin may call the token endpoint (CORS).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import Provider from 'oidc-provider';

/** The scopes the authorization server knows for every resource. */
export const RESOURCE_SCOPES = 'switchboard:agent switchboard:admin switchboard:read';
export const ROBOT_SECRET = 'robot-secret-robot-secret-robot-secret';

export interface SigningKey {
  jwk: JWK;
  privateKey: CryptoKey;
}

export interface TestIssuer {
  issuer: string;
  /** The keys the server publishes, newest (the one it signs with) first. */
  keys: SigningKey[];
  /** A client-credentials access token for `resource`. */
  clientToken(opts: { resource: string; scope: string; client?: 'robot' | 'robot-ops' }): Promise<string>;
  /** What the user's browser does with an authorization URL: sign in, consent, and land on the redirect URI. */
  browse(authorizationUrl: URL): Promise<URL>;
  /** Register a public client (no secret, PKCE) that is sent back to `redirectUri`. */
  addPublicClient(clientId: string, redirectUri: string): void;
  /** Publish a new signing key before the old one and sign with it from now on (the old one stays published). */
  rotate(): Promise<void>;
  /** While set, answers a request path (e.g. `/jwks`) in the server's place when it returns an answer (an outage). */
  override?: (path: string) => { status: number; body?: unknown } | undefined;
  /** The paths requested so far, in order. */
  requested: string[];
  stop(): Promise<void>;
}

export async function newSigningKey(kid: string): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** A JWT access token signed with `key` (the issuer's own, or a stranger's), for claims a real server will not issue. */
export function signToken(key: SigningKey, claims: JWTPayload): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.jwk.kid }).sign(key.privateKey);
}

/** Start an authorization server; `keys` lets two servers share keys (to tell an issuer check from a signature check). */
export async function startIssuer(opts: { keys?: SigningKey[] } = {}): Promise<TestIssuer> {
  const keys = opts.keys ?? [await newSigningKey('key-1')];
  let provider: any;
  let state: TestIssuer | undefined;
  const server: Server = createServer((req, res) => {
    state?.requested.push(req.url ?? '');
    const answer = state?.override?.(req.url ?? '');
    if (answer) {
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
      return;
    }
    if (req.url?.startsWith('/interaction/')) {
      interact(provider, req, res).catch((err) => {
        res.statusCode = 500;
        res.end(String(err));
      });
      return;
    }
    provider.callback()(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const publicClients: PublicClient[] = [];
  provider = build(issuer, keys, publicClients);

  state = {
    issuer,
    keys,
    requested: [],
    async clientToken({ resource, scope, client = 'robot' }) {
      const res = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client}:${ROBOT_SECRET}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
      });
      const body = await res.json();
      if (!res.ok) throw new Error(`token request failed: ${res.status} ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async browse(authorizationUrl) {
      const jar = new Map<string, string>();
      let url = authorizationUrl;
      for (let hop = 0; hop < 10; hop++) {
        if (url.origin !== issuer) return url; // left the authorization server: the client's redirect URI
        const res = await fetch(url, {
          redirect: 'manual',
          headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
        });
        for (const set of res.headers.getSetCookie()) {
          const [pair] = set.split(';');
          const eq = pair.indexOf('=');
          jar.set(pair.slice(0, eq), pair.slice(eq + 1));
        }
        const location = res.headers.get('location');
        await res.body?.cancel();
        if (!location) throw new Error(`the authorization server answered ${res.status} at ${url} without a redirect`);
        url = new URL(location, url);
      }
      throw new Error('too many redirects');
    },
    addPublicClient(clientId, redirectUri) {
      publicClients.push({ clientId, redirectUri });
      provider = build(issuer, keys, publicClients);
    },
    async rotate() {
      keys.unshift(await newSigningKey(`key-${keys.length + 1}`));
      provider = build(issuer, keys, publicClients);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}

interface PublicClient {
  clientId: string;
  redirectUri: string;
}

function build(issuer: string, keys: SigningKey[], publicClients: PublicClient[]): any {
  const provider = new Provider(issuer, {
    jwks: { keys: keys.map((k) => k.jwk) },
    scopes: ['openid', 'offline_access', ...RESOURCE_SCOPES.split(' ')],
    clients: [
      ...['robot', 'robot-ops'].map((client_id) => ({
        client_id,
        client_secret: ROBOT_SECRET,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      })),
      ...publicClients.map((c) => ({
        client_id: c.clientId,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: [c.redirectUri],
      })),
    ],
    // A public client's page may call the token endpoint from its redirect URI's origin (oidc-provider's default).
    clientBasedCORS: (_ctx: unknown, origin: string, client: { clientAuthMethod: string; redirectUris: string[] }) =>
      client.clientAuthMethod === 'none' && client.redirectUris.some((uri) => new URL(uri).origin === origin),
    clientDefaults: {
      id_token_signed_response_alg: 'ES256',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
    async findAccount(_ctx: unknown, id: string) {
      return { accountId: id, claims: async () => ({ sub: id }) };
    },
    extraTokenClaims: async (_ctx: unknown, token: { clientId?: string }) =>
      token.clientId === 'robot-ops' ? { groups: ['ops'] } : undefined,
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string[]) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async () => ({
          scope: RESOURCE_SCOPES,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 600,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    ttl: { ClientCredentials: 600 },
  });
  provider.on('server_error', (_ctx: unknown, err: unknown) => console.error('oidc-provider server_error', err));
  return provider;
}

/** Alice signs in, then consents to every scope asked for. */
async function interact(provider: any, req: any, res: any): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  if (details.prompt.name === 'login')
    return provider.interactionFinished(
      req,
      res,
      { login: { accountId: 'alice' } },
      { mergeWithLastSubmission: false },
    );
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
  const missing = details.prompt.details;
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, (scopes as string[]).join(' '));
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}
