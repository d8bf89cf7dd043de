// The store part for OAuth logins to upstream servers (src/store/records/oauth-logins.ts). Both backends keep it;
// the records hold sealed credentials, so the store never needs (or has) the key that opens them.
import type { NewOAuthLogin, OAuthLogin } from './records/oauth-logins.ts';

export type { NewOAuthLogin, OAuthLogin, OAuthLoginState } from './records/oauth-logins.ts';

export interface OAuthLoginStore {
  get(server: string, principal: string): Promise<OAuthLogin | undefined>;
  /** Create or replace the login of `server` × `principal`; answers it with its new `updatedAt`. */
  put(login: NewOAuthLogin): Promise<OAuthLogin>;
  /** Remove one principal's login, or every login of the server when `principal` is left out; answers how many. */
  delete(server: string, principal?: string): Promise<number>;
  /** Every login, or a server's, ordered by server then principal. */
  list(server?: string): Promise<OAuthLogin[]>;
}
