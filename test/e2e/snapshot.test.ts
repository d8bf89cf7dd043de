// End-to-end: the `switchboard` command starts `serve` from the V8 startup snapshot in the user's cache (built once
// for the run by test/global-snapshot.ts, as the first `serve` builds it for a user), falls back to the ESM bundle when
// the blob is missing, belongs to another Node or is older than the install, and builds a missing one in the
// background for the next start. test/e2e/mcp-stdio.test.ts runs the protocol suite through the command as well.
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { BIN, childEnv, FIXTURE_HANDLERS, ROOT, startHttpServer, tempProject } from '../helpers/cli.ts';
import { rpc2026 } from '../helpers/rpc2026.ts';
import { until } from '../helpers/until.ts';

/** Connect an SDK client to `serve` started by running `bin` as a command; returns the client, pid and stderr. */
async function serveThrough(bin: string, dir: string, handlers: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: bin,
    args: ['--cwd', dir, 'serve', ...handlers.flatMap((h) => ['--handlers', h])],
    env: childEnv(dir, env),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  const client = new Client({ name: 'snapshot-e2e', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid as number;
  return { client, stderr: () => stderr, cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0') };
}

/** The blob of the install whose dist folder is `dist`, in this run's cache (src/cli/snapshot-cache.ts). */
function blobOf(dist: string, cache = process.env.SWITCHBOARD_CACHE_DIR as string): string {
  return join(cache, `${dist.split('/').join('_')}.blob`);
}

/**
 * A copy of the package (its launcher, package.json and built files; its dependencies linked) with a cache of its
 * own: no blob, a blob recorded as another Node's, or one older than the install's snapshot.cjs. The launcher must
 * then start the ESM bundle. Copies, not links: Node resolves a linked module to its real path, which would be this
 * checkout's. Returns the launcher and the environment that points at that cache.
 */
function packageCopy(blob: 'missing' | 'other-node' | 'stale'): { bin: string; env: Record<string, string> } {
  const root = tempProject();
  const cache = join(root, 'cache');
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'dist'));
  mkdirSync(cache);
  copyFileSync(BIN, join(root, 'bin/switchboard.js'));
  copyFileSync(join(ROOT, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  for (const f of readdirSync(join(ROOT, 'dist')))
    if (!f.endsWith('.map')) cpSync(join(ROOT, 'dist', f), join(root, 'dist', f), { recursive: true });
  const own = blobOf(join(root, 'dist'), cache);
  if (blob !== 'missing') {
    copyFileSync(blobOf(join(ROOT, 'dist')), own);
    writeFileSync(`${own}.node`, blob === 'other-node' ? '/opt/another/node\n' : `${process.execPath}\n`);
  }
  if (blob === 'stale') utimesSync(own, new Date(0), new Date(0));
  return { bin: join(root, 'bin/switchboard.js'), env: { SWITCHBOARD_CACHE_DIR: cache } };
}

/** A plain ES module handler that imports 'switchboard' (the package entry, dist/index.js) like a user's would. */
function esmHandlers(): string {
  const dir = join(tempProject(), 'handlers');
  mkdirSync(dir);
  writeFileSync(
    join(dir, 'shout.mjs'),
    `import { defineCapability, SwitchboardError, z } from 'switchboard';
export const shout = defineCapability({
  name: 'esm.shout',
  description: 'Upper-case the text; refuses "boom" with a SwitchboardError.',
  input: z.object({ text: z.string().min(1) }),
  output: z.object({ text: z.string() }),
  handle: ({ text }) => {
    if (text === 'boom') throw new SwitchboardError('CONFLICT', 'boom is refused');
    return { text: text.toUpperCase() };
  },
});
`,
  );
  return dir;
}

const PACKAGE_VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;

describe('the switchboard command', () => {
  it('starts serve from the startup snapshot, with TypeScript and ES module handlers sharing its Zod and errors', async () => {
    const dir = tempProject();
    const { client, stderr, cmdline } = await serveThrough(BIN, dir, [FIXTURE_HANDLERS, esmHandlers()]);
    try {
      expect(cmdline).toContain('--snapshot-blob');
      expect(cmdline).toContain(blobOf(join(ROOT, 'dist')));
      // The version is package.json's (the build writes it into the snapshot, which has no package.json to read).
      expect(client.getServerVersion()?.version).toBe(PACKAGE_VERSION);
      const ts = await client.callTool({ name: 'fixture__echo', arguments: { text: 'from tsx' } });
      expect(ts.structuredContent).toEqual({ text: 'from tsx' });
      const esm = await client.callTool({ name: 'esm__shout', arguments: { text: 'hi' } });
      expect(esm.structuredContent).toEqual({ text: 'HI' });
      // The handler's schema and error class are the running hub's: validation names the field, and the error
      // keeps its code (a copy of the classes from another bundle would be an internal error).
      const invalid = await client.callTool({ name: 'esm__shout', arguments: { text: '' } });
      expect(invalid.isError).toBe(true);
      expect((invalid.content as { text: string }[])[0].text).toMatch(/text/);
      const refused = await client.callTool({ name: 'esm__shout', arguments: { text: 'boom' } });
      expect(refused.isError).toBe(true);
      expect(refused._meta).toMatchObject({ 'switchboard/error': { code: 'CONFLICT' } });
      // The store (better-sqlite3, loaded after the snapshot is deserialised) works.
      const task = await client.callTool({ name: 'task__create', arguments: { text: 'from the snapshot' } });
      expect(task.structuredContent).toMatchObject({ status: 'pending', text: 'from the snapshot' });
      const listed = await client.callTool({ name: 'task__list', arguments: {} });
      expect(JSON.stringify(listed.structuredContent)).toContain('from the snapshot');
    } finally {
      await client.close();
    }
    expect(stderr()).toMatch(/broken on purpose/);
    expect(stderr()).not.toMatch(/Warning/);
  });

  it('serves 2026-07-28 requests over HTTP from the snapshot, which leaves their wire schemas to the first one', async () => {
    const dir = tempProject();
    const server = await startHttpServer(dir, [], {}, { asCommand: true });
    try {
      expect(readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0')).toContain('--snapshot-blob');
      const listed = await rpc2026(server.url, 'tools/list');
      expect(listed.status).toBe(200);
      expect(listed.message.result.tools.map((t: { name: string }) => t.name)).toContain('fixture__echo');
      const called = await rpc2026(server.url, 'tools/call', { name: 'fixture__echo', arguments: { text: '2026' } });
      expect(called.message.result.structuredContent).toEqual({ text: '2026' });
      // A malformed 2026 request is refused by those schemas, with the field named.
      const bad = await rpc2026(server.url, 'tools/call', { name: 42 });
      expect(bad.message.error.code).toBe(-32602);
    } finally {
      await server.stop();
    }
  });

  it.each(['missing', 'other-node', 'stale'] as const)(
    'starts from the ESM bundle when the blob is %s',
    async (blob) => {
      const dir = tempProject();
      const copy = packageCopy(blob);
      const { client, cmdline } = await serveThrough(copy.bin, dir, [FIXTURE_HANDLERS], copy.env);
      try {
        expect(cmdline).not.toContain('--snapshot-blob');
        const ts = await client.callTool({ name: 'fixture__echo', arguments: { text: 'fallback' } });
        expect(ts.structuredContent).toEqual({ text: 'fallback' });
      } finally {
        await client.close();
      }
    },
  );

  it('builds a missing snapshot in the background on a first start, and the next start uses it', async () => {
    const dir = tempProject();
    const copy = packageCopy('missing');
    const env = copy.env;
    const blob = blobOf(join(copy.bin, '../../dist'), env.SWITCHBOARD_CACHE_DIR);
    const first = await serveThrough(copy.bin, dir, [], env);
    try {
      expect(first.cmdline).not.toContain('--snapshot-blob');
      // The build runs detached from the server; its blob and the record of its node appear by rename, whole.
      await until(() => existsSync(`${blob}.node`), { timeoutMs: 60_000, what: `the snapshot ${blob}` });
      expect(readFileSync(`${blob}.node`, 'utf8').trim()).toBe(process.execPath);
      // The build lets go of its lock last, a moment after the record of its node lands; then nothing is left over.
      const leftOver = () =>
        readdirSync(env.SWITCHBOARD_CACHE_DIR).filter((f) => f.endsWith('.tmp') || f.endsWith('.lock'));
      await until(() => leftOver().length === 0, { timeoutMs: 10_000, what: `the build to finish: ${leftOver()}` });
    } finally {
      await first.client.close();
    }
    const second = await serveThrough(copy.bin, dir, [], env);
    try {
      expect(second.cmdline).toContain('--snapshot-blob');
      expect(second.cmdline).toContain(blob);
      expect(second.client.getServerVersion()?.version).toBe(PACKAGE_VERSION);
    } finally {
      await second.client.close();
    }
  });
});
