// The three servers under test and how to start them: Switchboard (the built CLI), the bare SDK v2 server,
// and the raw newline-JSON floor. Each gets its own temp project / home so runs never touch the user's state.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/switchboard.js');
export const BENCH_HANDLERS = join(ROOT, 'bench/handlers');
export const TS_FIXTURE_HANDLERS = join(ROOT, 'test/fixtures/handlers');

/** A temp project folder (with an isolated SWITCHBOARD_HOME) for Switchboard children. */
export function tempProject() {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-bench-'));
  mkdirSync(join(dir, '.home'), { recursive: true });
  return dir;
}

export function switchboardEnv(dir) {
  return { ...process.env, SWITCHBOARD_HOME: join(dir, '.home'), SWITCHBOARD_LOG_LEVEL: 'warn' };
}

/**
 * The startup snapshot of the build at `root`, built into the user's cache as the first `serve` of an install builds
 * it (in the background there): the `switchboard` command is measured as a user has it from its second start on.
 */
export function buildSnapshot(root = ROOT) {
  execFileSync(process.execPath, [join(root, 'bin/switchboard.js'), 'snapshot', 'build', '--quiet'], {
    stdio: 'inherit',
  });
}

/**
 * @param {string} project temp project for Switchboard
 * @param {string[]} nodeFlags extra flags for the server's node (e.g. --cpu-prof)
 * @param {string} root the Switchboard checkout whose build is run (default: this one)
 */
export function serverDefs(project, nodeFlags = [], root = ROOT) {
  const node = process.execPath;
  const sbEnv = switchboardEnv(project);
  // Another build of Switchboard (e.g. a patched copy from bench/experiments.mjs --keep) may be measured instead.
  const BIN = join(root, 'bin/switchboard.js');
  const BENCH_HANDLERS = join(root, 'bench/handlers');
  return {
    switchboard: {
      label: 'switchboard',
      tool: 'echo',
      env: sbEnv,
      stdio: [node, [...nodeFlags, BIN, '--cwd', project, 'serve', '--handlers', BENCH_HANDLERS]],
      http: [
        node,
        [
          ...nodeFlags,
          BIN,
          '--cwd',
          project,
          'serve',
          '--http',
          '--host',
          '127.0.0.1',
          '--port',
          '0',
          '--handlers',
          BENCH_HANDLERS,
        ],
      ],
    },
    // The `switchboard` command as agents' stdio configs run it: the launcher in bin/switchboard.js starts `serve`
    // from the startup snapshot in the user's cache (buildSnapshot builds it first).
    'switchboard-cmd': {
      label: 'switchboard command (startup snapshot)',
      tool: 'echo',
      env: sbEnv,
      stdio: [BIN, ['--cwd', project, 'serve', '--handlers', BENCH_HANDLERS]],
    },
    'switchboard-ts': {
      label: 'switchboard (TS fixture handlers via tsx)',
      tool: 'fixture__echo',
      env: sbEnv,
      stdio: [node, [...nodeFlags, BIN, '--cwd', project, 'serve', '--handlers', TS_FIXTURE_HANDLERS]],
    },
    bare: {
      label: 'bare SDK v2',
      tool: 'echo',
      env: { ...process.env },
      stdio: [node, [...nodeFlags, join(ROOT, 'bench/bare-sdk-server.mjs'), 'stdio']],
      http: [node, [...nodeFlags, join(ROOT, 'bench/bare-sdk-server.mjs'), 'http', '0']],
    },
    raw: {
      label: 'raw floor',
      tool: 'echo',
      env: { ...process.env },
      stdio: [node, [...nodeFlags, join(ROOT, 'bench/raw-floor-server.mjs'), 'stdio']],
      http: [node, [...nodeFlags, join(ROOT, 'bench/raw-floor-server.mjs'), 'http', '0']],
    },
  };
}
