// The effective profile of a call: the named tool set (`[profiles.NAME]`) its caller selected — by URL, token, or
// `serve --profile` — or was bound to. Chosen at the edge (src/policy/profile-select.ts) and carried on the
// principal, so every list and every call reads it the same way, on every transport.
import type { KernelConfig, Principal } from './context.ts';
import { SwitchboardError } from './errors.ts';
import { exposureFilter } from './name-globs.ts';

/** A profile as one request sees it. `exposure` and `pin` are catalog search settings (docs/catalog.md). */
export interface EffectiveProfile {
  name: string;
  allow: string[];
  deny: string[];
  exposure?: 'full' | 'search';
  pin?: string[];
}

/**
 * The effective profile of a call, list or handler: undefined when the caller uses none. The one way to read it
 * (catalog search reads its `exposure` and `pin` through this).
 *
 * @example
 * profileFor({ principal })?.name // 'reviewer'
 */
export function profileFor(context: { principal: Principal }): EffectiveProfile | undefined {
  return context.principal.profile;
}

/** Whether the profile's allow/deny globs let a capability name through. */
export function inProfile(profile: EffectiveProfile, capability: string): boolean {
  return exposureFilter([profile])?.(capability) ?? true;
}

const derived = new WeakMap<Principal, Map<EffectiveProfile, Principal>>();

/**
 * The principal with `profile` applied: its filter joins the principal's own (a profile only narrows), and the
 * profile is what {@link profileFor} answers. Built once per principal and profile object: principals and
 * profiles are rebuilt when the configuration changes, so nothing here outlives a reload.
 */
export function withProfile(principal: Principal, profile: EffectiveProfile): Principal {
  let byProfile = derived.get(principal);
  const known = byProfile?.get(profile);
  if (known) return known;
  const layer = exposureFilter([profile]);
  const own = principal.sees;
  const sees = layer && own ? (name: string) => own(name) && layer(name) : (layer ?? own);
  const out: Principal = { ...principal, profile, ...(sees ? { sees } : {}) };
  if (!byProfile) {
    byProfile = new Map();
    derived.set(principal, byProfile);
  }
  byProfile.set(profile, out);
  return out;
}

const resolved = new WeakMap<KernelConfig, Map<string, EffectiveProfile>>();

/** `[profiles.NAME]` as an effective profile, or undefined when the configuration has none of that name. */
export function effectiveProfile(config: KernelConfig, name: string): EffectiveProfile | undefined {
  if (!Object.hasOwn(config.profiles, name)) return undefined;
  let byName = resolved.get(config);
  if (!byName) {
    byName = new Map();
    resolved.set(config, byName);
  }
  let profile = byName.get(name);
  if (!profile) {
    const def = config.profiles[name];
    profile = {
      name,
      allow: def.allow,
      deny: def.deny,
      ...(def.exposure ? { exposure: def.exposure } : {}),
      ...(def.pin ? { pin: def.pin } : {}),
    };
    byName.set(name, profile);
  }
  return profile;
}

/** "Known profiles: a, b." or how to define one, for messages about a name that is not there. */
export function knownProfiles(config: KernelConfig): string {
  const names = Object.keys(config.profiles).sort();
  return names.length
    ? `Known profiles: ${names.join(', ')}.`
    : 'No profiles are defined; add a [profiles.NAME] table to .switchboard/config.toml.';
}

/**
 * `[profiles.NAME]` as an effective profile; NOT_FOUND saying where the name came from (`via`) and which
 * profiles there are when the configuration has none of that name.
 */
export function requireProfile(config: KernelConfig, name: string, via: string): EffectiveProfile {
  const profile = effectiveProfile(config, name);
  if (!profile)
    throw new SwitchboardError('NOT_FOUND', `No profile '${name}' (${via}). ${knownProfiles(config)}`, {
      profile: name,
    });
  return profile;
}
