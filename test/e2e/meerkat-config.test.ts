// serve and the mcp commands check the configuration the same way: a config written with Meerkat's server keys
// (`transport = "streamable-http"`, `connect_timeout_secs`) serves real upstream servers and is listed; one with a
// key Switchboard cannot use is refused by serve and by every mcp command with the same message. And a project's own
// `.rkat/mcp.toml` (ours, in Meerkat's format) is served as it is, followed while serve runs; one that does not parse
// is refused by serve and mcp list alike.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, runCli, tempProject } from '../helpers/cli.ts';
import { FIXTURE, fixtureHttp, waitFor } from '../sources/upstream/helpers.ts';

const cleanup: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanup) c();
});

/** A project whose config.toml is written the way a Meerkat user writes `.rkat/mcp.toml`. */
function projectWith(toml: string): string {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(join(dir, '.switchboard/config.toml'), toml);
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
};

const meerkatServers = (url: string) =>
  `[[servers]]\nname = "local"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE)}]\nenv = { FIXTURE_NAME = "local" }\nconnect_timeout_secs = 20\n\n` +
  `[[servers]]\nname = "remote"\nurl = "${url}"\ntransport = "streamable-http"\nconnect_timeout_secs = 20\n`;

describe('serve and mcp agree on a configuration with Meerkat keys', () => {
  it('a good file: mcp list shows both servers, serve proxies both', async () => {
    const http = await fixtureHttp({ FIXTURE_NAME: 'remote' });
    cleanup.push(() => http.child.kill());
    const dir = projectWith(meerkatServers(http.url));

    const list = await runCli(dir, ['mcp', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(
      JSON.parse(list.stdout).servers.map((s: { name: string; transport: string }) => [s.name, s.transport]),
    ).toEqual([
      ['local', 'stdio'],
      ['remote', 'http'],
    ]);

    const client = new Client({ name: 'e2e-meerkat', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [BIN, '--cwd', dir, 'serve'], env: childEnv(dir) }),
    );
    try {
      const tools = await waitFor(
        async () => {
          const names = (await client.listTools()).tools.map((t) => t.name);
          return names.includes('local__echo') && names.includes('remote__echo') ? names : undefined;
        },
        20_000,
        'both servers connected',
      );
      expect(tools).toEqual(expect.arrayContaining(['local__echo', 'remote__echo']));
      const echoed = await client.callTool({ name: 'remote__echo', arguments: { text: 'over streamable-http' } });
      expect(JSON.stringify(echoed.content)).toContain('over streamable-http');
    } finally {
      await client.close();
    }
  });

  it('a bad file: serve and every mcp command refuse it with the same message naming file and key', async () => {
    const dir = projectWith(
      `${meerkatServers('http://127.0.0.1:9/mcp')}\n[[servers]]\nname = "oauth"\nurl = "https://h/mcp"\noauth_scope = "read"\n`,
    );
    const message = `Invalid configuration (${join(dir, '.switchboard/config.toml')}): servers.oauth: unknown key 'servers.oauth.oauth_scope'`;

    const serve = await runCli(dir, ['serve'], {
      input: `${JSON.stringify(initialize)}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })}\n`,
      keepStdinOpen: true,
      // It answers every request with the failure until its client leaves: leave once tools/list is answered.
      endStdinWhen: (out) => out.includes('"id":2'),
    });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain(message);
    expect(serve.stdout).toContain(JSON.stringify(message).slice(1, -1));

    for (const args of [
      ['mcp', 'list'],
      ['mcp', 'list', '--status'],
      ['mcp', 'get', 'local'],
      ['mcp', 'add', 'more', '--', 'node', 'x.js'],
    ]) {
      const run = await runCli(dir, args);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toContain(message);
    }
    // Removing the entry is how the file is fixed; after it the same file serves.
    const removed = await runCli(dir, ['mcp', 'remove', 'oauth']);
    expect(removed.code).toBe(0);
    expect((await runCli(dir, ['mcp', 'list', '--json'])).code).toBe(0);
  });
});

/** A stdio server of the fixture, as a Meerkat `[[servers]]` table. */
const rkatServer = (name: string) =>
  `[[servers]]\nname = "${name}"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(FIXTURE)}]\nenv = { FIXTURE_NAME = "${name}" }\nconnect_timeout_secs = 20\n\n`;

describe("a project's .rkat/mcp.toml is served live", () => {
  it('its servers are served beside the config files; an edit applies while serve runs; config.toml wins on a name', async () => {
    const dir = projectWith(rkatServer('dup').replace('FIXTURE_NAME = "dup"', 'FIXTURE_NAME = "from-config"'));
    mkdirSync(join(dir, '.rkat'));
    writeFileSync(join(dir, '.rkat/mcp.toml'), rkatServer('meerkat-one') + rkatServer('dup'));

    const list = await runCli(dir, ['mcp', 'list', '--json']);
    expect(list.code).toBe(0);
    expect(
      JSON.parse(list.stdout).servers.map((s: { name: string; scope: string; shadowedBy?: string }) => [
        s.name,
        s.scope,
        s.shadowedBy,
      ]),
    ).toEqual([
      ['dup', 'project', undefined],
      ['meerkat-one', 'meerkat', undefined],
      ['dup', 'meerkat', 'config'],
    ]);

    const client = new Client({ name: 'e2e-rkat', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '--cwd', dir, 'serve'],
      env: childEnv(dir),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d) => {
      stderr += String(d);
    });
    await client.connect(transport);
    try {
      const names = async () => (await client.listTools()).tools.map((t) => t.name);
      await waitFor(async () => (await names()).includes('meerkat-one__echo'), 20_000, 'the .rkat server connected');
      // The config file's `dup` is the one served (its fixture says its own name).
      const dup = await client.callTool({ name: 'dup__env', arguments: {} });
      expect(dup.structuredContent).toMatchObject({ FIXTURE_NAME: 'from-config' });
      // An edit adds a server and drops one, without a restart.
      writeFileSync(join(dir, '.rkat/mcp.toml'), rkatServer('meerkat-two'));
      const after = await waitFor(
        async () => {
          const now = await names();
          return now.includes('meerkat-two__echo') && !now.includes('meerkat-one__echo') ? now : undefined;
        },
        20_000,
        'the edit applied',
      );
      expect(after).toEqual(expect.arrayContaining(['dup__echo', 'meerkat-two__echo']));
      // An edit that does not parse changes nothing: the servers it had stay.
      writeFileSync(join(dir, '.rkat/mcp.toml'), '[[servers]\nname = "broken"\n');
      await waitFor(() => stderr.includes('Meerkat server file edit ignored: it is invalid'), 20_000, 'the edit read');
      expect(stderr).toContain(`${join(dir, '.rkat/mcp.toml')}:1:`);
      const shown = await client.callTool({ name: 'meerkat-two__echo', arguments: { text: 'still here' } });
      expect(JSON.stringify(shown.content)).toContain('still here');
    } finally {
      await client.close();
    }
  });

  it('a file that does not parse, or a server Switchboard cannot serve, is refused by serve and mcp list', async () => {
    const dir = projectWith('');
    mkdirSync(join(dir, '.rkat'));
    const file = join(dir, '.rkat/mcp.toml');
    writeFileSync(file, `${rkatServer('ok')}[[servers]\nname = "broken"\n`);
    const list = await runCli(dir, ['mcp', 'list']);
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(new RegExp(`${file.replaceAll('/', '\\/')}:\\d+:\\d+: `));
    const serve = await runCli(dir, ['serve'], {
      input: `${JSON.stringify(initialize)}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })}\n`,
      keepStdinOpen: true,
      endStdinWhen: (out) => out.includes('"id":2'),
    });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toContain(file);

    writeFileSync(
      file,
      `${rkatServer('ok')}[[servers]]\nname = "signed-in"\nurl = "https://h/mcp"\noauth_scope = "read"\n`,
    );
    const bad = await runCli(dir, ['mcp', 'list']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      `Invalid Meerkat server file (${file}): servers.signed-in: unknown key 'oauth_scope' (a server takes`,
    );
  });
});
