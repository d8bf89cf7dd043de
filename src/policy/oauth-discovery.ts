// Where an issuer publishes its signing keys: the `jwks_uri` of its authorization server metadata, RFC 8414
// (`/.well-known/oauth-authorization-server`, inserted before the issuer's path) first, then OpenID Connect
// Discovery (`/.well-known/openid-configuration`, appended). The metadata must name the configured issuer exactly.
import { secureOrLoopback } from '../config/schema.ts';

/** How long one metadata request may take. */
const FETCH_TIMEOUT_MS = 5_000;

/** The two well-known metadata URLs of an issuer, in the order they are tried. */
export function metadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * The issuer's `jwks_uri`, read from its metadata. Throws an Error that names each URL tried and what it answered,
 * so an operator sees at once whether the issuer is wrong, unreachable, or publishes no keys.
 *
 * @example
 * await discoverJwksUri('https://login.example.com/realms/team'); // 'https://login.example.com/realms/team/protocol/openid-connect/certs'
 */
export async function discoverJwksUri(issuer: string, fetchFn: typeof fetch = fetch): Promise<string> {
  const tried: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let doc: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const res = await fetchFn(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
      if (!res.ok) {
        await res.body?.cancel();
        tried.push(`${url}: HTTP ${res.status}`);
        continue;
      }
      doc = (await res.json()) as typeof doc;
    } catch (err) {
      tried.push(`${url}: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    if (doc?.issuer !== issuer)
      throw new Error(
        `The metadata at ${url} names issuer ${JSON.stringify(doc?.issuer)}, not ${JSON.stringify(issuer)}; set [auth.oauth] issuer to exactly the value your provider puts in its tokens' iss claim.`,
      );
    if (typeof doc.jwks_uri !== 'string' || doc.jwks_uri === '')
      throw new Error(
        `The metadata at ${url} has no jwks_uri; set [auth.oauth] jwks_uri to where the issuer publishes its keys.`,
      );
    if (!secureOrLoopback(doc.jwks_uri))
      throw new Error(
        `The metadata at ${url} gives jwks_uri ${doc.jwks_uri}, which is not https://; keys are fetched over TLS only (http:// only on a loopback host).`,
      );
    return doc.jwks_uri;
  }
  throw new Error(
    `Cannot read the metadata of issuer ${issuer} (${tried.join('; ')}); check [auth.oauth] issuer, or set jwks_uri.`,
  );
}
