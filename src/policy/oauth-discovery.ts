// Where an issuer publishes its signing keys: the `jwks_uri` of its authorization server metadata, RFC 8414
// (`/.well-known/oauth-authorization-server`, inserted before the issuer's path) first, then OpenID Connect
// Discovery (`/.well-known/openid-configuration`, appended). The metadata must name the configured issuer exactly.
// The same document gives the dashboard its authorization and token endpoints (docs/dashboard.md).
// Not the SDK's `discoverAuthorizationServerMetadata`: it requires the fields a client logging in needs (a document
// with only `issuer` and `jwks_uri` fails to parse), stops at a URL that is unreachable or answers 500, and answers
// `undefined` when nothing is found, without saying what each URL answered (docs/decisions.md).
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

/** The parts of an issuer's metadata Switchboard uses: its keys, and the endpoints the dashboard signs in with. */
export interface IssuerMetadata {
  issuer: string;
  jwks_uri?: unknown;
  authorization_endpoint?: unknown;
  token_endpoint?: unknown;
  /** Where the document was read. */
  url: string;
}

/**
 * The issuer's metadata document, the first of the two well-known URLs that answers, checked to name the configured
 * issuer. Throws an Error that names each URL tried and what it answered, so an operator sees at once whether the
 * issuer is wrong or unreachable.
 */
export async function discoverIssuerMetadata(issuer: string, fetchFn: typeof fetch = fetch): Promise<IssuerMetadata> {
  const tried: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let doc: Omit<IssuerMetadata, 'url' | 'issuer'> & { issuer?: unknown };
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
    return { ...doc, issuer, url };
  }
  throw new Error(
    `Cannot read the metadata of issuer ${issuer} (${tried.join('; ')}); check [auth.oauth] issuer, or set jwks_uri.`,
  );
}

/** The `jwks_uri` a metadata document gives, which must be https:// (http:// on loopback only). */
export function jwksUriOf(meta: IssuerMetadata): string {
  if (typeof meta.jwks_uri !== 'string' || meta.jwks_uri === '')
    throw new Error(
      `The metadata at ${meta.url} has no jwks_uri; set [auth.oauth] jwks_uri to where the issuer publishes its keys.`,
    );
  if (!secureOrLoopback(meta.jwks_uri))
    throw new Error(
      `The metadata at ${meta.url} gives jwks_uri ${meta.jwks_uri}, which is not https://; keys are fetched over TLS only (http:// only on a loopback host).`,
    );
  return meta.jwks_uri;
}

/**
 * The issuer's `jwks_uri`, read from its metadata.
 *
 * @example
 * await discoverJwksUri('https://login.example.com/realms/team'); // 'https://login.example.com/realms/team/protocol/openid-connect/certs'
 */
export async function discoverJwksUri(issuer: string, fetchFn: typeof fetch = fetch): Promise<string> {
  return jwksUriOf(await discoverIssuerMetadata(issuer, fetchFn));
}
