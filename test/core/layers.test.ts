// core/ is the kernel: it imports no other folder of src/ (issue 30, §2). What it needs of the layers above it is a
// narrow type of its own (KernelConfig) or a slot they fill (HubTypes), so config/ and store/ depend on core/ and
// never the other way. Biome's noRestrictedImports says the same in the editor (biome.json); this reads every module.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Config } from '../../src/config/schema.ts';
import type { HubConfig, HubStore, KernelConfig } from '../../src/core/context.ts';
import type { Store } from '../../src/store/contract.ts';

const SRC = join(import.meta.dirname, '../../src');
const CORE = join(SRC, 'core');

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? modules(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/**
 * The relative specifiers a module loads or names, each as a path under src/: static imports and re-exports,
 * `import()` (also in types), and `declare module` augmentations.
 */
function relativeImports(file: string, text: string): string[] {
  const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bdeclare\s+module\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
  return [...text.matchAll(specifier)].map((m) => relative(SRC, resolve(dirname(file), m[1])));
}

const outsideCore = (file: string, text: string) =>
  relativeImports(file, text)
    .filter((target) => !target.startsWith('core/'))
    .map((target) => `${relative(SRC, file)} -> ${target}`);

describe('core/ imports nothing above it', () => {
  it('no module of src/core imports another folder of src/ (or a module beside it)', () => {
    const found = modules(CORE).flatMap((file) => outsideCore(file, readFileSync(file, 'utf8')));
    expect(found).toEqual([]);
  });

  it('the check sees every way a module can reach outside', () => {
    const file = join(CORE, 'catalog', 'example.ts');
    const text = [
      "import type { Config } from '../../config/schema.ts';",
      "import { registry } from '../registry.ts';",
      "export { x } from '../../store/idempotency.ts';",
      "const m = await import('../../serve/mcp-http.ts');",
      "type T = import('../../version.ts').Version;",
      "declare module '../../sources/index.ts' {}",
    ].join('\n');
    expect(outsideCore(file, text)).toEqual([
      'core/catalog/example.ts -> config/schema.ts',
      'core/catalog/example.ts -> store/idempotency.ts',
      'core/catalog/example.ts -> serve/mcp-http.ts',
      'core/catalog/example.ts -> version.ts',
      'core/catalog/example.ts -> sources/index.ts',
    ]);
  });

  it('the outer layers fill the kernel’s slots with their whole types', () => {
    // Checked by `tsc`: Config has every field core/ reads, and Services carries the whole Config and Store.
    expectTypeOf<Config>().toExtend<KernelConfig>();
    expectTypeOf<HubConfig>().toEqualTypeOf<Config>();
    expectTypeOf<HubStore>().toEqualTypeOf<Store>();
  });
});
