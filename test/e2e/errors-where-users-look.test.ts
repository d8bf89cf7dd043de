// Errors a user sees where they look (issue 29, §3), each as a user meets it: real `switchboard` processes in fresh
// projects, the official SDK client, a terminal made by script(1), a browser on the dashboard.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, logIn, openPage } from '../helpers/browser.ts';
import {
  BIN,
  childEnv,
  createToken,
  type HttpServerProcess,
  runCli,
  startHttpServer,
  tempProject,
} from '../helpers/cli.ts';
import { until } from '../helpers/until.ts';

/** A fresh project with these files (paths relative to it). */
function project(files: Record<string, string> = {}): string {
  const dir = tempProject();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const BAD_KEY = { '.switchboard/config.toml': '[server]\nprot = 7777\n' };

/** A port nothing listens on now: bound by the system, then let go. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `switchboard --cwd DIR serve --http …args`, with none of the fixture handlers. */
const serveHttp = (dir: string, args: string[]) => startHttpServer(dir, args, {}, { handlers: [] });

/** A tool called over REST as the local caller; the parsed body. */
async function callTool(base: string, name: string, input: unknown = {}): Promise<any> {
  const res = await fetch(`${base}/v1/tools/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  return res.json();
}

/**
 * `switchboard --cwd DIR serve` typed at a terminal: script(1) gives it a pseudo-terminal for stdin and stdout;
 * stderr goes to a file, so what reaches the screen is stdout alone. `endWhen` decides, from stderr, when to type
 * Ctrl+D (end of input) if the command still runs.
 */
function serveOnTerminal(
  dir: string,
  endWhen: (stderr: string) => boolean,
): Promise<{ code: number | null; screen: string; stderr: string }> {
  const stderrFile = join(dir, 'serve-stderr.txt');
  writeFileSync(stderrFile, '');
  const child = spawn(
    'script',
    ['-qfec', `exec ${process.execPath} ${BIN} --cwd ${dir} serve 2>${stderrFile}`, '/dev/null'],
    {
      env: { ...childEnv(dir), TERM: 'xterm' },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    screen += d;
  });
  const stderr = () => readFileSync(stderrFile, 'utf8');
  const typing = until(() => child.exitCode !== null || endWhen(stderr()), {
    timeoutMs: 20_000,
    what: 'serve on a terminal',
  })
    .then(() => child.exitCode === null && child.stdin.write('\x04'))
    .catch(() => child.kill('SIGKILL'));
  return new Promise((done) =>
    child.on('close', async (code) => {
      await typing;
      done({ code, screen: screen.replace(/\r/g, ''), stderr: stderr() });
    }),
  );
}

describe('a bad key in .switchboard/config.toml, over stdio', () => {
  it('answers initialize, then every request with the file and key, until the client leaves', async () => {
    const dir = project(BAD_KEY);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '--cwd', dir, 'serve'],
      env: childEnv(dir),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => {
      stderr += d;
    });
    const client = new Client({ name: 'first-hour', version: '1.0.0' });
    const logs: string[] = [];
    client.setNotificationHandler('notifications/message', async (n) => {
      logs.push(String(n.params.data));
    });
    const why = `Invalid configuration (${join(dir, '.switchboard/config.toml')}): server: unknown key 'server.prot'`;
    try {
      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe('switchboard');
      // The client's first request, one sent after its answer came back, and one more after that: each says why.
      for (const request of [
        () => client.listTools(),
        () => client.callTool({ name: 'task__list', arguments: {} }),
        () => client.listResources(),
      ])
        await expect(request()).rejects.toThrow(
          `Switchboard could not start, so it cannot answer this request: ${why}`,
        );
      // Told once as a log message too, which clients may show, and on stderr, where agents keep a server's log.
      await until(() => logs.length > 0, { what: 'the log message' });
      expect(logs).toEqual([expect.stringContaining(why)]);
      expect(stderr).toContain(why);
    } finally {
      await client.close();
    }
  });

  it('typed at a terminal, prints the error and exits 2', async () => {
    const dir = project(BAD_KEY);
    const { code, stderr, screen } = await serveOnTerminal(dir, () => false);
    expect(code).toBe(2);
    expect(stderr).toContain(
      `switchboard: Invalid configuration (${join(dir, '.switchboard/config.toml')}): server: unknown key 'server.prot'`,
    );
    expect(screen.trim()).toBe('');
  });

  it('typed at a terminal with a valid configuration, says on stderr that it waits for an MCP client, and how to connect one', async () => {
    const dir = project();
    const { code, stderr, screen } = await serveOnTerminal(dir, (err) => err.includes('Ctrl+C'));
    expect(stderr.trim().split('\n')).toEqual([
      `Switchboard (${dir}) is waiting for an MCP client on stdin; an agent starts it itself: claude mcp add switchboard -- ${BIN} serve. For HTTP: switchboard serve --http. Ctrl+C stops it.`,
    ]);
    // stdout belongs to the protocol: nothing else is written there.
    expect(screen).not.toContain('Switchboard');
    expect(code).toBe(0);
  });
});

describe('serve --http on a port that is taken', () => {
  it('names the port and how to pick another, and exits non-zero', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const { code, stderr } = await runCli(project(), ['serve', '--http', '--port', String(port)]);
      expect(code).toBe(1);
      expect(stderr).toContain(`Port ${port} is already in use (127.0.0.1:${port})`);
      for (const way of ['--port N', '--port 0 for any free port', 'npm start -- --port N', '[server] port in '])
        expect(stderr).toContain(way);
    } finally {
      taken.close();
    }
  });
});

describe('system.config get over serve --http --port N', () => {
  it('shows the port in effect and where it came from', async () => {
    const port = await freePort();
    const server = await serveHttp(project(), ['--port', String(port)]);
    try {
      expect(server.url).toBe(`http://127.0.0.1:${port}`);
      const got = await callTool(server.url, 'system__config', { action: 'get' });
      expect(got.config.server.port).toBe(port);
      expect(got.overridden).toEqual([
        { key: 'server.port', value: port, from: `serve --port ${port}`, configured: 7777 },
      ]);
      // What get showed, set back whole, keeps the configuration's own port: the override is not configuration.
      const set = await callTool(server.url, 'system__config', { action: 'set', value: got.config, persist: true });
      expect(set.config.server.port).toBe(port);
      expect(readFileSync(set.file, 'utf8')).not.toContain(String(port));
    } finally {
      await server.stop();
    }
  });
});

