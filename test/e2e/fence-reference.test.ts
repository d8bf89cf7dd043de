// End-to-end (issue 32 §1): the default fence lets the common servers work. The reference `filesystem`, `memory`
// and `everything` servers, started with `npx -y` from the npm registry on their first run (a fresh HOME: nothing
// cached), answer their tools through a real `switchboard serve` while fenced — npx downloads into the server's own
// HOME inside the fence.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { stringify } from 'smol-toml';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startHttpServer } from '../helpers/cli.ts';
import { until } from '../helpers/until.ts';

/** The versions tested (pinned: a test of the fence, not of whatever the registry serves today). */
const VERSION = '2026.8.31';
const npx = (pkg: string, ...args: string[]) => ({
  command: 'npx',
  args: ['-y', `@modelcontextprotocol/${pkg}@${VERSION}`, ...args],
  // The first run downloads the package.
  startup_timeout_ms: 180_000,
});

const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

const text = (r: unknown) =>
  ((r as { content: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('\n');

describe('the reference servers inside the default fence', () => {
  it('filesystem, memory and everything, each started by npx on its first run, answer their tools', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sb-fence-ref-'));
    const home = join(root, 'home');
    const project = join(home, 'app');
    mkdirSync(join(project, '.switchboard'), { recursive: true });
    writeFileSync(join(project, 'hello.txt'), 'hello from the project');
    writeFileSync(
      join(project, '.switchboard', 'config.toml'),
      stringify({
        servers: [
          { name: 'files', ...npx('server-filesystem', project) },
          { name: 'memory', ...npx('server-memory') },
          { name: 'everything', ...npx('server-everything', 'stdio') },
        ],
      }),
    );
    const server = await startHttpServer(project, [], { HOME: home }, { handlers: [] });
    closers.push(() => server.stop());
    const client = new Client({ name: 'fence-ref', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    closers.push(() => client.close());
    await until(
      async () => {
        const names = (await client.listTools()).tools.map((t) => t.name);
        return ['files__read_text_file', 'memory__create_entities', 'everything__echo'].every((n) => names.includes(n));
      },
      { timeoutMs: 240_000, everyMs: 500, what: 'the three reference servers to list their tools' },
    );

    const read = await client.callTool({
      name: 'files__read_text_file',
      arguments: { path: join(project, 'hello.txt') },
    });
    expect(text(read)).toContain('hello from the project');
    const made = await client.callTool({
      name: 'memory__create_entities',
      arguments: { entities: [{ name: 'fence', entityType: 'test', observations: ['built by bubblewrap'] }] },
    });
    expect(made.isError).not.toBe(true);
    const graph = await client.callTool({ name: 'memory__read_graph', arguments: {} });
    expect(text(graph)).toContain('built by bubblewrap');
    const echo = await client.callTool({ name: 'everything__echo', arguments: { message: 'inside the fence' } });
    expect(text(echo)).toContain('inside the fence');

    const status = await runCli(project, ['mcp', 'list', '--status', '--json'], {
      env: { HOME: home },
      timeoutMs: 240_000,
    });
    const rows = JSON.parse(status.stdout).servers as Array<{ name: string; sandbox?: string }>;
    expect(rows.map((r) => [r.name, r.sandbox])).toEqual([
      ['files', 'fenced'],
      ['memory', 'fenced'],
      ['everything', 'fenced'],
    ]);
  }, 600_000);
});
