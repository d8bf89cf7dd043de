// The built-in `catalog` domain: search, describe, call and run code over the tools a caller may see, for clients that list only
// these (`[catalog] exposure = "search"`, docs/catalog.md). Registered under source 'builtin', feature 'catalog'.
import type { Capability } from '../../../core/capability.ts';
import type { Services } from '../../../core/context.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { catalogCall } from './call.ts';
import { catalogDescribe } from './describe.ts';
import { catalogRun } from './run.ts';
import { catalogSearch } from './search.ts';

export const CATALOG_CAPABILITIES = [catalogSearch, catalogDescribe, catalogCall, catalogRun] as Capability[];

/** Add the `catalog.*` capabilities; the returned function removes them. */
export function registerCatalog(services: Services): () => void {
  const { registry } = services;
  registry.batch(() => {
    for (const cap of CATALOG_CAPABILITIES) {
      // They reveal and run only what the caller's exposure filter lets through, so that filter does not hide them.
      const added = registry.add({ ...cap, source: 'builtin', feature: 'catalog', throughFilters: true });
      if (!added.ok) throw new SwitchboardError('INTERNAL', added.message);
    }
  });
  return () => {
    registry.batch(() => {
      for (const cap of CATALOG_CAPABILITIES) registry.remove(cap.name);
    });
  };
}
