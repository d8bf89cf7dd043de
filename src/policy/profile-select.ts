// Which profile a request runs under: the one its token is bound to, or the one it asks for (`/mcp/NAME`, the
// Switchboard-Profile header, `serve --profile`, an agent definition's `profile`). One rule for every route:
// a bound token keeps its profile — asking for another is FORBIDDEN — and an unknown name is an error that lists
// the profiles there are. A profile only narrows what the principal sees (src/core/profile.ts).
import type { Config } from '../config/schema.ts';
import type { Principal } from '../core/context.ts';
import { SwitchboardError } from '../core/errors.ts';
import { effectiveProfile, knownProfiles, requireProfile, withProfile } from '../core/profile.ts';

export interface ProfileSelection {
  /** The profile the caller's credentials bind it to, and whose they are (`token 'ci'`). */
  bound?: { name: string; by: string };
  /** The profile the caller asks for, and how it asked (`/mcp/reviewer`, `serve --profile reviewer`). */
  requested?: { name: string; via: string };
}

/**
 * The principal a request runs as once its profile is applied; the principal itself when it selects none.
 * Throws FORBIDDEN when a bound caller asks for another profile or its profile is gone from the configuration
 * (never silently unbound), NOT_FOUND when the requested profile does not exist.
 *
 * @example
 * selectProfile(config, principal, { requested: { name: 'reviewer', via: '/mcp/reviewer' } }).profile?.name
 */
export function selectProfile(config: Config, principal: Principal, sel: ProfileSelection): Principal {
  const { bound, requested } = sel;
  if (bound && requested && requested.name !== bound.name)
    throw new SwitchboardError(
      'FORBIDDEN',
      `${capitalised(bound.by)} is bound to profile '${bound.name}' and cannot use profile '${requested.name}' (${requested.via}); use /mcp/${bound.name} or /mcp, or create a token for '${requested.name}'.`,
      { profile: bound.name, requested: requested.name },
    );
  const name = bound?.name ?? requested?.name;
  if (name === undefined) return principal;
  const profile = effectiveProfile(config, name);
  if (profile) return withProfile(principal, profile);
  if (bound)
    throw new SwitchboardError(
      'FORBIDDEN',
      `${capitalised(bound.by)} is bound to profile '${name}', which the configuration no longer defines ([profiles.${name}]); define it again or create a new token. ${knownProfiles(config)}`,
      { profile: name },
    );
  return withProfile(principal, requireProfile(config, name, requested!.via));
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
