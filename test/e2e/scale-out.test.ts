import { request } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startHttpServer, tempProject } from '../helpers/cli.ts';
import { cleanedAfterEach, PrivateRedis, REDIS_URL, redisProject, testPrefix } from '../helpers/redis.ts';
import { until } from '../helpers/until.ts';

/** A fetch that sends each request to the next instance in turn (a load balancer without affinity). */
function roundRobin(urls: string[], alive: () => string[] = () => urls) {
  let next = 0;
  const hits: string[] = [];
  const fetchImpl = (input: string | URL | Request, init?: RequestInit) => {
    const live = alive();
    const base = live[next++ % live.length];
    hits.push(base);
    const target = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const to = new URL(base);
    target.host = to.host;
    return fetch(target, init);
  };
  return { fetch: fetchImpl, hits };
}

/** A 2025-era SDK client (sampling and elicitation declared) whose requests alternate over `urls`. */
async function alternatingClient(urls: string[], alive?: () => string[]) {
  const rr = roundRobin(urls, alive);
  const client = new Client(
    { name: 'e2e-scale-out', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } }));
  const transport = new StreamableHTTPClientTransport(new URL(`${urls[0]}/mcp`), { fetch: rr.fetch });
  await client.connect(transport);
  return { client, transport, hits: rr.hits };
}

