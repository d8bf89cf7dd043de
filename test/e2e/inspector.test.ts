// End-to-end: the official MCP Inspector CLI (a third-party client) lists and calls tools on `serve --http`.
// It needs Node >= 22.19, so npx brings Node 22 for it alone; nothing is added to package.json.
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServerProcess, startHttpServer, tempProject } from '../helpers/cli.ts';

const exec = promisify(execFile);
let server: HttpServerProcess;

beforeAll(async () => {
  server = await startHttpServer(tempProject());
});
afterAll(async () => {
  await server?.stop();
});

async function inspector(args: string[]): Promise<any> {
  const { stdout } = await exec(
    'npx',
    [
      '-y',
      '-p',
      'node@22',
      '-p',
      '@modelcontextprotocol/inspector@2.12.0',
      'mcp-inspector',
      '--cli',
      `${server.url}/mcp`,
      '--transport',
      'http',
      ...args,
    ],
    { cwd: tmpdir(), timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(stdout.slice(stdout.indexOf('{')));
}

describe('MCP Inspector CLI', () => {
  it('lists the tools and calls one', { timeout: 300_000 }, async () => {
    const list = await inspector(['--method', 'tools/list']);
    expect(list.tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['task__create', 'fixture__echo']),
    );
    const call = await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'fixture__echo',
      '--tool-arg',
      'text=from inspector',
    ]);
    expect(call.structuredContent).toEqual({ text: 'from inspector' });
  });
});
