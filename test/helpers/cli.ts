// Test helpers for driving the built CLI as a real child process.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { watchServer } from './banner.mjs';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/switchboard.js');
export const FIXTURE_HANDLERS = join(ROOT, 'test/fixtures/handlers');

export function tempProject(): string {
  return mkdtempSync(join(tmpdir(), 'switchboard-e2e-'));
}

/**
 * Environment for a child: isolated user config, quiet logs, plain text. CI runners set `CI`, which turns
 * picocolors on even without a terminal, so tests that read the output ask for no colour explicitly.
 */
export function childEnv(dir: string, extra: Record<string, string> = {}): Record<string, string> {
  const { FORCE_COLOR: _forced, ...inherited } = process.env as Record<string, string>;
  return {
    ...inherited,
    NO_COLOR: '1',
    SWITCHBOARD_HOME: join(dir, '.home'),
    SWITCHBOARD_LOG_LEVEL: 'warn',
    ...extra,
  };
}

export interface CliRun {
  /** The exit code (null when killed by the timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the built CLI once in `dir` (`switchboard --cwd dir …args`) and collect its output.
 *
 * @example
 * const r = await runCli(dir, ['tools', 'list', '--json']);
 * expect(r.code).toBe(0);
 */
export function runCli(
  dir: string,
  args: string[],
  opts: {
    env?: Record<string, string>;
    input?: string;
    /** Keep stdin open after `input` (a stdio server that must not see its client leave); default false. */
    keepStdinOpen?: boolean;
    /** With `keepStdinOpen`: close stdin once what the child wrote to stdout passes this test (the client leaves). */
    endStdinWhen?: (stdout: string) => boolean;
    /** How to start it: default `node bin/switchboard.js`; `[BIN]` runs it as a command (startup snapshot). */
    launch?: readonly string[];
    timeoutMs?: number;
  } = {},
): Promise<CliRun> {
  const [command, ...prefix] = opts.launch ?? [process.execPath, BIN];
  return new Promise((done, reject) => {
    const child = spawn(command, [...prefix, '--cwd', dir, ...args], {
      env: childEnv(dir, opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (opts.endStdinWhen?.(stdout)) child.stdin.end();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    if (opts.keepStdinOpen) child.stdin.write(opts.input ?? '');
    else child.stdin.end(opts.input ?? '');
  });
}

/** `switchboard token create NAME --roles ROLES --json …extra` in `dir`; returns the secret. */
export async function createToken(dir: string, name: string, roles: string, extra: string[] = []): Promise<string> {
  const out = await runCli(dir, ['token', 'create', name, '--roles', roles, '--json', ...extra]);
  if (out.code !== 0) throw new Error(`token create ${name} failed (${out.code}): ${out.stderr}`);
  return JSON.parse(out.stdout).token;
}

/** A 2025-era `initialize` request (id 1), as a raw client sends it first, over stdio or HTTP. */
export const INITIALIZE_2025 = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
} as const;

/** The JSON-RPC messages a stdio server wrote (one a line), by id. */
export function answersById(stdout: string): Map<unknown, any> {
  return new Map(
    stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .map((m) => [m.id, m]),
  );
}

export interface HttpServerProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  stop(): Promise<void>;
}

/**
 * Start `switchboard serve --http --port 0` and wait for the banner to name the URL: as `node bin/switchboard.js`
 * (the ESM bundle), or with `asCommand` as the `switchboard` command (from the startup snapshot); `handlers` replaces the
 * fixture handler folders (`[]`: none).
 */
export async function startHttpServer(
  dir: string,
  args: string[] = [],
  env: Record<string, string> = {},
  opts: { asCommand?: boolean; handlers?: string[] } = {},
): Promise<HttpServerProcess> {
  // `--port N` in `args` wins over the default any free port: commander keeps an option's last value.
  const handlers = (opts.handlers ?? [FIXTURE_HANDLERS]).flatMap((h) => ['--handlers', h]);
  const serveArgs = ['--cwd', dir, 'serve', '--http', '--port', '0', ...handlers, ...args];
  const child = spawn(opts.asCommand ? BIN : process.execPath, opts.asCommand ? serveArgs : [BIN, ...serveArgs], {
    env: childEnv(dir, env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const watch = watchServer(child, 15_000);
  const url = await watch.ready;
  return {
    child,
    url,
    stdout: watch.stdout,
    stderr: watch.stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The official SDK client connected to `switchboard serve` over stdio in `dir` (the transport gives the pid). */
export async function connectStdio(
  dir: string,
  name = 'e2e',
  env: Record<string, string> = {},
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, '--cwd', dir, 'serve'],
    env: childEnv(dir, env),
    stderr: 'pipe',
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}
