// `switchboard mcp login`: the authorization-code flow with PKCE for one upstream server, run by the SDK's `auth()`.
// The redirect comes back to a loopback listener on 127.0.0.1 (a random port unless one is given); the URL is
// handed to `open` (the CLI prints it and starts a browser; tests follow it with fetch). What the server's 401
// challenge asks for, the configured scopes and any scope a 403 asked for since are requested together.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  auth,
  Client,
  computeScopeUnion,
  extractWWWAuthenticateParams,
  type FetchLike,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { SwitchboardError } from '../../core/errors.ts';
import type { OAuthLogin, OAuthLoginStore } from '../../store/contract.ts';
import { version } from '../../version.ts';
import type { ResolvedServer } from '../server-spec.ts';
import { discoveryFetch, OAuthFetchRefused, urlRefusal } from './discovery-fetch.ts';
import type { SealingKey } from './sealed.ts';
import { OAuthSession } from './session.ts';

export interface LoginOptions {
  server: ResolvedServer;
  /** Whose login (see `loginKey`). */
  key: string;
  store: OAuthLoginStore;
  sealingKey: SealingKey;
  /** Show the authorization URL to the person (and open a browser), or follow it (tests, the conformance driver). */
  open: (url: URL) => void | Promise<void>;
  /** The loopback port for the redirect; 0 (default) picks a free one. */
  port?: number;
  /** How long to wait for the person to authorize. */
  timeoutMs?: number;
  fetchFn?: FetchLike;
}

interface Callback {
  code: string;
  iss?: string;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif"><h1>${title}</h1><p>${text}</p>`;

/** Run the whole login; answers the stored record. */
export async function login(opts: LoginOptions): Promise<OAuthLogin> {
  const serverUrl = opts.server.url;
  if (!serverUrl || opts.server.transport === 'stdio')
    throw new SwitchboardError(
      'INVALID_INPUT',
      `Server '${opts.server.name}' runs a command; only remote servers log in with OAuth.`,
    );
  const state = randomBytes(16).toString('base64url');
  const listener = await listen(opts.port ?? 0, state, opts.server.name);
  try {
    // Every request of the flow goes through the rules of discovery-fetch.ts; so does the URL shown to the person.
    const fetchFn = discoveryFetch(opts.server.name, serverUrl, opts.fetchFn);
    const open = (url: URL) => {
      const why = urlRefusal(url, new URL(serverUrl));
      if (why)
        throw new OAuthFetchRefused(`Not opening ${url.href} for the OAuth login to '${opts.server.name}': ${why}.`);
      return opts.open(url);
    };
    const session = new OAuthSession({
      server: opts.server,
      key: opts.key,
      store: opts.store,
      sealingKey: opts.sealingKey,
      mode: { kind: 'login', redirectUrl: listener.redirectUrl, open, state },
      fetchFn,
    });
    const previous = await session.load().catch(() => undefined);
    session.startOver();
    const challenge = await probe(serverUrl, opts.fetchFn ?? fetch);
    const configured = opts.server.oauth?.scopes.length ? opts.server.oauth.scopes.join(' ') : undefined;
    const scope = computeScopeUnion(challenge.scope, configured, previous?.requiredScope ?? undefined);
    const common = {
      serverUrl,
      ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: challenge.resourceMetadataUrl } : {}),
      ...(scope ? { scope } : {}),
      fetchFn,
    };
    const first = await auth(session, common);
    if (first !== 'AUTHORIZED') {
      const callback = await listener.wait(opts.timeoutMs ?? 5 * 60_000);
      const second = await auth(session, {
        ...common,
        authorizationCode: callback.code,
        ...(callback.iss !== undefined ? { iss: callback.iss } : {}),
      });
      if (second !== 'AUTHORIZED')
        throw new SwitchboardError(
          'UNAUTHORIZED',
          `The authorization server of '${opts.server.name}' did not issue tokens.`,
        );
    }
    return session.login as OAuthLogin;
  } finally {
    listener.close();
  }
}

/**
 * Connect without a token, as the hub would, and keep the first 401 challenge: it names the resource metadata and
 * the scope the server wants. A server may let `initialize` through and challenge only later requests, so the
 * probe goes as far as listing tools.
 */
async function probe(url: string, fetchFn: FetchLike): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
  let challenge: { resourceMetadataUrl?: URL; scope?: string } | undefined;
  const capture: FetchLike = async (input, init) => {
    const res = await fetchFn(input, init);
    if (res.status === 401 && !challenge) {
      const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(res);
      challenge = { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
    }
    return res;
  };
  const client = new Client({ name: 'switchboard', version }, { versionNegotiation: { mode: 'auto' } });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: capture }), { timeout: 15_000 });
    await client.listTools(undefined, { timeout: 15_000 });
  } catch {
    // Expected: the server refuses without a token. Only the challenge matters.
  } finally {
    await client.close().catch(() => {});
  }
  return challenge ?? {};
}

/** The loopback listener that receives the authorization server's redirect, checking `state`. */
async function listen(port: number, state: string, name: string) {
  let deliver: (c: Callback) => void = () => {};
  let fail: (e: Error) => void = () => {};
  const arrived = new Promise<Callback>((resolve, reject) => {
    deliver = resolve;
    fail = reject;
  });
  arrived.catch(() => {});
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    const p = url.searchParams;
    const answer = (status: number, title: string, text: string) =>
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE(title, text));
    if (p.get('state') !== state) {
      // Not ours (an old tab, a forged request): ignore it and keep waiting for the real one.
      answer(400, 'Switchboard: unexpected request', 'This does not answer the login in progress.');
      return;
    }
    const error = p.get('error');
    if (error) {
      answer(400, 'Switchboard: login failed', 'The authorization server refused. See the terminal.');
      fail(
        new SwitchboardError(
          'UNAUTHORIZED',
          `The authorization server of '${name}' refused the login: ${error}${p.get('error_description') ? ` (${p.get('error_description')})` : ''}.`,
        ),
      );
      return;
    }
    const code = p.get('code');
    if (!code) {
      answer(400, 'Switchboard: login failed', 'The redirect carried no authorization code.');
      fail(
        new SwitchboardError('UNAUTHORIZED', `The redirect from the authorization server of '${name}' had no code.`),
      );
      return;
    }
    answer(200, `Switchboard: logged in to ${name}`, 'You can close this tab and return to the terminal.');
    deliver({ code, ...(p.has('iss') ? { iss: p.get('iss') as string } : {}) });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  }).catch((err: NodeJS.ErrnoException) => {
    throw new SwitchboardError(
      'UNAVAILABLE',
      err.code === 'EADDRINUSE'
        ? `The login's loopback port ${port} is in use; free it or choose another with --port.`
        : `Could not listen on 127.0.0.1:${port} for the login's redirect: ${err.message}`,
    );
  });
  const redirectUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  return {
    redirectUrl,
    wait(timeoutMs: number): Promise<Callback> {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new SwitchboardError(
                'TIMEOUT',
                `Nobody authorized the login to '${name}' within ${Math.round(timeoutMs / 1000)} s.`,
              ),
            ),
          timeoutMs,
        );
      });
      return Promise.race([arrived, timeout]).finally(() => clearTimeout(timer));
    },
    close(): void {
      server.closeAllConnections();
      server.close();
    },
  };
}