describe('files that fail to load', () => {
  const brokenHandler = 'export const x = 1;\nexport const y = 2;\nconst z = ;\n';
  let dir: string;
  let server: HttpServerProcess;
  const file = (path: string) => join(dir, path);

  beforeAll(async () => {
    // greet.mjs loads once (its tools are hello.*, not named after the file), then breaks.
    dir = project({
      '.switchboard/handlers/greet.mjs': `import { defineCapability, z } from 'switchboard-mcp';
        export const say = defineCapability({ name: 'hello.say', description: 'Say hello.', input: z.object({}), handle: () => ({ text: 'hello' }) });`,
    });
    const first = await serveHttp(dir, ['--port', '0']);
    expect((await callTool(first.url, 'hello__say')).text).toBe('hello');
    await first.stop();
    writeFileSync(file('.switchboard/handlers/greet.mjs'), brokenHandler);
    writeFileSync(file('.switchboard/handlers/text.ts'), 'export const count: number = 1;\nexport const = 2;\n');
    mkdirSync(file('.switchboard/plugins/checks'), { recursive: true });
    writeFileSync(
      file('.switchboard/plugins/checks/switchboard-plugin.yml'),
      'hooks:\n  lint:\n    command: [unclosed\n',
    );
    mkdirSync(file('.switchboard/scripts/nl'), { recursive: true });
    mkdirSync(file('.switchboard/scripts/compiled'), { recursive: true });
    writeFileSync(file('.switchboard/scripts/nl/release.md'), 'Release the package.\n');
    writeFileSync(
      file('.switchboard/scripts/compiled/release.mjs'),
      "export default function* () {\n  yield { auto: 'true' };\n  throw new Error('broken at load');\n}\nnot javascript;\n",
    );
    server = await serveHttp(dir, ['--port', '0']);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('system.health is degraded and names each file with its line', async () => {
    // Compiled scripts are checked in the background once the scripts source has read its folders.
    const health = await until(
      async () => {
        const h = await callTool(server.url, 'system__health');
        return h.services.scripts?.status === 'degraded' ? h : undefined;
      },
      { timeoutMs: 15_000, everyMs: 200, what: 'the broken script in health' },
    );
    expect(health.status).toBe('degraded');
    expect(health.services.handlers).toEqual({
      status: 'degraded',
      detail: expect.stringContaining('2 file(s) failed to load: .switchboard/handlers/greet.mjs:3:11: SyntaxError'),
    });
    expect(health.services.handlers.detail).toContain('.switchboard/handlers/text.ts:2:14: ');
    expect(health.services.plugins.detail).toContain('.switchboard/plugins/checks/switchboard-plugin.yml:4:');
    expect(health.services.scripts.detail).toContain('.switchboard/scripts/compiled/release.mjs:5:');
    expect(health.problems.map((p: any) => [p.source, p.file, p.line])).toEqual([
      ['handlers', '.switchboard/handlers/greet.mjs', 3],
      ['handlers', '.switchboard/handlers/text.ts', 2],
      ['plugins', '.switchboard/plugins/checks/switchboard-plugin.yml', 4],
      ['scripts', '.switchboard/scripts/compiled/release.mjs', 5],
    ]);
  });

  it("a call of a tool whose module is broken says so, with file and line, instead of 'Unknown tool'", async () => {
    // Known by the names greet.mjs registered when it last loaded.
    const said = await callTool(server.url, 'hello__say');
    expect(said.error.message).toMatch(
      /^Tool 'hello__say' is not loaded: the handler module that defines it failed to load — \.switchboard\/handlers\/greet\.mjs:3:11: SyntaxError: Unexpected token ';'\. Fix the file and restart Switchboard/,
    );
    // A module that never loaded: known by its file's name as the domain.
    const counted = await callTool(server.url, 'text__count');
    expect(counted.error.message).toContain(
      "Tool 'text__count' is not loaded: the handler module that defines it failed to load — .switchboard/handlers/text.ts:2:14:",
    );
    // A plugin's tools by its folder's domain.
    expect((await callTool(server.url, 'checks__lint')).error.message).toContain(
      'the plugin manifest that defines it failed to load — .switchboard/plugins/checks/switchboard-plugin.yml:4:',
    );
    // Any other name is still unknown.
    expect((await callTool(server.url, 'nothing__here')).error.message).toMatch(/^Unknown tool 'nothing__here'/);
  });

  it('the dashboard lists them on the overview', async () => {
    const token = await createToken(dir, 'ops', 'admin');
    const browser = await launchBrowser();
    const errors: string[] = [];
    try {
      const page = await openPage(browser, errors);
      await logIn(page, server.url, token);
      await page.waitForSelector('section.problems li');
      const items = await page.$$eval('section.problems li', (lis) => lis.map((li) => li.textContent ?? ''));
      expect(items).toEqual([
        expect.stringContaining('.switchboard/handlers/greet.mjs:3:11'),
        expect.stringContaining('.switchboard/handlers/text.ts:2:14'),
        expect.stringContaining('.switchboard/plugins/checks/switchboard-plugin.yml:4:'),
        expect.stringContaining('.switchboard/scripts/compiled/release.mjs:5:'),
      ]);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
