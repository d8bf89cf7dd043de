// End-to-end: the package as a user gets it. `npm pack` the built repository, install the tarball globally into a
// temporary prefix and as a devDependency of another project, then use the installed `switchboard` command in an
// unrelated folder: its version, a TypeScript handler of that folder served over stdio and over HTTP, its startup
// snapshot built in the user's cache, and `install claude-code` writing an entry the real `claude` starts with no npx
// and no network. The tarball's contents and `npm publish --dry-run` are checked too.
//
// Installing runs better-sqlite3's install script, which first asks for a prebuilt binary and otherwise compiles
// SQLite (minutes on a busy machine). The binary this checkout already built is offered to it from a local mirror
// (prebuild-install's documented npm_config_<package>_binary_host), so only the packaging is under test here.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchServer } from '../helpers/banner.mjs';
import { childEnv, ROOT, tempProject } from '../helpers/cli.ts';

const run = promisify(execFile);
const VERSION: string = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
/** Installs read the npm cache `npm ci` filled; the registry is asked only for what it lacks. */
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];
const INSTALL_TIMEOUT_MS = 8 * 60_000;

/** A TypeScript handler as a user writes it: imports the package by its name, no package.json, no install. */
const GREET = `import { defineCapability, z } from 'switchboard-mcp';

export const greet = defineCapability({
  name: 'demo.greet',
  description: 'Greet someone by name.',
  input: z.object({ name: z.string().min(1) }),
  output: z.object({ greeting: z.string() }),
  handle: ({ name }: { name: string }) => ({ greeting: \`Hello, \${name}!\` }),
});
`;

function projectWithHandler(): string {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard/handlers'), { recursive: true });
  writeFileSync(join(dir, '.switchboard/handlers/greet.ts'), GREET);
  return dir;
}

let work: string;
let tarball: string;
/** `npm pack --json`'s report: the tarball's size and files. */
let packInfo: { filename: string; size: number; unpackedSize: number; files: { path: string }[] };
let prefix: string;
/** A project with the tarball as its devDependency. */
let app: string;
let mirror: Server;
let mirrorUrl: string;
let npmEnv: NodeJS.ProcessEnv;

