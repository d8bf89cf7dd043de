// End-to-end: the real Codex CLI (the @openai/codex devDependency) with the entry `switchboard install codex` writes
// (issue 29 §4). `codex exec` runs in a fresh project with a fresh HOME and CODEX_HOME against a fake Responses API on
// 127.0.0.1 (fake-openai-responses.ts), with no network: every proxy is a closed port and a failing `npx` comes first
// on PATH (Codex hands its MCP servers only HOME, PATH, LANG, SHELL, TERM and the CA-bundle variables, so the entry
// must start Switchboard from those). The fake model calls Switchboard's task__create; the test reads the task from
// the project's board.
//
// Codex's `exec` sends its first request without waiting for an MCP server whose entry lacks `required = true`, and
// never lists again. Switchboard's first list waits for upstream servers never listed before (their catalog is cached
// in the project's store afterwards), so a first start in a project whose servers start slowly is the case the entry
// must survive: each run here is one, in a project of its own with two upstream servers that take 3 s to answer.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProjectStore } from '../../src/hub.ts';
import { BIN, ROOT, tempProject } from '../helpers/cli.ts';
import type { RecordedChatRequest } from '../helpers/fake-openai.ts';
import { type FakeResponses, startFakeResponses } from '../helpers/fake-openai-responses.ts';
import { fixtureStdio, projectWith } from '../sources/upstream/helpers.ts';

const run = promisify(execFile);
const CODEX = join(ROOT, 'node_modules/.bin/codex');
/** Codex offers an MCP server's tools as one namespace tool named after the server. */
const NAMESPACE = 'mcp__switchboard';
const FINAL = 'The task is on the board.';
const CODEX_TIMEOUT_MS = 120_000;

let api: FakeResponses;
/** What the fake model puts on the board in the run under way (runs are one at a time). */
let taskText = '';
const dirs: string[] = [];

beforeAll(async () => {
  // Turn one: create the task; turn two, once Codex sent the tool's output (or its error) back: the final message.
  api = await startFakeResponses({
    respond: (req) =>
      (req.body?.input ?? []).some((item: { type?: string }) => item.type === 'function_call_output')
        ? FINAL
        : { call: { namespace: NAMESPACE, name: 'task__create', arguments: { text: taskText } } },
  });
});

