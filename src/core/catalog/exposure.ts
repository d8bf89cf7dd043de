// What `tools/list` shows a caller: every tool it may see (`full`), or the pinned ones and the four catalog tools
// (`search`). The settings come from the caller's profile, else `[catalog]`; `catalogSettingsFor` is the one place
// that resolves them for a call.
import picomatch from 'picomatch';
import type { KernelConfig, Principal } from '../context.ts';
import { profileFor } from '../profile.ts';
import type { Entry, Registry } from '../registry.ts';

/** The effective catalog settings of one caller. */
export interface CatalogSettings {
  exposure: 'full' | 'search';
  /** Globs over capability names listed as they are in `search`. */
  pin: readonly string[];
}

/** The catalog's own tools: listed instead of the rest in `search`, never in `full` (they stay callable). */
export const CATALOG_TOOLS: readonly string[] = ['catalog.search', 'catalog.describe', 'catalog.call', 'catalog.run'];
const isCatalogTool = (name: string) => CATALOG_TOOLS.includes(name);

/** The settings that apply to `principal`: its profile's `exposure` and `pin` where set, else `[catalog]`'s. */
export function catalogSettingsFor(config: KernelConfig, principal: Principal): CatalogSettings {
  const profile = profileFor({ principal });
  return {
    exposure: profile?.exposure ?? config.catalog.exposure,
    pin: profile?.pin ?? config.catalog.pin,
  };
}

const pinMatchers = new Map<string, (name: string) => boolean>();
function pinned(globs: readonly string[]): (name: string) => boolean {
  const key = globs.join('\0');
  let match = pinMatchers.get(key);
  if (!match) {
    match = globs.length ? picomatch([...globs], { dot: true }) : () => false;
    pinMatchers.set(key, match);
  }
  return match;
}

/**
 * The tools a list shows, in the order given: `visible` is what the caller may see (already filtered by roles and
 * exposure). `full` shows all of it but the catalog's tools; `search` shows the pinned ones and the catalog's tools.
 */
export function exposedTools(settings: CatalogSettings, visible: readonly Entry[]): Entry[] {
  if (settings.exposure === 'full') return visible.filter((e) => !isCatalogTool(e.capability.name));
  const pin = pinned(settings.pin);
  return visible.filter((e) => isCatalogTool(e.capability.name) || pin(e.capability.name));
}

/** What `tools/list` (and `GET /v1/tools`) shows `principal`: every transport lists through this. */
export function listedTools(registry: Registry, config: KernelConfig, principal: Principal): Entry[] {
  return exposedTools(catalogSettingsFor(config, principal), registry.list(principal));
}