type ToolResult = { structuredContent?: Record<string, unknown>; isError?: boolean; content?: { text?: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

/** Collect `/v1/events` SSE data lines from one instance. */
function followEvents(base: string) {
  const events: Record<string, unknown>[] = [];
  const req = request(`${base}/v1/events`, (res) => {
    let buffer = '';
    res.on('data', (chunk: Buffer) => {
      buffer += String(chunk);
      let i = buffer.indexOf('\n\n');
      while (i >= 0) {
        const data = /^data: (.*)$/m.exec(buffer.slice(0, i))?.[1];
        if (data) events.push(JSON.parse(data));
        buffer = buffer.slice(i + 2);
        i = buffer.indexOf('\n\n');
      }
    });
  });
  req.on('error', () => {});
  req.end();
  return { events, close: () => req.destroy() };
}

/**
 * Wait until each event stream hears the other instance: an instance's stream shows its own events at once, but
 * another's only once its Redis reader has found the stream's end. Each round makes one (unlimited) call on each
 * instance; a stream that holds more of them than there were rounds has heard a call made on the other instance.
 */
async function bothStreamsHearBoth(urls: string[], streams: { events: Record<string, unknown>[] }[]): Promise<void> {
  const probes = (events: Record<string, unknown>[]) =>
    events.filter((e) => e.type === 'call' && e.name === 'system.health').length;
  let rounds = 0;
  await until(
    async () => {
      rounds++;
      for (const url of urls)
        expect((await fetch(`${url}/v1/tools/system.health`, { method: 'POST' })).status).toBe(200);
      return streams.every((s) => probes(s.events) > rounds);
    },
    { what: 'both event streams to hear both instances' },
  );
}

describe('two instances on one Redis, a client alternating between them', () => {
  const { servers, dirs, prefixes } = cleanedAfterEach();
  async function twoInstances(url = REDIS_URL) {
    const prefix = testPrefix();
    prefixes.push(prefix);
    const dir = redisProject(url, prefix);
    dirs.push(dir);
    const [a, b] = await Promise.all([startHttpServer(dir), startHttpServer(dir)]);
    servers.push(a, b);
    return { a, b, prefix, dir };
  }

  it('serves a full 2025 session: lists, calls, the task board and an elicitation answered through the other instance', async () => {
    const { a, b } = await twoInstances();
    const { client, transport, hits } = await alternatingClient([a.url, b.url]);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['task__create', 'fixture__echo']));
      expect((await call(client, 'fixture__echo', { text: 'hi' })).structuredContent).toEqual({ text: 'hi' });

      const created = (await call(client, 'task__create', { text: 'ship it', priority: 70 })).structuredContent!;
      await call(client, 'system__register', { instanceId: 'worker-1', roles: ['coder'] });
      expect((await call(client, 'task__assign', { id: created.id, instanceId: 'worker-1' })).isError).toBeFalsy();
      expect((await call(client, 'task__start', { id: created.id })).structuredContent).toMatchObject({
        status: 'in_progress',
      });
      const done = await call(client, 'task__complete', { id: created.id, result: { ok: true } });
      expect(done.structuredContent).toMatchObject({ status: 'completed', result: { ok: true } });
      const listed = (await call(client, 'task__list', {})).structuredContent as { tasks: { id: string }[] };
      expect(listed.tasks.map((t) => t.id)).toContain(created.id);

      // The elicitation request goes out on one instance's stream; the client's answer is posted to the other.
      const elicited = await call(client, 'fixture__elicit');
      expect(elicited.structuredContent).toEqual({ action: 'accept', name: 'Ada' });

      // Both instances really served this session, and the session id never changed.
      expect(new Set(hits)).toEqual(new Set([a.url, b.url]));
      expect(transport.sessionId).toBeTruthy();
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  }, 60_000);

  it('system.metrics adds up the calls of both instances; scope instance shows only the one answering', async () => {
    const { a, b } = await twoInstances();
    const { client, transport, hits } = await alternatingClient([a.url, b.url]);
    try {
      for (let i = 0; i < 6; i++) expect((await call(client, 'fixture__echo', { text: `m${i}` })).isError).toBeFalsy();
      expect(new Set(hits)).toEqual(new Set([a.url, b.url]));
      // The other instance's share arrives with its next heartbeat (a third of instance_ttl_ms = 1 s here).
      const all: any = await until(
        async () => {
          const m = (await call(client, 'system__metrics', {})).structuredContent as any;
          return m.capabilities['fixture.echo']?.calls === 6 && m;
        },
        { what: 'both instances in the metrics' },
      );
      expect(all.instances).toHaveLength(2);
      expect(all.capabilities['fixture.echo']).toMatchObject({
        calls: 6,
        errors: 0,
        transports: { http: { calls: 6 } },
      });
      const one = (await call(client, 'system__metrics', { scope: 'instance' })).structuredContent as any;
      expect(one.instances).toHaveLength(1);
      expect(one.capabilities['fixture.echo'].calls).toBe(3);
      const bad = await call(client, 'system__metrics', { scope: 'cluster' });
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toMatch(/scope/);
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  }, 60_000);

  it('enforces a 10/min limit in total across both instances and shows every event on both', async () => {
    const { a, b } = await twoInstances();
    const onA = followEvents(a.url);
    const onB = followEvents(b.url);
    const { client, transport } = await alternatingClient([a.url, b.url]);
    try {
      await bothStreamsHearBoth([a.url, b.url], [onA, onB]);
      const results = [];
      for (let i = 0; i < 12; i++) results.push(await call(client, 'fixture__echo', { text: `n${i}` }));
      expect(results.filter((r) => !r.isError)).toHaveLength(10);
      const limited = results.filter((r) => r.isError);
      expect(limited).toHaveLength(2);
      expect(limited[0].content?.[0]?.text).toMatch(/10 calls per 60000 ms \(across all instances\)/);

      // Every echo call (made on either instance) reaches the event stream of each instance.
      const echoes = (events: Record<string, unknown>[]) =>
        events.filter((e) => e.type === 'call' && e.name === 'fixture.echo').length;
      await until(() => echoes(onA.events) >= 12, { what: '12 echo events on A' });
      await until(() => echoes(onB.events) >= 12, { what: '12 echo events on B' });
      expect(echoes(onA.events)).toBe(12);
      expect(echoes(onB.events)).toBe(12);
    } finally {
      onA.close();
      onB.close();
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  }, 60_000);

  it('finishes the work through the other instance when one is killed, and returns the dead one’s tasks to pending', async () => {
    const { a, b } = await twoInstances();
    let live = [a.url, b.url];
    const { client, transport } = await alternatingClient([a.url, b.url], () => live);
    try {
      const state = await call(client, 'system__get_state');
      const hubs = (state.structuredContent!.instances as { id: string }[]).filter((i) =>
        i.id.startsWith('switchboard:'),
      );
      expect(hubs).toHaveLength(2);
      const aHealth = await (await fetch(`${a.url}/v1/tools/system.health`, { method: 'POST', body: '{}' })).json();
      const aId = `switchboard:${aHealth.instanceId}`;

      const task = (await call(client, 'task__create', { text: 'half done', priority: 50 })).structuredContent!;
      const parked = (await call(client, 'task__create', { text: 'held by A', priority: 40 })).structuredContent!;
      await call(client, 'system__register', { instanceId: 'worker-9', roles: [] });
      await call(client, 'task__assign', { id: task.id, instanceId: 'worker-9' });
      await call(client, 'task__start', { id: task.id });
      // Work held by instance A itself (a hub instance is an instance like any other).
      await call(client, 'task__assign', { id: parked.id, instanceId: aId });

      const killed = new Promise((r) => a.child.once('exit', r));
      a.child.kill('SIGKILL');
      await killed;
      servers.splice(servers.indexOf(a), 1);
      live = [b.url];

      // The session goes on through B alone and the work is finished there (the worker is alive: it beats).
      expect((await call(client, 'system__heartbeat', { instanceId: 'worker-9' })).isError).toBeFalsy();
      const done = await call(client, 'task__complete', { id: task.id, result: 'finished on B' });
      expect(done.structuredContent).toMatchObject({ status: 'completed', result: 'finished on B' });

      // A's lease ends; B's sweep removes it and hands its task back to the board.
      await until(
        async () => {
          const s = (await call(client, 'system__get_state')).structuredContent!;
          return !(s.instances as { id: string }[]).some((i) => i.id === aId) ? s : undefined;
        },
        { what: 'A expired' },
      );
      const back = (await call(client, 'task__get', { id: parked.id })).structuredContent!;
      expect(back).toMatchObject({ status: 'pending', assignedTo: null });
      const events = (await call(client, 'system__get_state')).structuredContent!.recentEvents as {
        event: Record<string, unknown>;
      }[];
      expect(events.some((e) => e.event.type === 'instance.expired' && e.event.id === aId)).toBe(true);
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  }, 60_000);

  it('ends a session everywhere when its client ends it (DELETE) through one instance', async () => {
    const { a, b } = await twoInstances();
    const { client, transport } = await alternatingClient([a.url, b.url]);
    const id = transport.sessionId as string;
    // Both instances serve the session (each holds it), then the client ends it through one of them.
    await call(client, 'fixture__echo', { text: 'one' });
    await call(client, 'fixture__echo', { text: 'two' });
    await transport.terminateSession();
    await client.close();
    const ping = (url: string) =>
      fetch(`${url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': id,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      }).then((r) => r.status);
    await until(async () => (await ping(a.url)) === 404 && (await ping(b.url)) === 404, {
      what: 'both instances to answer 404 for the ended session',
    });
  }, 60_000);

  it('keeps a session valid across a restart of every instance', async () => {
    const { a, b, dir } = await twoInstances();
    let live = [a.url, b.url];
    const { client, transport } = await alternatingClient([a.url, b.url], () => live);
    try {
      const id = transport.sessionId;
      await call(client, 'fixture__echo', { text: 'before' });
      await Promise.all([a.stop(), b.stop()]);
      const [c, d] = await Promise.all([startHttpServer(dir), startHttpServer(dir)]);
      servers.push(c, d);
      live = [c.url, d.url];
      expect((await call(client, 'fixture__echo', { text: 'after' })).structuredContent).toEqual({ text: 'after' });
      expect((await call(client, 'fixture__echo', { text: 'again' })).structuredContent).toEqual({ text: 'again' });
      expect(transport.sessionId).toBe(id);
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  }, 60_000);

  it('shares tokens: one created by the CLI is accepted by both instances, and a revocation applies on both', async () => {
    const { a, b, dir } = await twoInstances();
    const cli = async (args: string[]) => {
      const r = await runCli(dir, args);
      if (r.code !== 0) throw new Error(r.stderr);
      return r.stdout;
    };
    const secret = /sb_[A-Za-z0-9_-]+/.exec(await cli(['token', 'create', 'ci', '--roles', 'agent,admin']))?.[0];
    expect(secret).toBeTruthy();
    const health = (base: string, token?: string) =>
      fetch(`${base}/v1/tools/system.health`, {
        method: 'POST',
        body: '{}',
        headers: token ? { authorization: `Bearer ${token}` } : {},
      }).then((r) => r.status);
    expect(await health(a.url)).toBe(401);
    expect(await health(a.url, secret)).toBe(200);
    expect(await health(b.url, secret)).toBe(200);
    await cli(['token', 'revoke', 'ci']);
    expect(await health(b.url, secret)).toBe(401);
    expect(await health(a.url, secret)).toBe(401);
  }, 60_000);

  describe('when Redis stops and comes back', () => {
    let redis: PrivateRedis;
    afterAll(async () => {
      await redis?.stop();
    });

    it('fails calls that need it fast with UNAVAILABLE, reports degraded health, and recovers', async () => {
      redis = await PrivateRedis.start();
      const { a, b } = await twoInstances(redis.url);
      const rest = async (base: string, name: string, body: unknown = {}) => {
        const res = await fetch(`${base}/v1/tools/${name}`, { method: 'POST', body: JSON.stringify(body) });
        return { status: res.status, body: await res.json() };
      };
      expect((await rest(a.url, 'task.create', { text: 'before', priority: 1 })).status).toBe(200);

      await redis.stop();
      const started = Date.now();
      const failed = await rest(b.url, 'task.create', { text: 'during', priority: 1 });
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(failed.status).toBe(503);
      expect(JSON.stringify(failed.body)).toMatch(/Redis at redis:\/\/127\.0\.0\.1:\d+ is unreachable/);
      const health = await rest(a.url, 'system.health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'degraded', services: { store: { status: 'degraded' } } });

      await redis.start();
      // Bounded: the clients reconnect within about a second.
      // Each instance is retried on its own until it answers 200: a retry must not repeat a create that worked.
      for (const [base, text] of [
        [a.url, 'after on A'],
        [b.url, 'after on B'],
      ] as const) {
        const created = await until(
          async () => {
            const x = await rest(base, 'task.create', { text, priority: 1 });
            return x.status === 200 ? x : undefined;
          },
          { what: `task.create to work again on ${text.slice(-1)}` },
        );
        expect(created.body).toMatchObject({ text, status: 'pending' });
      }
      expect((await rest(b.url, 'system.health')).body).toMatchObject({ services: { store: { status: 'healthy' } } });
      // Nothing half-written: the new (empty, non-persistent) server holds exactly the two new tasks.
      const list = await rest(a.url, 'task.list', {});
      expect((list.body as { tasks: { text: string }[] }).tasks.map((t) => t.text).sort()).toEqual([
        'after on A',
        'after on B',
      ]);
    }, 60_000);
  });
});

describe('serve --store', () => {
  const run = (args: string[]) => runCli(tempProject(), args, { timeoutMs: 20_000 });

  it('refuses a store that is not a Redis URL with a message that says what is expected', async () => {
    const { code, stderr } = await run(['serve', '--http', '--port', '0', '--store', 'postgres://db']);
    expect(code).toBe(2);
    expect(stderr).toContain("--store must be a Redis URL such as redis://127.0.0.1:6379, got 'postgres://db'");
  });

  it('fails to start, saying Redis is not answering at the address, when nothing listens there', async () => {
    const { code, stderr } = await run(['serve', '--http', '--port', '0', '--store', 'redis://127.0.0.1:1']);
    expect(code).not.toBe(0);
    // Nothing was sent, so nothing about a write that may or may not have been carried out (issue 29).
    expect(stderr).toContain(
      'switchboard: Redis is not answering at redis://127.0.0.1:1 (connect ECONNREFUSED 127.0.0.1:1). Start Redis there, or name the one to use: serve --store redis://HOST:PORT, or [store] url in .switchboard/config.toml.',
    );
    expect(stderr).not.toContain('may or may not');
  });
});
