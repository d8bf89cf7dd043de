// The environment each test file runs in.
//
// A temp folder of its own, removed after the file: TMPDIR points there, so every
// `mkdtempSync(join(tmpdir(), …))` of a test or helper (tempProject, testHub, configProject…) lands inside it and goes
// with it, and HOME is a folder inside it, so a developer's own ~/.switchboard, ~/.claude.json or mekara scripts
// never show up in a listing under test. Children started with `childEnv` (or any env spread from process.env)
// inherit both.
//
// No nonessential traffic from the real `claude` binary (telemetry, update checks, error reports), as the hook tests
// already asked: a test talks to the fake API only. Hubs pass CLAUDE_* on to the claude-cli provider's child.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const saved = { HOME: process.env.HOME, TMPDIR: process.env.TMPDIR };
const root = mkdtempSync(join(tmpdir(), 'switchboard-test-'));
const home = join(root, 'home');
mkdirSync(home);
// npm keeps its cache under HOME: the install test reads the cache `npm ci` filled, so it stays where it was.
process.env.npm_config_cache ??= join(homedir(), '.npm');
process.env.TMPDIR = root;
process.env.HOME = home;
process.env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
// A developer's own OpenTelemetry settings would turn span export on in every test hub (src/observe/telemetry.ts):
// the telemetry tests turn it on themselves.
for (const key of Object.keys(process.env)) if (key.startsWith('OTEL_')) delete process.env[key];

afterAll(() => {
  restore('HOME', saved.HOME);
  restore('TMPDIR', saved.TMPDIR);
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  } catch (err) {
    // A child the file left running may still write there: say so rather than fail the file's tests.
    console.warn(`test temp folder ${root} not removed: ${(err as Error).message}`);
  }
});

function restore(key: 'HOME' | 'TMPDIR', value: string | undefined): void {
  if (value === undefined) delete process.env[key];
  else process.env[key] = value;
}