afterAll(async () => {
  await api?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Workspace {
  project: string;
  home: string;
  codexHome: string;
  env: Record<string, string>;
  /** Touched by the failing npx on PATH, if anything runs it. */
  npxMark: string;
}

/**
 * A fresh project whose `.switchboard/config.toml` has two upstream servers that answer nothing for `delayMs`, and a
 * fresh HOME whose Codex config points at the fake API and trusts the project (so Codex reads its .codex/config.toml).
 */
function workspace(delayMs: number): Workspace {
  const slow = (name: string) => fixtureStdio(name, { env: { FIXTURE_NAME: name, FIXTURE_DELAY_MS: String(delayMs) } });
  const project = projectWith([slow('docs'), slow('tickets')]);
  const home = tempProject();
  dirs.push(project, home);
  const codexHome = join(home, '.codex');
  const tools = join(home, 'tools');
  mkdirSync(codexHome);
  mkdirSync(tools);
  const npxMark = join(home, 'npx-was-run');
  writeFileSync(join(tools, 'npx'), `#!/bin/sh\ntouch ${npxMark}\nexit 127\n`, { mode: 0o755 });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "gpt-fake"',
      'model_provider = "fake"',
      '',
      '[model_providers.fake]',
      'name = "Fake Responses API"',
      `base_url = "${api.url}"`,
      'env_key = "FAKE_OPENAI_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      `[projects."${project}"]`,
      'trust_level = "trusted"',
      '',
    ].join('\n'),
  );
  const closed = 'http://127.0.0.1:9';
  const env = {
    HOME: home,
    CODEX_HOME: codexHome,
    PATH: `${tools}${delimiter}${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    FAKE_OPENAI_KEY: 'x',
    NO_COLOR: '1',
    // Nothing may reach a network: every proxy is a closed port; only the fake API on 127.0.0.1 is reached directly.
    HTTP_PROXY: closed,
    HTTPS_PROXY: closed,
    ALL_PROXY: closed,
    http_proxy: closed,
    https_proxy: closed,
    all_proxy: closed,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
  return { project, home, codexHome, env, npxMark };
}

/** `switchboard install codex …args` in the project, as the user types it there. */
async function installCodex(ws: Workspace, args: string[] = []): Promise<string> {
  const r = await run(process.execPath, [BIN, 'install', 'codex', ...args], { cwd: ws.project, env: ws.env });
  return r.stdout;
}

interface CodexRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** The requests this run sent to the fake API, in order. */
  requests: RecordedChatRequest[];
}

/** `codex exec PROMPT` in the project, stdin closed (else Codex reads a prompt from it). */
async function codexExec(ws: Workspace, prompt: string): Promise<CodexRun> {
  const before = api.responses().length;
  const started = performance.now();
  const child: ChildProcess = spawn(CODEX, ['exec', '--skip-git-repo-check', '--color', 'never', prompt], {
    cwd: ws.project,
    env: ws.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: a timeout stops the launcher and the native binary it starts
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const timer = setTimeout(() => process.kill(-(child.pid as number), 'SIGKILL'), CODEX_TIMEOUT_MS);
  const code = await new Promise<number | null>((done, fail) => {
    child.once('error', fail);
    child.once('close', done);
  }).finally(() => clearTimeout(timer));
  return { code, stdout, stderr, ms: Math.round(performance.now() - started), requests: api.responses().slice(before) };
}

/** The names of the tools a request offered in Switchboard's namespace (empty when it offered none). */
function switchboardTools(req: RecordedChatRequest | undefined): string[] {
  const tools: { type?: string; name?: string; tools?: { name: string }[] }[] = req?.body?.tools ?? [];
  return tools.find((t) => t.type === 'namespace' && t.name === NAMESPACE)?.tools?.map((t) => t.name) ?? [];
}

/** Every tool a request offered, namespaces by name, for a failure message. */
const offered = (req: RecordedChatRequest | undefined) =>
  JSON.stringify((req?.body?.tools ?? []).map((t: { name?: string; type?: string }) => t.name ?? t.type));

/** The tool output Codex sent back to the model for the scripted call. */
function toolOutput(req: RecordedChatRequest | undefined): string {
  const item = (req?.body?.input ?? []).find((i: { type?: string }) => i.type === 'function_call_output');
  return typeof item?.output === 'string' ? item.output : JSON.stringify(item?.output);
}

/** The texts of the tasks on the project's board, from the store Switchboard under Codex wrote. */
async function boardTexts(ws: Workspace): Promise<string[]> {
  const store = await openProjectStore(ws.project, ws.env);
  try {
    return (await store.tasks.list()).tasks.map((t) => t.text);
  } finally {
    await store.close();
  }
}

/** Run codex once in a workspace whose entry is installed and check the whole path: offered, called, on the board. */
async function expectSwitchboardUsed(ws: Workspace, label: string): Promise<CodexRun> {
  taskText = `${label}: from codex exec`;
  const r = await codexExec(ws, 'Put a task on the Switchboard board.');
  const detail = `${label}: codex exited ${r.code} after ${r.ms} ms\n${r.stderr}\n${r.stdout}`;
  expect(r.code, detail).toBe(0);
  const [first, second] = r.requests;
  // (a) The first request already offered Switchboard's tools, the slow upstream servers' among them.
  expect(switchboardTools(first), `${detail}\noffered: ${offered(first)}`).toEqual(
    expect.arrayContaining(['task__create', 'task__list', 'docs__echo', 'tickets__echo']),
  );
  // (b) The scripted call reached Switchboard: its answer went back to the model, and the task is on the board.
  expect(toolOutput(second), detail).toContain(taskText);
  expect(r.stdout.trim().endsWith(FINAL), detail).toBe(true);
  expect(await boardTexts(ws)).toEqual([taskText]);
  expect(existsSync(ws.npxMark), 'the entry ran npx').toBe(false);
  return r;
}

describe('Codex with the entry `switchboard install codex` writes', () => {
  it('codex --version runs offline from the devDependency', async () => {
    const ws = workspace(0);
    const r = await run(CODEX, ['--version'], { env: ws.env });
    expect(r.stdout).toMatch(/^codex-cli \d+\.\d+\.\d+/);
  });

  it(
    'project scope: every codex exec, each a first start beside two slow servers, offers and calls Switchboard’s tools',
    async () => {
      const timings: number[] = [];
      for (const n of [1, 2, 3]) {
        const ws = workspace(3000);
        const installed = await installCodex(ws);
        expect(installed).toContain(`[mcp_servers.switchboard] in ${join(ws.project, '.codex/config.toml')}`);
        const entry = (parse(readFileSync(join(ws.project, '.codex/config.toml'), 'utf8')) as any).mcp_servers
          .switchboard;
        // This install's launcher by absolute path (no npx), and Codex told to wait for it.
        expect(entry).toEqual({ command: BIN, args: ['serve'], required: true, startup_timeout_sec: 60 });
        const r = await expectSwitchboardUsed(ws, `run ${n}`);
        // The first start waited for the upstream servers (3 s) before it listed; Codex waited for that list.
        expect(r.ms).toBeGreaterThanOrEqual(3000);
        timings.push(r.ms);
      }
      console.log(`codex exec, project scope, first starts: ${timings.join(' ms, ')} ms`);
    },
    3 * CODEX_TIMEOUT_MS,
  );

  it(
    'user scope: $CODEX_HOME/config.toml gets the entry, which serves the folder codex runs in',
    async () => {
      const ws = workspace(3000);
      const installed = await installCodex(ws, ['--scope', 'user']);
      expect(installed).toContain(`[mcp_servers.switchboard] in ${join(ws.codexHome, 'config.toml')}`);
      expect(existsSync(join(ws.project, '.codex'))).toBe(false);
      const r = await expectSwitchboardUsed(ws, 'user scope');
      console.log(`codex exec, user scope, first start: ${r.ms} ms`);
    },
    CODEX_TIMEOUT_MS,
  );

  it(
    'without `required = true` Codex goes on without Switchboard while it is still starting (why install writes it)',
    async () => {
      // Servers that take 20 s, far beyond Codex's own start (about 1 s), make the outcome certain rather than a race.
      const ws = workspace(20_000);
      await installCodex(ws);
      const file = join(ws.project, '.codex/config.toml');
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('required = true\n');
      writeFileSync(file, text.replace('required = true\n', ''));
      taskText = 'never created';
      const r = await codexExec(ws, 'Put a task on the Switchboard board.');
      const detail = `codex exited ${r.code} after ${r.ms} ms\n${r.stderr}\n${r.stdout}`;
      expect(r.code, detail).toBe(0);
      expect(switchboardTools(r.requests[0]), detail).toEqual([]);
      expect(toolOutput(r.requests[1]), detail).toMatch(/unsupported call/);
      expect(await boardTexts(ws)).toEqual([]);
      expect(r.ms).toBeLessThan(20_000);
    },
    CODEX_TIMEOUT_MS,
  );
});
