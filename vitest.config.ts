import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Starts a redis-server for the run when none answers (the scale-out tests need one).
    globalSetup: ['test/global-redis.ts'],
    // A temp HOME and TMPDIR for each test file, removed after it; a quiet `claude` (test/setup-env.ts).
    setupFiles: ['test/setup-env.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
