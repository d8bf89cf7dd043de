// Profiles over real transports: a `switchboard serve --http` child and the official SDK client in both HTTP eras at
// /mcp/NAME, REST with the Switchboard-Profile header, tokens bound to a profile (no widening), `serve --profile`
// and SWITCHBOARD_PROFILE over stdio, and what `install --profile` writes, started as the agent would start it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { parse } from 'smol-toml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answersById,
  BIN,
  childEnv,
  createToken,
  FIXTURE_HANDLERS,
  type HttpServerProcess,
  INITIALIZE_2025,
  runCli,
  startHttpServer,
  tempProject,
} from '../helpers/cli.ts';

const CONFIG = `
[profiles.reviewer]
allow = ["fixture.echo", "task.list", "task.get"]

[profiles.board]
allow = ["task.*"]
deny = ["task.delete"]
exposure = "search"
pin = ["task.list"]
`;
const REVIEWER = ['fixture__echo', 'task__get', 'task__list'];
// The board profile's `exposure = "search"`: its pinned tool and the catalog's four tools are what it lists.
const BOARD_LISTED = ['catalog__call', 'catalog__describe', 'catalog__run', 'catalog__search', 'task__list'];

function project(): string {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(join(dir, '.switchboard/config.toml'), CONFIG);
  return dir;
}

const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
const text = (result: { content?: unknown }) => (result.content as { text: string }[])[0].text;

