// Building principals: who a caller is (token, stdio peer, local CLI, anonymous) plus what they may see —
// roles from their identity, exposure from `[expose]`, their token's own filter and `serve --only/--except`.
import type { Config } from '../config/schema.ts';
import type { Principal } from '../core/context.ts';
import { type Exposure, exposureFilter } from '../core/name-globs.ts';

export type { Exposure };

export interface PrincipalInput {
  id: string;
  roles: string[];
  kind: NonNullable<Principal['kind']>;
}

/** A principal with its exposure filter composed from config, serve options and (for tokens) its own filter. */
export function makePrincipal(config: Config, serveExposure: Exposure | undefined, who: PrincipalInput): Principal {
  const tokenExposure = who.kind === 'token' ? config.policy.tokens[who.id]?.expose : undefined;
  const sees = exposureFilter([config.expose, serveExposure, tokenExposure]);
  return sees ? { ...who, sees } : { ...who };
}
