// What the dashboard's login form offers besides a token (docs/dashboard.md#logging-in): with `[auth.oauth]` and
// `dashboard_client_id`, "Sign in with <issuer>" — the page runs the authorization-code flow with PKCE as a public
// client, and needs the issuer's endpoints (from the metadata the resource server already reads for its keys), the
// resource identifier to ask a token for (RFC 8707) and the scopes. Public: the login form is shown before any token.
import type { OAuthResource } from '../../policy/oauth.ts';

export type SignInOptions =
  | { oauth: null }
  | { oauth: { issuer: string; missing: string; redirect_uri: string } }
  | {
      oauth: {
        issuer: string;
        client_id: string;
        authorization_endpoint: string;
        token_endpoint: string;
        resource: string;
        scope: string;
        redirect_uri: string;
      };
    };

/** The dashboard's address at the issuer: where the issuer sends the browser back with `code` and `state`. */
export function dashboardRedirectUri(oauth: OAuthResource): string {
  return `${oauth.resource}/ui/`;
}

/** The origins the page may fetch from besides its own: the issuer's, for the token request. */
export function signInOrigins(oauth: OAuthResource | undefined): string[] {
  return oauth?.settings.dashboard_client_id ? [new URL(oauth.settings.issuer).origin] : [];
}

/** The sign-in options, or an Error saying why the issuer's endpoints cannot be used. */
export async function signInOptions(oauth: OAuthResource | undefined): Promise<SignInOptions> {
  if (!oauth) return { oauth: null };
  const { issuer, dashboard_client_id: clientId } = oauth.settings;
  const redirectUri = dashboardRedirectUri(oauth);
  if (!clientId) return { oauth: { issuer, missing: '[auth.oauth] dashboard_client_id', redirect_uri: redirectUri } };
  const meta = await oauth.issuerMetadata();
  const endpoint = (name: 'authorization_endpoint' | 'token_endpoint'): string => {
    const value = meta[name];
    if (typeof value !== 'string' || !URL.canParse(value))
      throw new Error(`The metadata at ${meta.url} has no ${name}; the dashboard cannot sign in with ${issuer}.`);
    return value;
  };
  const tokenEndpoint = endpoint('token_endpoint');
  // The page's CSP lets it reach the issuer's origin only (signInOrigins): say so rather than fail in the browser.
  if (new URL(tokenEndpoint).origin !== new URL(issuer).origin)
    throw new Error(
      `The issuer's token endpoint ${tokenEndpoint} is not on the issuer's origin; the dashboard may only reach ${new URL(issuer).origin}.`,
    );
  return {
    oauth: {
      issuer,
      client_id: clientId,
      authorization_endpoint: endpoint('authorization_endpoint'),
      token_endpoint: tokenEndpoint,
      resource: oauth.resource,
      scope: oauth.scopes.join(' '),
      redirect_uri: redirectUri,
    },
  };
}
