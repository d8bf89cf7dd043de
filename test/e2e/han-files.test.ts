// Han users' plugins as Claude Code installed them: the real `claude` binary adds a marketplace in Han's format (our
// own, test/fixtures/han-format) and installs plugins into a throwaway HOME; Switchboard then serves their hooks
// without any [plugins] paths entry, with Han's tool names in tips rewritten to its own. The cases are in
// han-files-cases.ts; Han's own marketplace goes through them in test/originals/han.test.ts.
import { resolve } from 'node:path';
import { describe } from 'vitest';
import { type HanMarketplace, hanMarketplaceCases } from './han-files-cases.ts';

const OURS: HanMarketplace = {
  folder: () => resolve(import.meta.dirname, '../fixtures/han-format/marketplace'),
  name: 'han-format',
  renamed: {
    old: 'schemagen',
    version: '0.4.2',
    tip: 'Call `jutsu_schemagen__compile` after editing a schema, then commit the generated files.',
  },
  user: { name: 'commit-often', tool: 'commit_often__pending' },
  // tally for this project only.
  project: 'tally',
};

describe("Claude Code's enabled plugins", () => {
  hanMarketplaceCases(OURS);
});
