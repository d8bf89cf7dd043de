// HTTP authentication: `Authorization: Bearer <token>` checked against the hashed tokens in the store.
// Required as soon as one token exists, and always off loopback; without tokens on loopback, callers are anonymous.
import type { IncomingMessage } from 'node:http';
import type { Config } from '../config/schema.ts';
import type { Principal } from '../core/context.ts';
import type { Store, TokenRecord } from '../store/contract.ts';
import { type Exposure, makePrincipal } from './principal.ts';
import { verifyToken } from './tokens.ts';

export type AuthResult =
  | { ok: true; principal: Principal }
  | { ok: false; status: 401; message: string; challenge: string };

const REALM = 'Bearer realm="switchboard"';

export class HttpAuth {
  private tokenCount = 0;
  private countedAt = 0;
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly config: () => Config,
    private readonly serveExposure: Exposure | undefined,
    /** Bound to a non-loopback address: tokens are always required. */
    private readonly exposed: boolean,
  ) {}

  /** Whether any token exists (cached for a second: tokens are created by another process, the CLI). */
  async tokensExist(now = Date.now()): Promise<boolean> {
    if (now - this.countedAt > 1000) {
      this.tokenCount = await this.store.tokens.count();
      this.countedAt = now;
    }
    return this.tokenCount > 0;
  }

  async authenticate(req: IncomingMessage): Promise<AuthResult> {
    const header = req.headers.authorization;
    const required = this.exposed || (await this.tokensExist());
    if (!header) {
      if (!required)
        return {
          ok: true,
          principal: makePrincipal(this.config(), this.serveExposure, {
            id: 'anonymous',
            roles: ['*'],
            kind: 'anonymous',
          }),
        };
      return {
        ok: false,
        status: 401,
        message:
          'Authentication required: send Authorization: Bearer <token> (create one with: switchboard token create NAME --roles agent).',
        challenge: REALM,
      };
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m)
      return {
        ok: false,
        status: 401,
        message: 'Malformed Authorization header: expected "Bearer <token>".',
        challenge: `${REALM}, error="invalid_request"`,
      };
    const record = await verifyToken(this.store.tokens, m[1]);
    if (!record)
      return {
        ok: false,
        status: 401,
        message: 'Invalid, revoked or expired token.',
        challenge: `${REALM}, error="invalid_token"`,
      };
    this.touch(record);
    return {
      ok: true,
      principal: makePrincipal(this.config(), this.serveExposure, {
        id: record.name,
        roles: record.roles,
        kind: 'token',
      }),
    };
  }

  /** Record use at most once a minute per token: a write per call would cost more than it tells. */
  private touch(record: TokenRecord): void {
    const now = Date.now();
    if (now - (this.touched.get(record.name) ?? 0) < 60_000) return;
    this.touched.set(record.name, now);
    this.store.tokens.touch(record.name, new Date(now).toISOString()).catch(() => {});
  }
}

/** Whether a principal holds one of `roles` (`*` holds all). */
export function hasRole(principal: Principal, roles: readonly string[]): boolean {
  return principal.roles.includes('*') || roles.some((r) => principal.roles.includes(r));
}
