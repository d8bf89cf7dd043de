// The bare SDK echo server (bench/bare-sdk-server.mjs, stdio) as one esbuild CJS bundle and as a V8 startup snapshot
// of that bundle: the fastest start the SDK alone can have, so the benchmarks can show how much of a start is the SDK's
// and how much Switchboard's (bench/snapshot-probe.mjs, bench/cold-start.mjs, bench/initialize.mjs).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT } from './servers.mjs';

// The same server as bench/bare-sdk-server.mjs (stdio), in a form the snapshot builder accepts: while building
// the snapshot it constructs one server (warming Zod and the SDK) and defers serving to the deserialised main.
const ENTRY = `
import v8 from 'node:v8';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';
const input = z.object({ text: z.string() });
const output = z.object({ text: z.string() });
function buildServer() {
  const server = new McpServer({ name: 'bare-sdk-echo', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', { inputSchema: input, outputSchema: output }, async ({ text }) => ({
    content: [{ type: 'text', text: JSON.stringify({ text }) }],
    structuredContent: { text },
  }));
  return server;
}
if (v8.startupSnapshot?.isBuildingSnapshot()) {
  buildServer();
  v8.startupSnapshot.setDeserializeMainFunction(() => serveStdio(() => buildServer()));
} else serveStdio(() => buildServer());
`;

/** Build both into a temp folder: `{ bundle, blob, remove() }`; start the snapshot as `node --snapshot-blob <blob>`. */
export async function buildSdkSnapshot() {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-snapshot-'));
  writeFileSync(join(dir, 'entry.mjs'), ENTRY);
  await build({
    entryPoints: [join(dir, 'entry.mjs')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: join(dir, 'bundle.cjs'),
    nodePaths: [join(ROOT, 'node_modules')],
    logLevel: 'warning',
  });
  execFileSync(
    process.execPath,
    ['--snapshot-blob', join(dir, 'snap.blob'), '--build-snapshot', join(dir, 'bundle.cjs')],
    {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 60_000,
    },
  );
  return {
    bundle: join(dir, 'bundle.cjs'),
    blob: join(dir, 'snap.blob'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