describe('profiles over HTTP', () => {
  const dir = project();
  let server: HttpServerProcess;
  let free: string;
  let bound: string;
  beforeAll(async () => {
    free = await createToken(dir, 'free', 'agent');
    bound = await createToken(dir, 'review-bot', 'agent', ['--profile', 'reviewer']);
    server = await startHttpServer(dir);
  });
  afterAll(() => server?.stop());

  const client = async (path: string, token: string, era: 'legacy' | 'modern') => {
    const c = new Client(
      { name: `profiles-${era}`, version: '1' },
      era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}${path}`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    expect(c.getProtocolEra()).toBe(era);
    return c;
  };
  const fetchAs = (path: string, token: string, init: { body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${server.url}${path}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });

  it('token create --profile binds only a defined profile; token list shows the binding', async () => {
    const typo = await runCli(dir, ['token', 'create', 'x', '--roles', 'agent', '--profile', 'reviewr']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      "--profile 'reviewr': the configuration defines no [profiles.reviewr]. Known profiles: board, reviewer.",
    );
    const list = JSON.parse((await runCli(dir, ['token', 'list', '--json'])).stdout);
    expect(list.map((t: { name: string; profile: string | null }) => [t.name, t.profile])).toEqual([
      ['free', null],
      ['review-bot', 'reviewer'],
    ]);
  });

  for (const era of ['legacy', 'modern'] as const)
    it(`/mcp/reviewer serves the profile's tools to a ${era === 'legacy' ? '2025 (session)' : '2026-07-28 (stateless)'} client, and a call outside it names the profile`, async () => {
      const c = await client('/mcp/reviewer', free, era);
      try {
        expect(await toolNames(c)).toEqual(REVIEWER);
        const echo = await c.callTool({ name: 'fixture__echo', arguments: { text: 'in profile' } });
        expect(echo.structuredContent).toEqual({ text: 'in profile' });
        const outside = await c.callTool({ name: 'task__create', arguments: { text: 'no' } });
        expect(outside.isError).toBe(true);
        expect(text(outside)).toContain(
          "Tool 'task__create' is not in profile 'reviewer': its allow/deny globs ([profiles.reviewer]) leave it out.",
        );
      } finally {
        await c.close();
      }
      // Plain /mcp is the whole catalog for the same token.
      const all = await client('/mcp', free, era);
      try {
        expect((await toolNames(all)).length).toBeGreaterThan(REVIEWER.length + 10);
      } finally {
        await all.close();
      }
    });

  it('an unknown profile is 404 on both eras, listing the profiles there are', async () => {
    const modern = await fetchAs('/mcp/nope', free, {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    });
    expect(modern.status).toBe(404);
    expect((await modern.json()).error.message).toBe("No profile 'nope' (/mcp/nope). Known profiles: board, reviewer.");
    const legacy = await fetchAs('/mcp/nope', free, {
      body: INITIALIZE_2025,
    });
    expect(legacy.status).toBe(404);
    expect((await legacy.json()).error.message).toMatch(
      /^No profile 'nope' \(\/mcp\/nope\)\. Known profiles: board, reviewer\.$/,
    );
  });

  it('REST takes the profile from the Switchboard-Profile header: lists, calls, and a path that disagrees is 400', async () => {
    const listed = (await (await fetchAs('/v1/tools', free, { headers: { 'switchboard-profile': 'reviewer' } })).json())
      .tools;
    expect(listed.map((t: { name: string }) => t.name).sort()).toEqual(REVIEWER);
    const outside = await fetchAs('/v1/tools/task__create', free, {
      body: { text: 'x' },
      headers: { 'switchboard-profile': 'reviewer' },
    });
    expect(outside.status).toBe(404);
    expect((await outside.json()).error).toMatchObject({ code: 'NOT_FOUND', details: { profile: 'reviewer' } });
    const unknown = await fetchAs('/v1/tools', free, { headers: { 'switchboard-profile': 'nope' } });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.message).toBe(
      "No profile 'nope' (the Switchboard-Profile header). Known profiles: board, reviewer.",
    );
    const both = await fetchAs('/mcp/board', free, {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      headers: { 'switchboard-profile': 'reviewer' },
    });
    expect(both.status).toBe(400);
    expect((await both.json()).error.message).toMatch(/name different profiles/);
  });

  it('a bound token runs under its profile on every route and cannot widen itself by asking for another', async () => {
    // No selection: the binding applies (REST and MCP).
    const rest = (await (await fetchAs('/v1/tools', bound)).json()).tools.map((t: { name: string }) => t.name);
    expect(rest.sort()).toEqual(REVIEWER);
    const plain = await client('/mcp', bound, 'modern');
    try {
      expect(await toolNames(plain)).toEqual(REVIEWER);
      const outside = await plain.callTool({ name: 'task__create', arguments: { text: 'no' } });
      expect(text(outside)).toContain("is not in profile 'reviewer'");
    } finally {
      await plain.close();
    }
    // Its own profile by name is fine.
    const same = await client('/mcp/reviewer', bound, 'legacy');
    await same.close();
    // Another profile, by path or header, on either era: 403, naming both.
    const byPath = await fetchAs('/mcp/board', bound, {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
    });
    expect(byPath.status).toBe(403);
    expect((await byPath.json()).error.message).toBe(
      "Token 'review-bot' is bound to profile 'reviewer' and cannot use profile 'board' (/mcp/board); use /mcp/reviewer or /mcp, or create a token for 'board'.",
    );
    const legacy = await fetchAs('/mcp/board', bound, {
      body: INITIALIZE_2025,
    });
    expect(legacy.status).toBe(403);
    const byHeader = await fetchAs('/v1/tools/task__list', bound, {
      body: {},
      headers: { 'switchboard-profile': 'board' },
    });
    expect(byHeader.status).toBe(403);
    expect((await byHeader.json()).error.code).toBe('FORBIDDEN');
  });

  it('a 2025 session keeps the profile it was opened under: the same session id at /mcp is refused', async () => {
    const c = await client('/mcp/reviewer', free, 'legacy');
    const transport = (c as unknown as { transport: { sessionId?: string } }).transport;
    try {
      const elsewhere = await fetchAs('/mcp', free, {
        body: { jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} },
        headers: { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-11-25' },
      });
      expect(elsewhere.status).toBe(404);
      expect((await elsewhere.json()).error.message).toBe(
        "This session was opened under profile 'reviewer' (/mcp/reviewer); continue it at that URL, or start a new session with initialize.",
      );
    } finally {
      await c.close();
    }
  });
});

