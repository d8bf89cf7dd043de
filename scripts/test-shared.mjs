// `npm run test:shared`: the tests that read the originals' data files and the public data sets in `../shared`
// (beside the repository; SWITCHBOARD_SHARED_DIR names another place). A user's clone has no `../shared`: this
// command then says so and fails, while `npm test` never needs it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const shared = process.env.SWITCHBOARD_SHARED_DIR
  ? resolve(process.env.SWITCHBOARD_SHARED_DIR)
  : resolve(root, '../shared');
const missing = ['originals', 'datasets'].filter((d) => !existsSync(resolve(shared, d)));
if (missing.length) {
  console.error(
    `npm run test:shared needs the originals' data files beside the repository, and ${missing
      .map((d) => resolve(shared, d))
      .join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not there.\n` +
      'They are kept outside the repository (README.md, "Development"); set ' +
      'SWITCHBOARD_SHARED_DIR to the folder that holds originals/ and datasets/, or run `npm test`, which needs neither.',
  );
  process.exit(1);
}
const vitest = resolve(root, 'node_modules/vitest/vitest.mjs');
const run = spawnSync(
  process.execPath,
  [vitest, 'run', '--config', 'vitest.shared.config.ts', ...process.argv.slice(2)],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, SWITCHBOARD_SHARED_DIR: shared },
  },
);
process.exit(run.status ?? 1);
