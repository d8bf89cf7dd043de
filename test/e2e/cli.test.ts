import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type HttpServerProcess, runCli, startHttpServer, tempProject } from '../helpers/cli.ts';

const run = (dir: string, args: string[]) => runCli(dir, args);

describe('switchboard CLI', () => {
  const dir = tempProject();

  it('prints its version', async () => {
    const { code, stdout } = await run(dir, ['--version']);
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('lists tools in-process, as a table and as JSON', async () => {
    const table = await run(dir, ['tools', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('task__create');
    const json = await run(dir, ['tools', 'list', '--json']);
    const tools = JSON.parse(json.stdout);
    expect(tools.map((t: { name: string }) => t.name)).toContain('system__health');
  });

  it('calls a tool with key=value pairs and with --input, persisting to the project store', async () => {
    const created = await run(dir, ['tools', 'call', 'task.create', 'text=from the cli', 'priority=90']);
    expect(created.code).toBe(0);
    const task = JSON.parse(created.stdout);
    expect(task).toMatchObject({ text: 'from the cli', priority: 90, status: 'pending' });
    const got = await run(dir, ['tools', 'call', 'task__get', '--input', JSON.stringify({ id: task.id })]);
    expect(JSON.parse(got.stdout).id).toBe(task.id);
  });

  it('fails with a clear message and a non-zero exit code on bad input', async () => {
    const invalid = await run(dir, ['tools', 'call', 'task.create', 'text=']);
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toMatch(/text/);
    const badJson = await run(dir, ['tools', 'call', 'task.create', '--input', '{nope']);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/--input is not valid JSON/);
    const unknown = await run(dir, ['tools', 'call', 'nope.missing']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Unknown tool 'nope.missing'/);
    const badCommand = await run(dir, ['frobnicate']);
    expect(badCommand.code).toBe(2);
    expect(badCommand.stderr).toMatch(/unknown command/);
    const badPort = await run(dir, ['serve', '--http', '--port', '99999']);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/--port must be an integer from 0 to 65535, got '99999'/);
    const badHandlers = await run(dir, ['serve', '--handlers', join(dir, 'no-such-folder')]);
    expect(badHandlers.code).toBe(2);
    expect(badHandlers.stderr).toMatch(/no-such-folder: no such folder/);
  });

  it("loads a TypeScript handler importing 'switchboard' in a project with no package.json or install", async () => {
    const project = tempProject();
    mkdirSync(join(project, '.switchboard/handlers'), { recursive: true });
    writeFileSync(
      join(project, '.switchboard/handlers/shout.ts'),
      `import { defineCapability, z } from 'switchboard';
       export const shout = defineCapability({ name: 'demo.shout', description: 'Upper-case the text.',
         input: z.object({ text: z.string() }), handle: ({ text }: { text: string }) => ({ text: text.toUpperCase() }) });`,
    );
    const { code, stdout, stderr } = await run(project, ['tools', 'call', 'demo.shout', 'text=hey']);
    // Only the line naming the project (it is not the current directory): no warning, no error.
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^switchboard: acting on project /)]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ text: 'HEY' });
  });

  it('refuses to bind a non-loopback address', async () => {
    const { code, stderr } = await run(dir, ['serve', '--http', '--host', '0.0.0.0', '--port', '0']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/Refusing to bind 0\.0\.0\.0/);
  });

  it('names the file and line of a TOML syntax error', async () => {
    const bad = tempProject();
    mkdirSync(join(bad, '.switchboard'));
    writeFileSync(join(bad, '.switchboard/config.toml'), '[server]\nport = 7777\nhost = \n');
    const { code, stderr } = await run(bad, ['tools', 'list']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('.switchboard/config.toml:3');
  });

  it('names an unknown config key', async () => {
    const bad = tempProject();
    mkdirSync(join(bad, '.switchboard'));
    writeFileSync(join(bad, '.switchboard/config.toml'), '[server]\nprot = 7777\n');
    const { code, stderr } = await run(bad, ['tools', 'list']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/unknown key 'server\.prot'/);
  });
});

describe('switchboard CLI against a running server', () => {
  let server: HttpServerProcess;
  const dir = tempProject();
  beforeAll(async () => {
    server = await startHttpServer(dir);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('lists and calls tools with --url', async () => {
    const list = await run(dir, ['tools', 'list', '--json', '--url', server.url]);
    expect(JSON.parse(list.stdout).map((t: { name: string }) => t.name)).toContain('fixture__echo');
    const echo = await run(dir, ['tools', 'call', 'fixture__echo', 'text=remote', '--url', server.url]);
    expect(JSON.parse(echo.stdout)).toEqual({ text: 'remote' });
  });

  it('tails events live', async () => {
    let done = false;
    const tail = run(dir, ['events', 'tail', '--url', server.url, '--json', '--limit', '1']).finally(() => {
      done = true;
    });
    // Call until the tail has seen one: it only shows events published after it connected, and a loaded
    // machine can take a while to start it.
    for (let i = 0; i < 100 && !done; i++) {
      await fetch(`${server.url}/v1/tools/fixture__echo`, { method: 'POST', body: JSON.stringify({ text: 'tailed' }) });
      await new Promise((r) => setTimeout(r, 200));
    }
    const { code, stdout } = await tail;
    expect(code).toBe(0);
    expect(JSON.parse(stdout.trim())).toMatchObject({ type: 'call', name: 'fixture.echo' });
  });

  it('counts in its banner the tools and resources a client lists', async () => {
    const counts = /(\d+) tools, (\d+) resources/.exec(server.stdout());
    const client = new Client({ name: 'banner-count', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    try {
      const tools = (await client.listTools()).tools.length;
      const resources = (await client.listResources()).resources.length;
      expect(counts?.slice(1).map(Number)).toEqual([tools, resources]);
    } finally {
      await client.close();
    }
  });

  it('prints the connect lines for Claude Code, Codex and the Inspector', () => {
    const banner = server.stdout();
    expect(banner).toContain('claude mcp add --transport http switchboard');
    // This install's own command, which starts without npx or the registry.
    expect(banner).toContain(`claude mcp add switchboard -- ${BIN} serve`);
    expect(banner).toContain(`codex mcp add switchboard -- ${BIN} serve`);
    expect(banner).toMatch(/codex mcp add switchboard/);
    expect(banner).toMatch(/inspector/);
  });
});