describe('profiles over stdio', () => {
  const dir = project();

  const connect = async (args: string[], env: Record<string, string> = {}) => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, '--cwd', dir, 'serve', '--handlers', FIXTURE_HANDLERS, ...args],
      env: childEnv(dir, env),
      stderr: 'pipe',
    });
    const c = new Client({ name: 'profiles-stdio', version: '1' });
    await c.connect(transport);
    return c;
  };

  it('serve --profile serves the profile; a call outside it names the profile', async () => {
    const c = await connect(['--profile', 'reviewer']);
    try {
      expect(await toolNames(c)).toEqual(REVIEWER);
      const outside = await c.callTool({ name: 'task__create', arguments: { text: 'no' } });
      expect(outside.isError).toBe(true);
      expect(text(outside)).toContain("Tool 'task__create' is not in profile 'reviewer'");
    } finally {
      await c.close();
    }
  });

  it('SWITCHBOARD_PROFILE selects it when no --profile is given (what a sub-agent’s MCP server gets)', async () => {
    const c = await connect([], { SWITCHBOARD_PROFILE: 'board' });
    try {
      expect((await toolNames(c)).sort()).toEqual(BOARD_LISTED);
      const created = await c.callTool({ name: 'task__create', arguments: { text: 'inside the profile' } });
      expect(created.isError).toBeFalsy();
      const denied = await c.callTool({ name: 'task__delete', arguments: { id: 't-1' } });
      expect(text(denied)).toContain("Tool 'task__delete' is not in profile 'board'");
    } finally {
      await c.close();
    }
  });

  it('serve --profile with an unknown name answers the waiting requests with why, and exits non-zero once the client leaves', async () => {
    const messages = [
      INITIALIZE_2025,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    ];
    const { code, stdout, stderr } = await runCli(dir, ['serve', '--profile', 'nope'], {
      input: messages.map((m) => `${JSON.stringify(m)}\n`).join(''),
      keepStdinOpen: true,
      endStdinWhen: (out) => out.endsWith('\n') && answersById(out).has(2),
    });
    expect(code).not.toBe(0);
    const answers = answersById(stdout);
    expect(answers.get(2)?.error?.message).toBe(
      "Switchboard could not start, so it cannot answer this request: No profile 'nope' (serve --profile nope). Known profiles: board, reviewer.",
    );
    expect(stderr).toContain("No profile 'nope' (serve --profile nope). Known profiles: board, reviewer.");
  });

  it('serve --http --profile is a usage error that says how HTTP clients select a profile', async () => {
    const r = await runCli(dir, ['serve', '--http', '--port', '0', '--profile', 'reviewer']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--profile selects the profile of a stdio server. Over HTTP each client selects its own',
    );
  });
});

describe('install --profile', () => {
  /** Start the entry an install wrote as the agent would: this install's launcher, in the project. */
  const startEntry = async (dir: string, entry: { command: string; args: string[] }) => {
    expect(entry.command).toBe(BIN);
    expect(entry.args[0]).toBe('serve');
    const transport = new StdioClientTransport({
      command: entry.command,
      args: ['--cwd', dir, ...entry.args, '--handlers', FIXTURE_HANDLERS],
      env: childEnv(dir),
      stderr: 'pipe',
    });
    const c = new Client({ name: 'installed', version: '1' });
    await c.connect(transport);
    return c;
  };

  it('claude-code: .mcp.json starts serve --profile NAME, which serves that profile', async () => {
    const dir = project();
    const r = await runCli(dir, ['install', 'claude-code', '--profile', 'reviewer'], {
      env: { HOME: join(dir, '.home') },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(profile reviewer)');
    const entry = JSON.parse(readFileSync(join(dir, '.mcp.json'), 'utf8')).mcpServers.switchboard;
    expect(entry).toEqual({ type: 'stdio', command: BIN, args: ['serve', '--profile', 'reviewer'] });
    const c = await startEntry(dir, entry);
    try {
      expect(await toolNames(c)).toEqual(REVIEWER);
    } finally {
      await c.close();
    }
  });

  it('codex: [mcp_servers.switchboard] args end in --profile NAME; an unknown profile writes nothing', async () => {
    const dir = project();
    const env = { HOME: join(dir, '.home'), CODEX_HOME: join(dir, '.codex-home') };
    const typo = await runCli(dir, ['install', 'codex', '--profile', 'bord'], { env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      "--profile 'bord': the configuration defines no [profiles.bord]. Known profiles: board, reviewer.",
    );
    expect(existsSync(join(dir, '.codex'))).toBe(false);
    const r = await runCli(dir, ['install', 'codex', '--profile', 'board'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`it runs: ${BIN} serve --profile board`);
    const toml = parse(readFileSync(join(dir, '.codex/config.toml'), 'utf8')) as {
      mcp_servers: { switchboard: { command: string; args: string[] } };
    };
    const c = await startEntry(dir, toml.mcp_servers.switchboard);
    try {
      expect((await toolNames(c)).sort()).toEqual(BOARD_LISTED);
    } finally {
      await c.close();
    }
  });
});
