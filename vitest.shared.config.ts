import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * `npm run test:shared` (scripts/test-shared.mjs): the tests that read the originals' data files in `../shared`,
 * with the main suite's setup. (Not mergeConfig: it would add these lists to the main suite's, exclusion included.)
 */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/originals/**/*.test.ts'], exclude: ['node_modules/**'] },
});