/** Serve this checkout's compiled better-sqlite3 binary as prebuild-install expects a release asset. */
async function startBinaryMirror(dir: string): Promise<void> {
  const asset = join(dir, 'better-sqlite3-prebuilt.tar.gz');
  await run('tar', [
    'czf',
    asset,
    '-C',
    join(ROOT, 'node_modules/better-sqlite3'),
    'build/Release/better_sqlite3.node',
  ]);
  const body = readFileSync(asset);
  mirror = createServer((req, res) => {
    if (!req.url?.endsWith('.tar.gz')) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((ready) => mirror.listen(0, '127.0.0.1', ready));
  mirrorUrl = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}`;
}

/** prebuild-install keeps each download in the npm cache under a name made from its URL: remove ours. */
function forgetMirrorDownloads(): void {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8'));
  const abi = process.versions.modules;
  const url = `${mirrorUrl}/v${pkg.version}/better-sqlite3-v${pkg.version}-node-v${abi}-${process.platform}-${process.arch}.tar.gz`;
  const digest = createHash('sha512').update(url).digest('hex').slice(0, 6);
  const cache = process.env.npm_config_cache ?? join(homedir(), '.npm');
  rmSync(join(cache, '_prebuilds', `${digest}-${basename(url).replace(/[^a-zA-Z0-9.]+/g, '-')}`), { force: true });
}

beforeAll(async () => {
  work = tempProject();
  await startBinaryMirror(work);
  npmEnv = { ...process.env, npm_config_better_sqlite3_binary_host: mirrorUrl };
  // --ignore-scripts: `prepare` would rebuild dist/, which the other test files are running from; npm test built it.
  const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work, ...NPM_FLAGS], {
    cwd: ROOT,
    env: npmEnv,
  });
  packInfo = JSON.parse(packed.stdout)[0];
  tarball = join(work, packInfo.filename);
  prefix = join(work, 'prefix');
  app = projectWithHandler();
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'an-app', private: true, type: 'module' }));
  // Both installs at once: together they take about the time of one (measured: 69.5 s -> 53.9 s for the file).
  await Promise.all([
    run('npm', ['install', '--global', '--prefix', prefix, ...NPM_FLAGS, tarball], {
      cwd: work,
      env: npmEnv,
      timeout: INSTALL_TIMEOUT_MS,
    }),
    run('npm', ['install', '--save-dev', ...NPM_FLAGS, tarball], {
      cwd: app,
      env: npmEnv,
      timeout: INSTALL_TIMEOUT_MS,
    }),
  ]);
}, INSTALL_TIMEOUT_MS + 60_000);

afterAll(async () => {
  if (mirror) {
    forgetMirrorDownloads();
    await new Promise((closed) => mirror.close(closed));
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the tarball', () => {
  it('fits the machine it lands on: under 3 MB, no startup snapshot or source maps, a licence and the docs', () => {
    const paths = packInfo.files.map((f) => f.path);
    expect(packInfo.size).toBeLessThan(3 * 1024 * 1024);
    expect(paths.filter((p) => p.endsWith('.map') || p.endsWith('.blob') || p.endsWith('.blob.node'))).toEqual([]);
    expect(paths).toEqual(
      expect.arrayContaining(['LICENSE', 'README.md', 'docs/configuration.md', 'dist/snapshot.cjs']),
    );
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      repository: { url: expect.any(String) },
      homepage: expect.any(String),
      bugs: { url: expect.any(String) },
    });
  });

  it('passes npm publish --dry-run', async () => {
    const r = await run('npm', ['publish', '--dry-run', '--ignore-scripts', ...NPM_FLAGS], { cwd: ROOT, env: npmEnv });
    expect(r.stderr).not.toMatch(/npm error/i);
  }, 120_000);
});

describe('the packed package, installed globally', () => {
  it('gives a switchboard command that reports the package version, from the startup snapshot too', async () => {
    const bin = join(prefix, 'bin/switchboard');
    const dir = tempProject();
    expect((await run(bin, ['--version'], { cwd: dir })).stdout.trim()).toBe(VERSION);
    expect((await run(bin, ['serve', '--version'], { cwd: dir })).stdout.trim()).toBe(VERSION);
    expect((await run(join(prefix, 'bin/switchboard-mcp'), ['--version'], { cwd: dir })).stdout.trim()).toBe(VERSION);
  });

  it('builds its startup snapshot in the user’s cache, and serve starts from it', async () => {
    const bin = join(prefix, 'bin/switchboard');
    const dir = tempProject();
    const env = { ...childEnv(dir), SWITCHBOARD_CACHE_DIR: join(dir, 'cache') };
    expect((await run(bin, ['snapshot', 'status'], { cwd: dir, env })).stdout).toMatch(
      /^not used: no snapshot built yet/,
    );
    expect((await run(bin, ['snapshot', 'build'], { cwd: dir, env })).stdout).toMatch(
      /^Built the startup snapshot in \d+ ms/,
    );
    expect((await run(bin, ['snapshot', 'status'], { cwd: dir, env })).stdout).toMatch(/^ready/);
    const transport = new StdioClientTransport({ command: bin, args: ['serve'], cwd: dir, env, stderr: 'pipe' });
    const client = new Client({ name: 'install-e2e', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(readFileSync(`/proc/${transport.pid}/cmdline`, 'utf8').split('\0')).toContain('--snapshot-blob');
      expect(client.getServerVersion()?.version).toBe(VERSION);
    } finally {
      await client.close();
    }
  });

  it('install claude-code writes this install’s command, which the real claude starts with no npx and no network', async () => {
    const project = tempProject();
    const home = join(project, 'home');
    const tools = join(project, 'tools');
    mkdirSync(home);
    mkdirSync(tools);
    // An npx that fails and leaves a mark, first on PATH: the entry must not need it.
    const npxMark = join(project, 'npx-was-run');
    writeFileSync(join(tools, 'npx'), `#!/bin/sh\ntouch ${npxMark}\nexit 127\n`, { mode: 0o755 });
    const env = {
      ...childEnv(project),
      HOME: home,
      PATH: `${tools}${delimiter}${join(ROOT, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}`,
      // Nothing may reach a network: every proxy is a closed port, npm is offline.
      HTTP_PROXY: 'http://127.0.0.1:9',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      npm_config_offline: 'true',
    };
    const installed = await run(join(prefix, 'bin/switchboard'), ['install', 'claude-code'], { cwd: project, env });
    const entry = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')).mcpServers.switchboard;
    const launcher = realpathSync(join(prefix, 'lib/node_modules/switchboard-mcp/bin/switchboard.js'));
    expect(entry).toEqual({ type: 'stdio', command: launcher, args: ['serve'] });
    expect(installed.stdout).toContain(`it runs                    ${launcher} serve`);
    // What claude records when the user accepts its trust dialog in this folder (install enabled the server).
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({ projects: { [project]: { hasTrustDialogAccepted: true } } }),
    );
    const listed = await run('claude', ['mcp', 'list'], { cwd: project, env, timeout: 90_000 });
    expect(listed.stdout, listed.stderr).toMatch(/switchboard: .*serve - [✓✔] Connected/);
    expect(existsSync(npxMark)).toBe(false);
  }, 120_000);

  it("serves an unrelated folder's TypeScript handler over stdio", async () => {
    const dir = projectWithHandler();
    const transport = new StdioClientTransport({
      command: join(prefix, 'bin/switchboard'),
      args: ['serve'],
      cwd: dir,
      env: childEnv(dir),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => {
      stderr += d;
    });
    const client = new Client({ name: 'install-e2e', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.version).toBe(VERSION);
      const result = await client.callTool({ name: 'demo__greet', arguments: { name: 'stdio' } });
      expect(result.structuredContent, stderr).toEqual({ greeting: 'Hello, stdio!' });
    } finally {
      await client.close();
    }
  });

  it("serves an unrelated folder's TypeScript handler over HTTP (MCP and REST)", async () => {
    const dir = projectWithHandler();
    const child = spawn(join(prefix, 'bin/switchboard'), ['serve', '--http', '--port', '0'], {
      cwd: dir,
      env: childEnv(dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const base = await watchServer(child, 30_000).ready;
      const client = new Client({ name: 'install-e2e', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
      try {
        const result = await client.callTool({ name: 'demo__greet', arguments: { name: 'MCP' } });
        expect(result.structuredContent).toEqual({ greeting: 'Hello, MCP!' });
      } finally {
        await client.close();
      }
      const rest = await fetch(`${base}/v1/tools/demo__greet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'REST' }),
      });
      expect(rest.status).toBe(200);
      expect(JSON.stringify(await rest.json())).toContain('Hello, REST!');
    } finally {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
  });
});

describe('the packed package, installed as a devDependency', () => {
  it(
    'runs through npx by its command and by its package name, with handlers importing the local install',
    async () => {
      const dir = app; // installed into by beforeAll, beside the global install
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      expect(Object.keys(pkg.devDependencies)).toEqual(['switchboard-mcp']);
      const env = childEnv(dir);
      for (const command of ['switchboard', 'switchboard-mcp'])
        expect((await run('npx', ['--offline', command, '--version'], { cwd: dir, env })).stdout.trim()).toBe(VERSION);
      const call = await run('npx', ['--offline', 'switchboard', 'tools', 'call', 'demo.greet', 'name=npx'], {
        cwd: dir,
        env,
      });
      expect(JSON.parse(call.stdout)).toEqual({ greeting: 'Hello, npx!' });
    },
    INSTALL_TIMEOUT_MS,
  );
});
