// Test helpers for driving the built CLI as a real child process.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { watchServer } from './banner.mjs';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/switchboard.js');
export const FIXTURE_HANDLERS = join(ROOT, 'test/fixtures/handlers');

export function tempProject(): string {
  return mkdtempSync(join(tmpdir(), 'switchboard-e2e-'));
}

/** Environment for a child: isolated user config, quiet logs. */
export function childEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    SWITCHBOARD_HOME: join(dir, '.home'),
    SWITCHBOARD_LOG_LEVEL: 'warn',
    ...extra,
  };
}

export interface HttpServerProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  stop(): Promise<void>;
}

/** Start `switchboard serve --http --port 0` and wait for the banner to name the URL. */
export async function startHttpServer(dir: string, args: string[] = []): Promise<HttpServerProcess> {
  const child = spawn(
    process.execPath,
    [BIN, '--cwd', dir, 'serve', '--http', '--port', '0', '--handlers', FIXTURE_HANDLERS, ...args],
    {
      env: childEnv(dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const watch = watchServer(child, 15_000);
  const url = await watch.ready;
  return {
    child,
    url,
    stdout: watch.stdout,
    stderr: watch.stderr,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
