// What the OAuth flow of an upstream server may fetch (the SDK's discovery, registration and token requests, handed
// this as their `fetchFn`). The server names URLs, and so does the authorization server it names, so each one is
// checked against what the OAuth specifications allow before anything is sent:
// - anything on the server's own origin (it is the configured URL);
// - protected resource metadata (RFC 9728) only there;
// - the authorization server and its endpoints over https, and a loopback address only for a server on loopback;
// - a redirect only within the origin it was asked of.
// Another service's response body is never passed on to be printed: an error answer keeps only the OAuth error fields
// (RFC 6749 §5.2, printable ASCII), and a success answer must be the JSON document OAuth exchanges.
import type { FetchLike } from '@modelcontextprotocol/client';
import { isLoopbackHostname } from '../../config/schema-auth.ts';

/** Answers larger than this are not read: no OAuth document or error is anywhere near it. */
const MAX_BODY_BYTES = 256 * 1024;
const MAX_REDIRECTS = 5;
/** RFC 6749 §5.2: `error` and `error_description` are printable ASCII without `"` and `\`. */
const OAUTH_ERROR_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]{1,300}$/;

/**
 * A request the OAuth flow may not make, or an answer it may not read. A `TypeError`, as `fetch` rejects a request it
 * cannot make: the SDK's discovery passes those on instead of falling back to guessing the authorization server.
 */
export class OAuthFetchRefused extends TypeError {
  override name = 'OAuthFetchRefused';
}

/** The `fetchFn` for the OAuth flow of the server `name` at `serverUrl`. */
export function discoveryFetch(name: string, serverUrl: string, base: FetchLike = fetch): FetchLike {
  const server = new URL(serverUrl);
  const check = (url: URL) => urlRefusal(url, server);
  return async (input, init) => {
    let url = new URL(String(input));
    const method = (init?.method ?? 'GET').toUpperCase();
    for (let hop = 0; ; hop++) {
      const why = check(url);
      if (why) throw new OAuthFetchRefused(`Not fetching ${url.href} for the OAuth login to '${name}': ${why}.`);
      const res = await base(url, { ...init, redirect: 'manual' });
      const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      if (location === null) return readable(url, method, res);
      await res.body?.cancel().catch(() => {});
      const next = new URL(location, url);
      if (next.origin !== url.origin)
        throw new OAuthFetchRefused(
          `Not following the redirect from ${url.href} to ${next.href} for the OAuth login to '${name}': a redirect to another origin is not followed (the server, or its authorization server's metadata, must name that URL itself).`,
        );
      const keepsMethod = method === 'GET' || res.status === 307 || res.status === 308;
      if (!keepsMethod || hop === MAX_REDIRECTS)
        throw new OAuthFetchRefused(
          `${url.href} redirects to ${next.href}; the OAuth login to '${name}' follows at most ${MAX_REDIRECTS} redirects, and a ${method} only through 307 or 308.`,
        );
      url = next;
    }
  };
}

/** Why the flow may not fetch `url` for `server`, or undefined when it may. */
export function urlRefusal(url: URL, server: URL): string | undefined {
  if (url.origin === server.origin) return undefined;
  if (url.pathname.startsWith('/.well-known/oauth-protected-resource'))
    return `protected resource metadata is read only from the server's own origin (${server.origin}), as RFC 9728 locates it`;
  if (isLoopbackHostname(url.hostname) && !isLoopbackHostname(server.hostname))
    return `a loopback address is reached only for a server that is itself on loopback (this one is ${server.origin})`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHostname(url.hostname)) return undefined;
  return 'an authorization server is reached over https only (http only on loopback, for a server on loopback)';
}

/**
 * The answer as the SDK may read it: a success must be JSON; an error keeps only its OAuth error fields. A POST's
 * error without them (registration, token) is refused here, since the SDK would print its body.
 */
async function readable(url: URL, method: string, res: Response): Promise<Response> {
  const type = res.headers.get('content-type')?.split(';')[0]?.trim() || 'no content type';
  const text = await bounded(url, res);
  const described = `HTTP ${res.status} with ${type} (${Buffer.byteLength(text)} bytes)`;
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {}
  if (res.ok) {
    if (json === undefined)
      throw new OAuthFetchRefused(
        `${url.href} answered ${described}, not the JSON document OAuth exchanges; its body is not shown.`,
      );
    return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  }
  const error = oauthError(json);
  if (!error && method !== 'GET')
    throw new OAuthFetchRefused(
      `${url.href} answered ${described}, which is not an OAuth error response; its body is not shown.`,
    );
  return new Response(error ? JSON.stringify(error) : null, {
    status: res.status,
    statusText: res.statusText,
    headers: { 'content-type': 'application/json' },
  });
}

/** The OAuth error fields of a document, when it is an OAuth error response whose text may be shown. */
function oauthError(doc: unknown): { error: string; error_description?: string } | undefined {
  if (typeof doc !== 'object' || doc === null) return undefined;
  const { error, error_description: description } = doc as Record<string, unknown>;
  if (typeof error !== 'string' || !OAUTH_ERROR_TEXT.test(error)) return undefined;
  return typeof description === 'string' && OAUTH_ERROR_TEXT.test(description)
    ? { error, error_description: description }
    : { error };
}

/** The body as text, refusing one larger than any OAuth answer. */
async function bounded(url: URL, res: Response): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) {
      await res.body.cancel().catch(() => {});
      throw new OAuthFetchRefused(
        `${url.href} answered with more than ${MAX_BODY_BYTES / 1024} KiB; no OAuth answer is that large.`,
      );
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
