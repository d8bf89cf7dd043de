// Upstream servers through the hub's pipeline: aggregation and naming, faithful results, errors, resources and
// prompts, one dead server beside a live one.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { serveHttp } from '../../../src/serve/http.ts';
import type { RunningUpstream } from '../../../src/sources/upstream/index.ts';
import { startHttpServer, tempProject } from '../../helpers/cli.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';
import { FIXTURE, fixtureHttp, fixtureStdio, hubsClosedAfterEach, projectWith, waitFor } from './helpers.ts';

const TYPED = join(import.meta.dirname, '../../fixtures/upstream/typed-server.mjs');

const { hubWith, keep } = hubsClosedAfterEach();

const upstream = (hub: TestHub) => (hub.sources.get('upstream') as RunningUpstream).manager();

describe('upstream proxy', () => {
  it('lists every server tool as server__tool and calls it through the pipeline', async () => {
    const hub = await hubWith([fixtureStdio('alpha'), fixtureStdio('beta')]);
    const tools = hub.services.registry.list().map((e) => e.tool.name);
    expect(tools).toEqual(expect.arrayContaining(['alpha__echo', 'alpha__add', 'beta__echo', 'beta__slow']));
    const out = await hub.call('alpha__add', { a: 2, b: 40 });
    expect(out.ok).toBe(true);
    expect(out.ok && out.raw?.content).toEqual([{ type: 'text', text: '42' }]);
    const echo = await hub.call('beta.echo', { text: 'hi' });
    expect(echo.ok && echo.raw).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
  });

  it('passes the upstream schemas through unchanged', async () => {
    const hub = await hubWith([fixtureStdio('alpha')]);
    const echo = hub.services.registry.get('alpha__echo');
    expect(echo?.tool.inputSchema).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string', description: 'What to echo' } },
      required: ['text'],
    });
    expect(echo?.tool.outputSchema).toMatchObject({ properties: { text: { type: 'string' } } });
    expect(echo?.tool.annotations).toEqual({ readOnlyHint: true });
  });

  it('keeps every kind of content and isError results as the server sent them', async () => {
    const hub = await hubWith([fixtureStdio('alpha')]);
    const media = await hub.call('alpha__media', {});
    expect(media.ok && media.raw?.content.map((c) => c.type)).toEqual([
      'text',
      'image',
      'audio',
      'resource_link',
      'resource',
    ]);
    const failed = await hub.call('alpha__fail', { message: 'nope' });
    expect(failed.ok && failed.raw).toMatchObject({ isError: true, content: [{ type: 'text', text: 'nope' }] });
    const echo = await hub.call('alpha__echo', { text: 'x' });
    expect(echo.ok && echo.raw?.structuredContent).toEqual({ text: 'x' });
  });

  it('mirrors x-mcp-header arguments into Mcp-Param headers for a 2026-07-28 upstream (another Switchboard)', async () => {
    // The upstream checks header and body agree (SEP-2243) and refuses a call without the header.
    const far = await startHttpServer(tempProject(), [
      '--handlers',
      join(import.meta.dirname, '../../fixtures/param-headers'),
    ]);
    try {
      const hub = await hubWith([{ name: 'far', url: `${far.url}/mcp` }]);
      expect(upstream(hub)?.views()[0]).toMatchObject({ name: 'far', status: 'connected' });
      for (const region of ['eu-west', 'Zürich ', '']) {
        const out = await hub.call('far__geo__region', { region });
        expect(out.ok && out.raw, JSON.stringify(out)).toMatchObject({
          content: [{ type: 'text', text: `region=${region}` }],
        });
      }
    } finally {
      await far.stop();
    }
  });

  it('reads past stray stdout lines from a server and still answers every call', async () => {
    // The reader parses a call's answer once and everything else with the SDK's schema: neither may stall the pipe.
    const hub = await hubWith([fixtureStdio('noisy', { env: { FIXTURE_NAME: 'noisy', FIXTURE_NOISE: '1' } })]);
    for (const text of ['one', 'two', 'three']) {
      const out = await hub.call('noisy__echo', { text });
      expect(out.ok && out.raw?.structuredContent).toEqual({ text });
    }
    expect(upstream(hub)?.views()[0]).toMatchObject({ name: 'noisy', status: 'connected', restarts: 0 });
  });

  it('fails a result that breaks the CallToolResult schema with UPSTREAM naming server, tool and problem, at once, over stdio and HTTP', async () => {
    const http = await fixtureHttp();
    try {
      // A long timeout: an answer that is not an object must fail at once, not wait for it (the test would time out).
      const hub = await hubWith(
        [fixtureStdio('lane', { timeout_ms: 120_000 }), { name: 'web', url: http.url, timeout_ms: 120_000 }],
        { policy: { breaker: { threshold: 100 } } },
      );
      const cases: [unknown, RegExp][] = [
        [
          { content: 'x' },
          /answered tools\/call of 'raw' with an invalid result: content: Invalid input: expected array, received string\./,
        ],
        [
          { content: [], isError: 'yes' },
          /of 'raw' with an invalid result: isError: Invalid input: expected boolean, received string\./,
        ],
        [
          { content: [{ type: 'text' }] },
          /of 'raw' with an invalid result: content\.0\.text: Invalid input: expected string, received undefined\./,
        ],
        [
          'text',
          /(invalid result: Invalid input: expected object, received string|invalid answer to tools\/call of 'raw': the message is not valid JSON-RPC)/,
        ],
        [
          [1],
          /(invalid result: Invalid input: expected object, received array|invalid answer to tools\/call of 'raw': the message is not valid JSON-RPC)/,
        ],
        [
          null,
          /(invalid result: Invalid input: expected object, received null|invalid answer to tools\/call of 'raw': the message is not valid JSON-RPC)/,
        ],
      ];
      for (const server of ['lane', 'web'])
        for (const [result, message] of cases) {
          const out = await hub.call(`${server}__raw`, { result });
          expect(out.ok ? out : out.error.code, JSON.stringify(result)).toBe('UPSTREAM');
          expect(!out.ok && out.error.message).toMatch(new RegExp(`^Upstream server '${server}' `));
          expect(!out.ok && out.error.message).toMatch(message);
        }
      const fine = await hub.call('lane__raw', { result: { content: [{ type: 'text', text: 'ok' }], isError: false } });
      expect(fine.ok && fine.raw).toMatchObject({ content: [{ type: 'text', text: 'ok' }] });
      expect(
        upstream(hub)
          ?.views()
          .map((v) => [v.name, v.status, v.restarts]),
      ).toEqual([
        ['lane', 'connected', 0],
        ['web', 'connected', 0],
      ]);
    } finally {
      http.child.kill();
    }
  }, 30_000);

  it("fails structuredContent that breaks the tool's outputSchema with UPSTREAM naming server, tool and mismatch; passes valid and error results", async () => {
    // typed-server.mjs sends whatever result it is asked for; its tools declare an outputSchema (count: with a 2020-12
    // $schema, count_plain: without one). The breaker stays out of the way of the ten bad answers.
    const hub = await hubWith([{ name: 'typed', command: process.execPath, args: [TYPED] }], {
      policy: { breaker: { threshold: 100 } },
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ content: [], structuredContent: { count: -1 } }, '/count must be >= 0'],
      [{ content: [], structuredContent: { count: '3' } }, '/count must be integer'],
      [
        { content: [], structuredContent: { count: 1, extra: true } },
        "(root) must NOT have additional properties 'extra'",
      ],
      [{ content: [], structuredContent: { unit: 'lines' } }, "(root) must have required property 'count'"],
      [
        { content: [], structuredContent: { count: 1, unit: 'lines' } },
        '/unit must be equal to one of the allowed values',
      ],
    ];
    for (const tool of ['count', 'count_plain'])
      for (const [result, problem] of cases) {
        const out = await hub.call(`typed__${tool}`, { result });
        expect(out.ok ? out : out.error.code, JSON.stringify(result)).toBe('UPSTREAM');
        expect(!out.ok && out.error.message).toContain(
          `Upstream server 'typed' answered tools/call of '${tool}' with structuredContent that does not match the tool's outputSchema: `,
        );
        expect(!out.ok && out.error.message).toContain(problem);
        expect(!out.ok && out.error.details).toMatchObject({ server: 'typed', tool });
      }
    // A success must carry structuredContent when the tool declares an outputSchema.
    const bare = await hub.call('typed__count', { result: { content: [{ type: 'text', text: '3' }] } });
    expect(!bare.ok && bare.error).toMatchObject({
      code: 'UPSTREAM',
      message: expect.stringContaining(
        "answered tools/call of 'count' without structuredContent, though the tool declares an outputSchema",
      ),
    });
    const valid = { content: [{ type: 'text', text: '3 pages' }], structuredContent: { count: 3, unit: 'pages' } };
    const fine = await hub.call('typed__count', { result: valid });
    expect(fine.ok && fine.value).toEqual({ count: 3, unit: 'pages' });
    expect(fine.ok && fine.raw).toMatchObject(valid);
    // A tool error is not the tool's output: not checked (MCP: structured results are checked, errors are not).
    for (const failed of [
      { content: [{ type: 'text', text: 'no count today' }], isError: true },
      { content: [{ type: 'text', text: 'half a count' }], isError: true, structuredContent: { count: 'x' } },
    ]) {
      const out = await hub.call('typed__count', { result: failed });
      expect(out.ok && out.raw, JSON.stringify(failed)).toMatchObject(failed);
    }
    // Over MCP, the caller (the SDK client, which checks structuredContent itself) gets the UPSTREAM error result.
    const http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
    const client = new Client({ name: 'caller', version: '1.0.0' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`)));
      const r = await client.callTool({ name: 'typed__count', arguments: { result: cases[1][0] } });
      expect(r.isError).toBe(true);
      expect(r._meta?.['switchboard/error']).toMatchObject({ code: 'UPSTREAM' });
      expect((r.content as { text: string }[])[0].text).toMatch(
        /^Upstream server 'typed' answered tools\/call of 'count' with structuredContent that does not match the tool's outputSchema: \/count must be integer\./,
      );
      const ok = await client.callTool({ name: 'typed__count', arguments: { result: valid } });
      expect(ok.structuredContent).toEqual({ count: 3, unit: 'pages' });
    } finally {
      await client.close();
      await http.close();
    }
  });

  it('fails an answer over max_message_bytes with UPSTREAM naming server, size and key, and keeps serving other calls', async () => {
    const hub = await hubWith([fixtureStdio('big', { max_message_bytes: 1024 * 1024 })]);
    const [over, beside] = await Promise.all([
      hub.call('big__big', { chars: 2_000_000 }),
      hub.call('big__echo', { text: 'beside' }),
    ]);
    expect(over.ok ? over : over.error.code).toBe('UPSTREAM');
    expect(!over.ok && over.error.message).toMatch(
      /^Upstream server 'big' answered with a 20000\d\d-byte message; the limit is 1048576 bytes \(max_message_bytes in its \[\[servers\]\] entry, default \[stdio\] max_message_bytes\)/,
    );
    expect(beside.ok && beside.raw?.structuredContent).toEqual({ text: 'beside' });
    const under = await hub.call('big__big', { chars: 1_000_000 });
    expect(under.ok && under.raw?.content).toEqual([{ type: 'text', text: 'x'.repeat(1_000_000) }]);
    expect(upstream(hub)?.views()[0]).toMatchObject({ name: 'big', status: 'connected', restarts: 0 });
  });

  it('answers bad input with the upstream validation error, as an isError result naming the fields', async () => {
    const hub = await hubWith([fixtureStdio('alpha')]);
    const out = await hub.call('alpha__add', { a: 'two' });
    expect(out.ok && out.raw?.isError).toBe(true);
    const text = out.ok ? String(out.raw?.content[0].text) : '';
    expect(text).toMatch(/a: Invalid input: expected number, received string/);
    expect(text).toMatch(/b: Invalid input: expected number, received undefined/);
  });

  it('serves upstream resources, templates and prompts and routes them back to their server', async () => {
    const hub = await hubWith([fixtureStdio('alpha')]);
    const reg = hub.services.registry;
    const greeting = reg.getResource('fixture://greeting');
    expect(greeting?.source).toBe('upstream:alpha');
    const ctx = { signal: new AbortController().signal } as never;
    expect(await greeting?.read(ctx)).toEqual([
      { uri: 'fixture://greeting', mimeType: 'text/plain', text: 'hello from alpha' },
    ]);
    expect(reg.listResourceTemplates().map((t) => t.uriTemplate)).toContain('fixture://items/{id}');
    const prompt = reg.getPrompt('alpha__greet');
    expect(prompt).toBeDefined();
    const got = (await prompt?.get({ who: 'Ada' }, ctx)) as unknown as Record<string, unknown>;
    expect(JSON.stringify(got)).toContain('Say hello to Ada.');
  });

  it('keeps serving the live servers while one cannot start, and says why', async () => {
    const hub = await hubWith([fixtureStdio('alpha'), { name: 'ghost', command: 'definitely-not-a-command-xyz' }]);
    expect((await hub.call('alpha__add', { a: 1, b: 1 })).ok).toBe(true);
    // The spawn failure arrives on its own schedule; alpha answering first says nothing about when.
    const ghost = await waitFor(
      () =>
        upstream(hub)
          ?.views()
          .find((v) => v.name === 'ghost' && v.status !== 'connecting'),
      10_000,
      "ghost's failed start",
    );
    expect(ghost).toMatchObject({ status: 'failed' });
    expect(ghost?.error).toMatch(/definitely-not-a-command-xyz|exited|not found/);
    const health = await hub.services.health.run();
    expect(health.services.upstream.status).toBe('degraded');
    expect(health.services.upstream.detail).toContain('ghost');
  });

  it('reports a server whose variable is missing, naming the server and field, and runs the others', async () => {
    const hub = await hubWith([
      fixtureStdio('alpha'),
      { name: 'api', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${SB_TEST_NOT_SET_TOKEN}' } },
    ]);
    const api = upstream(hub)
      ?.views()
      .find((v) => v.name === 'api');
    expect(api?.status).toBe('invalid');
    expect(api?.error).toBe(
      "server 'api': headers.Authorization: environment variable SB_TEST_NOT_SET_TOKEN is not set (set it, or write ${SB_TEST_NOT_SET_TOKEN:-default} to give a default).",
    );
    expect((await hub.call('alpha__echo', { text: 'still here' })).ok).toBe(true);
  });

  it('renames a server that takes a built-in domain and filters tools by allow and deny', async () => {
    const hub = await hubWith([
      fixtureStdio('task'),
      fixtureStdio('alpha', { tools: { allow: ['e*', 'a*', 's*'], deny: ['slow'] } }),
    ]);
    expect(hub.services.registry.get('task_mcp__echo')).toBeDefined();
    expect(hub.services.registry.get('task__create')?.capability.source).toBe('builtin');
    const alpha = upstream(hub)
      ?.views()
      .find((v) => v.name === 'alpha');
    expect(
      hub.services.registry
        .list()
        .filter((e) => e.capability.source === 'upstream:alpha')
        .map((e) => e.tool.name)
        .sort(),
    ).toEqual(['alpha__add', 'alpha__add_tool', 'alpha__echo', 'alpha__env']);
    expect(alpha?.filtered.sort()).toEqual(['big', 'crash', 'fail', 'hang', 'media', 'raw', 'slow']);
    const task = upstream(hub)
      ?.views()
      .find((v) => v.name === 'task');
    expect(task?.renamed).toContainEqual({ from: 'task', to: 'task_mcp', reason: "'task' is a built-in domain" });
  });

  it('keeps two upstream tools that map to one name both reachable, renaming one the same way every time', async () => {
    // approval off: a tool added after the first listing is shown at once (pinning: pinned.test.ts).
    const hub = await hubWith([fixtureStdio('x', { approval: 'off' }), fixtureStdio('x__y')]);
    // Server x adds a tool `y.echo`: its name x__y__echo is also what server x__y's `echo` maps to.
    expect((await hub.call('x__add_tool', { name: 'y.echo' })).ok).toBe(true);
    await waitFor(() => hub.services.registry.get('x__y__echo_2'), 5000, 'the rename');
    const mine = await hub.call('x__y__echo', {});
    expect(mine.ok && mine.raw?.content).toEqual([{ type: 'text', text: 'I am y.echo' }]);
    const theirs = await hub.call('x__y__echo_2', { text: 'from x__y' });
    expect(theirs.ok && theirs.raw?.structuredContent).toEqual({ text: 'from x__y' });
    const view = upstream(hub)
      ?.views()
      .find((v) => v.name === 'x__y');
    expect(view?.renamed).toEqual([{ from: 'x__y.echo', to: 'x__y.echo_2', reason: 'the name is already taken' }]);
  });

  it("runs the MCP servers a plugin's manifest brings, beside the config file's", async () => {
    const dir = projectWith([fixtureStdio('alpha')]);
    const pluginDir = join(dir, '.switchboard', 'plugins', 'demo');
    mkdirSync(pluginDir, { recursive: true });
    writeFileSync(
      join(pluginDir, 'switchboard-plugin.yml'),
      `name: demo\nhooks:\n  lint:\n    command: "true"\nmcp_servers:\n  fix:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(FIXTURE)}]\n    env: { FIXTURE_NAME: from-plugin }\n`,
    );
    const hub = await testHub({ cwd: dir });
    keep(hub);
    await hub.ready();
    const out = await hub.call('demo_fix__echo', { text: 'via plugin' });
    expect(out.ok && out.raw?.structuredContent).toEqual({ text: 'via plugin' });
    expect(hub.services.registry.get('alpha__echo')).toBeDefined();
    expect(hub.services.registry.get('demo__lint')).toBeDefined();
    // Removing the plugin withdraws its server.
    rmSync(pluginDir, { recursive: true });
    await (hub.sources.get('plugins') as unknown as { refresh(): Promise<unknown> }).refresh();
    await waitFor(() => !hub.services.registry.get('demo_fix__echo'), 5000, 'the plugin server to go');
  });

  it('runs a stdio server in the project directory, so relative paths in its args work from anywhere', async () => {
    // The script imports the fixture server from this repository, which the fence (the default) must be told of.
    const dir = projectWith([
      { name: 'rel', command: process.execPath, args: ['./tools/server.mjs'], sandbox: { read: [process.cwd()] } },
    ]);
    mkdirSync(join(dir, 'tools'));
    writeFileSync(join(dir, 'tools', 'server.mjs'), `await import(${JSON.stringify(FIXTURE)});\n`);
    const hub = await testHub({ cwd: dir });
    keep(hub);
    await hub.ready();
    const out = await hub.call('rel__echo', { text: 'relative' });
    expect(out.ok && out.raw?.structuredContent).toEqual({ text: 'relative' });
  });

  it("times a call out after the server's timeout_ms, lets progress extend it, and opens the server's circuit", async () => {
    const dir = projectWith([fixtureStdio('alpha', { timeout_ms: 400 })], {
      policy: { breaker: { threshold: 2, reset_ms: 60_000 } },
    });
    const hub = await testHub({ cwd: dir });
    keep(hub);
    await hub.ready();
    // 1.2 s in all, but a progress notification every 100 ms keeps restarting the 400 ms limit.
    const long = await hub.call('alpha__slow', { seconds: 1.2 });
    expect(long.ok && long.raw?.content).toEqual([{ type: 'text', text: 'slept 1.2s' }]);
    // Silence longer than timeout_ms fails the call; twice in a row opens the server's circuit.
    for (let i = 0; i < 2; i++) {
      const hung = await hub.call('alpha__hang', { ms: 5000 });
      expect(hung).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    }
    // Now every tool of that server fails fast, not only the one that hung.
    // Refused by the open circuit, not by the server (which would echo): no clock needed to tell them apart.
    const refused = await hub.call('alpha__echo', { text: 'x' });
    expect(refused).toMatchObject({
      ok: false,
      error: {
        code: 'UNAVAILABLE',
        message: expect.stringMatching(/Upstream server 'alpha' failed 2 times in a row; its circuit is open/),
      },
    });
  });

  it('gives a child only a minimal environment plus its configured env', async () => {
    process.env.SB_PARENT_SECRET_TOKEN = 'leak-me';
    try {
      const hub = await hubWith([
        fixtureStdio('alpha', { env: { FIXTURE_NAME: 'alpha', MINE: '${SB_MINE:-from-default}' } }),
      ]);
      const out = await hub.call('alpha__env', {});
      const env = out.ok ? (out.raw?.structuredContent as Record<string, string>) : {};
      expect(env.MINE).toBe('from-default');
      expect(env.SB_PARENT_SECRET_TOKEN).toBeUndefined();
      // PWD: bubblewrap, which fences the server by default, names the folder it starts it in.
      expect(
        Object.keys(env).filter(
          (k) => !['HOME', 'LOGNAME', 'PATH', 'PWD', 'SHELL', 'TERM', 'USER', 'FIXTURE_NAME', 'MINE'].includes(k),
        ),
      ).toEqual([]);
    } finally {
      delete process.env.SB_PARENT_SECRET_TOKEN;
    }
  });

  it('re-lists a server that announces tools/list_changed', async () => {
    // approval off: a tool added after the first listing is shown at once (pinning: pinned.test.ts).
    const hub = await hubWith([fixtureStdio('alpha', { approval: 'off' })]);
    const changes: string[] = [];
    hub.services.registry.onChange((k) => changes.push(k));
    expect((await hub.call('alpha__add_tool', { name: 'fresh' })).ok).toBe(true);
    await waitFor(() => hub.services.registry.get('alpha__fresh'), 5000, 'alpha__fresh');
    expect(changes).toContain('tools');
    const out = await hub.call('alpha__fresh', {});
    expect(out.ok && out.raw?.content).toEqual([{ type: 'text', text: 'I am fresh' }]);
  });
});
