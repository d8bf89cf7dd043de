// "Sign in with <issuer>" (docs/dashboard.md#logging-in): the OAuth 2.1 authorization-code flow with PKCE (S256, by
// WebCrypto) as a public client. The page goes to the issuer's authorization endpoint; the issuer sends the browser
// back to /ui/?code=…&state=…, where the page checks the state, trades the code (with the verifier kept in
// sessionStorage) for an access token for this hub (`resource`, RFC 8707), and uses it like a Switchboard token.
import type { SignInOptions } from '../../src/serve/dashboard/sign-in.ts';
import { request } from './api.ts';

/** The sign-in the hub offers (its own definition: the page imports only the type, so no server code). */
export type { SignInOptions };
/** The flow's parameters, when the hub offers it. */
export type OAuthSignIn = Extract<SignInOptions['oauth'], { client_id: string }>;

export const signInOptions = () => request<SignInOptions>('GET', '/v1/ui/sign-in');

/** The pending sign-in of this tab: the state sent and the PKCE verifier, until the issuer sends the browser back. */
const PENDING_KEY = 'switchboard.oauth';

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomString = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

/** Go to the issuer's authorization endpoint; the page unloads. */
export async function startSignIn(o: OAuthSignIn): Promise<void> {
  const verifier = randomString();
  const state = randomString();
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ state, verifier }));
  const url = new URL(o.authorization_endpoint);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: o.client_id,
    redirect_uri: o.redirect_uri,
    scope: o.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: o.resource,
  }))
    url.searchParams.set(k, v);
  location.assign(url.href);
}

/** Whether the issuer has sent the browser back here (`code`/`error` and `state` in the query). */
export function returnedFromSignIn(): boolean {
  const query = new URLSearchParams(location.search);
  return Boolean(query.get('state')) && (query.has('code') || query.has('error'));
}

/**
 * When the issuer has sent the browser back here: the access token, or an Error saying what went wrong. Undefined
 * when this is no return from the issuer. The query is removed either way, so a reload does not replay the code.
 */
export async function finishSignIn(): Promise<string | Error | undefined> {
  if (!returnedFromSignIn()) return undefined;
  const query = new URLSearchParams(location.search);
  const state = query.get('state') as string;
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null') as {
    state: string;
    verifier: string;
  } | null;
  sessionStorage.removeItem(PENDING_KEY);
  if (!pending || pending.state !== state)
    return new Error('The sign-in answer does not match a sign-in started in this tab; sign in again.');
  if (query.has('error'))
    return new Error(`The issuer refused the sign-in: ${query.get('error_description') ?? query.get('error')}.`);
  const options = (await signInOptions()).oauth;
  if (!options || !('client_id' in options)) return new Error('This hub no longer offers OAuth sign-in.');
  const res = await fetch(options.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: query.get('code') ?? '',
      redirect_uri: options.redirect_uri,
      client_id: options.client_id,
      code_verifier: pending.verifier,
      resource: options.resource,
    }),
  }).catch((err: Error) => err);
  if (res instanceof Error) return new Error(`Cannot reach the issuer's token endpoint: ${res.message}.`);
  const body = await res.json().catch(() => ({}));
  if (!res.ok || typeof body.access_token !== 'string')
    return new Error(
      `The issuer gave no access token: ${body.error_description ?? body.error ?? `HTTP ${res.status}`}.`,
    );
  return body.access_token;
}
