// Building principals: who a caller is (token, stdio peer, local CLI, anonymous) plus what they may see —
// roles from their identity, exposure from `[expose]`, their token's own filter and `serve --only/--except`.
import picomatch from 'picomatch';
import type { Config } from '../config/schema.ts';
import type { Principal } from '../core/context.ts';

export interface Exposure {
  allow?: readonly string[];
  deny?: readonly string[];
}

const compiled = new Map<string, (name: string) => boolean>();

function matcher(globs: readonly string[]): (name: string) => boolean {
  const key = globs.join('\0');
  let m = compiled.get(key);
  if (!m) {
    m = picomatch(globs as string[], { dot: true });
    compiled.set(key, m);
  }
  return m;
}

/**
 * One filter from several exposure layers: a name must pass every layer's `allow` (when it has one) and no
 * layer's `deny`. Undefined when no layer restricts anything (the fast, common case).
 */
export function exposureFilter(layers: readonly (Exposure | undefined)[]): ((name: string) => boolean) | undefined {
  const active = layers.filter((l): l is Exposure => !!l && ((l.allow?.length ?? 0) > 0 || (l.deny?.length ?? 0) > 0));
  if (active.length === 0) return undefined;
  const checks = active.map((l) => {
    const allow = l.allow?.length ? matcher(l.allow) : undefined;
    const deny = l.deny?.length ? matcher(l.deny) : undefined;
    return (name: string) => (!allow || allow(name)) && !(deny?.(name) ?? false);
  });
  return (name) => checks.every((c) => c(name));
}

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
