import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** The suite `npm test` runs; vitest.shared.config.ts runs the tests that read `../shared` (test/originals). */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // They read the originals' data files beside the repository: `npm run test:shared`, never a user's `npm test`.
    exclude: ['test/originals/**', 'node_modules/**'],
    // Starts a redis-server for the run when none answers (the scale-out tests need one); builds the startup
    // snapshot once into a cache folder of the run's own.
    globalSetup: ['test/global-redis.ts', 'test/global-snapshot.ts'],
    // A temp HOME and TMPDIR for each test file, removed after it; a quiet `claude` (test/setup-env.ts).
    setupFiles: ['test/setup-env.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at once even on two cores (vitest's default there is one: cores - 1). Most files wait on child
    // processes, so two share the cores well: 8 e2e files took 163 s -> 129 s and 172 s -> 144 s. Three were slower.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
