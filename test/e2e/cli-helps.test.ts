// End-to-end: the CLI helps a person — plain output when piped, --json wherever a table is printed, which
// project and store a command acts on, what to do when a server cannot be reached or refuses the token, and the
// nearest names for an unknown tool (in-process, over MCP and over REST).
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, childEnv, type HttpServerProcess, runCli, startHttpServer, tempProject } from '../helpers/cli.ts';
import { freePort } from '../helpers/redis.ts';

const ESC = '\x1b[';

/** Run the CLI from inside `cwd` (no --cwd), as a person in that folder does. */
async function runIn(cwd: string, args: string[]) {
  const r = await promisify(execFile)(process.execPath, [BIN, ...args], { cwd, env: childEnv(cwd) });
  return { stdout: r.stdout, stderr: r.stderr };
}

describe('output for programs and for people', () => {
  const dir = tempProject();
  beforeAll(async () => {
    await runCli(dir, ['mcp', 'add', 'docs', '--', 'node', 'server.js']);
    await runCli(dir, ['token', 'create', 'ci', '--roles', 'agent']);
    await runCli(dir, ['tools', 'call', 'task.create', 'text=one']);
  });

  it('prints no colour codes when the output is not a terminal, even under CI=true', async () => {
    for (const args of [['mcp', 'list'], ['tools', 'list'], ['token', 'list'], ['audit']]) {
      const r = await runCli(dir, args, { env: { NO_COLOR: '', CI: 'true' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.length).toBeGreaterThan(0);
      expect(r.stdout, args.join(' ')).not.toContain(ESC);
      expect(r.stderr, args.join(' ')).not.toContain(ESC);
    }
  });

  it('colours with FORCE_COLOR, and NO_COLOR wins over it', async () => {
    const forced = await runCli(dir, ['mcp', 'list'], { env: { NO_COLOR: '', FORCE_COLOR: '1' } });
    expect(forced.stdout).toContain(ESC);
    const both = await runCli(dir, ['mcp', 'list'], { env: { NO_COLOR: '1', FORCE_COLOR: '1' } });
    expect(both.stdout).not.toContain(ESC);
  });

  it('prints JSON with --json for every command that prints a table', async () => {
    const json = async (args: string[]) => {
      const r = await runCli(dir, [...args, '--json']);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      return JSON.parse(r.stdout);
    };
    expect((await json(['mcp', 'list'])).servers[0]).toMatchObject({ name: 'docs', transport: 'stdio' });
    expect((await json(['token', 'list']))[0]).toMatchObject({ name: 'ci', roles: ['agent'] });
    expect((await json(['audit']))[0]).toMatchObject({ capability: 'task.create', outcome: 'ok' });
    expect((await json(['tools', 'list'])).map((t: { name: string }) => t.name)).toContain('task__create');
    expect(await json(['agents', 'list'])).toMatchObject({ total: 0, agents: [], broken: [] });
    expect(await json(['sessions', 'list'])).toEqual({ total: 0, sessions: [] });
  });
});

describe('which project a command acts on', () => {
  it('names the project and its store when --cwd points elsewhere', async () => {
    const project = tempProject();
    mkdirSync(join(project, '.switchboard'));
    const elsewhere = tempProject();
    const r = await runIn(elsewhere, ['--cwd', project, 'token', 'list']);
    expect(r.stderr).toContain(`switchboard: acting on project ${project}`);
    expect(r.stderr).toContain(`store ${join(project, '.switchboard/state.db')}`);
    expect(r.stderr).not.toContain('no .switchboard/ here yet');
  });

  it('says nothing in the project folder itself, and warns in a folder that is no project yet', async () => {
    const project = tempProject();
    mkdirSync(join(project, '.switchboard'));
    expect((await runIn(project, ['token', 'list'])).stderr).toBe('');
    const bare = tempProject();
    const r = await runIn(bare, ['audit']);
    expect(r.stderr).toContain(`acting on project ${bare}`);
    expect(r.stderr).toContain('no .switchboard/ here yet');
    expect(r.stderr).toContain('pass --cwd DIR');
  });
});

describe('talking to a server', () => {
  let server: HttpServerProcess;
  let token: string;
  const dir = tempProject();
  beforeAll(async () => {
    token = JSON.parse((await runCli(dir, ['token', 'create', 'bot', '--roles', 'agent', '--json'])).stdout).token;
    server = await startHttpServer(dir);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('says a server that is not there cannot be reached, and how to start one', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    for (const args of [
      ['tools', 'list', '--url', url],
      ['stats', '--url', url],
      ['events', 'tail', '--url', url],
    ]) {
      const r = await runCli(dir, args);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        `switchboard: cannot reach ${url} (ECONNREFUSED) — is \`switchboard serve --http\` running there?`,
      );
    }
  });

  it('says a token is needed, or was rejected, and how to pass one', async () => {
    const missing = await runCli(dir, ['tools', 'list', '--url', server.url]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(
      `${server.url} requires a token: pass one with --token TOKEN or the SWITCHBOARD_TOKEN`,
    );
    for (const args of [
      ['tools', 'list', '--url', server.url, '--token', 'sb_wrong'],
      ['events', 'tail', '--url', server.url, '--token', 'sb_wrong'],
    ]) {
      const rejected = await runCli(dir, args);
      expect(rejected.code).toBe(1);
      expect(rejected.stderr).toContain(`${server.url} rejected the token`);
      expect(rejected.stderr).toContain('Pass a valid one with --token TOKEN or the SWITCHBOARD_TOKEN');
    }
    const fromEnv = await runCli(dir, ['tools', 'list', '--url', server.url, '--json'], {
      env: { SWITCHBOARD_TOKEN: token },
    });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
  });

  it('answers an unknown tool with the nearest names the caller may use, over MCP and REST', async () => {
    const mcp = await runCli(dir, ['tools', 'call', 'task__craete', 'text=x', '--url', server.url, '--token', token]);
    expect(mcp.code).toBe(1);
    expect(mcp.stderr).toContain("Unknown tool 'task__craete'. Did you mean 'task__create'?");
    const rest = await fetch(`${server.url}/v1/tools/tasks__lst`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: '{}',
    });
    expect(rest.status).toBe(404);
    expect((await rest.json()).error.message).toMatch(/^Unknown tool 'tasks__lst'\. Did you mean 'task__list'/);
    // An admin-only tool is not suggested to an agent: that would tell it the tool exists.
    const hidden = await fetch(`${server.url}/v1/tools/system__confg`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: '{}',
    });
    expect((await hidden.json()).error.message).not.toContain('system__config');
  });

  it('answers an unknown tool in-process with the nearest capability names', async () => {
    const r = await runCli(tempProject(), ['tools', 'call', 'tasks.craete', 'text=x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Unknown tool 'tasks.craete'. Did you mean 'task.create'?");
  });
});
