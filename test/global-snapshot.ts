// Vitest global setup: one cache folder for the run (SWITCHBOARD_CACHE_DIR, inherited by every test file and the
// processes it starts) holding the startup snapshot of this checkout, built once here as `serve` would build it in
// a user's cache. Without it each test file's fresh HOME would start a background build of its own. Removed after
// the run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

export default function setup(): () => void {
  const cache = mkdtempSync(join(tmpdir(), 'switchboard-test-cache-'));
  process.env.SWITCHBOARD_CACHE_DIR = cache;
  if (existsSync(join(ROOT, 'dist/snapshot.cjs')))
    execFileSync(process.execPath, [join(ROOT, 'bin/switchboard.js'), 'snapshot', 'build', '--quiet'], {
      stdio: 'inherit',
      timeout: 120_000,
    });
  else process.stderr.write('dist/ is not built (npm run build): tests that start `switchboard` will fail\n');
  return () => rmSync(cache, { recursive: true, force: true });
}
