// The capacity of 2025-era MCP sessions (issue 28, §4), over real HTTP with the official SDK client and raw requests:
// clients that abandon their sessions (as crashed or killed agents do) beside ones that use theirs. With small limits
// ([server] max_sessions, max_sessions_per_principal, session_idle_timeout_ms), abandoned sessions end to make room
// — the principal's own first, then those never used after initialize, then the idlest — so the hub never refuses
// a new session while idle ones hold the room, and a session with a request in flight is never ended.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../src/core/capability.ts';
import { generateToken, hashToken } from '../../src/policy/tokens.ts';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { INITIALIZE_2025 } from '../helpers/cli.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { until } from '../helpers/until.ts';

const PRINCIPALS = ['alice', 'bob', 'hog'] as const;
type Who = (typeof PRINCIPALS)[number];

/** A hub serving HTTP on a free port with `[server]` session limits, a token per principal, and `test.wait`. */
async function sessionHub(server: Record<string, number>) {
  const hub: TestHub = await testHub();
  await hub.config.patch({ server });
  const tokens = {} as Record<Who, string>;
  for (const name of PRINCIPALS) {
    tokens[name] = generateToken();
    await hub.services.store.tokens.create({ name, hash: hashToken(tokens[name]), roles: ['agent'], expiresAt: null });
  }
  // A call that runs until the test releases it: a session answering it is busy.
  const waiting: (() => void)[] = [];
  hub.services.registry.add(
    defineCapability({
      name: 'test.wait',
      description: 'Returns when the test releases it.',
      input: z.object({}),
      handle: () => new Promise<string>((resolve) => waiting.push(() => resolve('released'))),
    }),
  );
  const http: HttpHandle = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
  const url = `${http.url}/mcp`;
  const headers = (who: Who, sessionId?: string): Record<string, string> => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${tokens[who]}`,
    ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' } : {}),
  });
  const post = async (who: Who, message: object, sessionId?: string) => {
    const res = await fetch(url, { method: 'POST', headers: headers(who, sessionId), body: JSON.stringify(message) });
    return { status: res.status, sessionId: res.headers.get('mcp-session-id') ?? undefined, text: await res.text() };
  };
  let nextId = 100;
  const request = (who: Who, sessionId: string, method: string, params?: object) =>
    post(who, { jsonrpc: '2.0', id: nextId++, method, ...(params ? { params } : {}) }, sessionId);

  return {
    hub,
    waiting,
    post,
    request,
    /** A session opened with raw HTTP (no GET stream, like a client that is gone); `use` sends it one request. */
    async rawSession(who: Who, opts: { use: boolean }): Promise<string> {
      const init = await post(who, INITIALIZE_2025);
      expect(init.status, init.text).toBe(200);
      const id = init.sessionId!;
      expect((await post(who, { jsonrpc: '2.0', method: 'notifications/initialized' }, id)).status).toBe(202);
      if (opts.use) expect((await request(who, id, 'ping')).status).toBe(200);
      return id;
    },
    /** Whether session `id` still answers (200), or answers as unknown (404, -32001, as MCP says). */
    async alive(who: Who, id: string): Promise<boolean> {
      const answer = await request(who, id, 'ping');
      if (answer.status === 404) {
        expect(JSON.parse(answer.text).error).toMatchObject({
          code: -32001,
          message: expect.stringMatching(/not found/),
        });
        return false;
      }
      expect(answer.status, answer.text).toBe(200);
      return true;
    },
    /** The official SDK client, connected as `who` (it opens a GET stream, as Claude Code and Codex do). */
    async client(who: Who) {
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${tokens[who]}` } },
      });
      const client = new Client({ name: `capacity-${who}`, version: '1.0.0' });
      await client.connect(transport);
      return { client, transport, sessionId: transport.sessionId! };
    },
    async close() {
      for (const release of waiting.splice(0)) release();
      await http.close(0);
      await hub.close();
    },
  };
}

type SessionHub = Awaited<ReturnType<typeof sessionHub>>;

describe('a full hub ends idle sessions instead of refusing new ones', () => {
  let h: SessionHub;
  beforeAll(async () => {
    // The per-principal share out of the way: this is the hub's own limit.
    h = await sessionHub({ max_sessions: 10, max_sessions_per_principal: 1000 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('lets clients that abandon sessions fill it thrice over while an active user goes on and another principal still opens one', async () => {
    const alice = await h.client('alice');
    expect((await alice.client.listTools()).tools.map((t) => t.name)).toContain('test__wait');
    const abandoned: string[] = [];
    for (let i = 0; i < 30; i++) {
      // An agent that connects, maybe calls once, and is killed: its session is never deleted.
      const hog = await h.client('hog');
      if (i % 2) await hog.client.ping();
      abandoned.push(hog.sessionId);
      await hog.client.close();
      if (i % 5 === 4) expect((await alice.client.listTools()).tools.length).toBeGreaterThan(0);
    }
    // The active user's session is the one it began with, and it works.
    expect(alice.transport.sessionId).toBe(alice.sessionId);
    expect(await alice.client.ping()).toEqual({});
    // Another principal opens a session and uses it.
    const bob = await h.client('bob');
    expect((await bob.client.listTools()).tools.length).toBeGreaterThan(0);
    // The hub kept its cap: with alice's and bob's sessions open, 8 abandoned ones are — those that were used, the
    // newest of them; every session never used after initialize went first.
    const open: boolean[] = [];
    for (const id of abandoned) open.push(await h.alive('hog', id));
    expect(open).toEqual(abandoned.map((_, i) => i % 2 === 1 && i >= 15));
    await alice.transport.terminateSession();
    await alice.client.close();
    await bob.client.close();
  });
});

describe('a session never used after initialize ends before an idle used one', () => {
  let h: SessionHub;
  beforeAll(async () => {
    h = await sessionHub({ max_sessions: 10, max_sessions_per_principal: 1000 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('ends the unused session although the used one has been idle longer', async () => {
    const usedLongAgo = await h.rawSession('alice', { use: true });
    const neverUsed = await h.rawSession('alice', { use: false });
    for (let i = 0; i < 8; i++) await h.rawSession('bob', { use: true });
    // The hub is full (10): the next initialize needs room.
    const newcomer = await h.rawSession('hog', { use: true });
    expect(await h.alive('alice', neverUsed)).toBe(false);
    expect(await h.alive('alice', usedLongAgo)).toBe(true);
    expect(await h.alive('hog', newcomer)).toBe(true);
  });
});

describe("a principal's share of the sessions", () => {
  let h: SessionHub;
  beforeAll(async () => {
    h = await sessionHub({ max_sessions: 10, max_sessions_per_principal: 3 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("ends the hog's own idlest sessions, never another principal's idler one", async () => {
    const alices = await h.rawSession('alice', { use: true });
    const hogs: string[] = [];
    for (let i = 0; i < 7; i++) hogs.push(await h.rawSession('hog', { use: true }));
    const open: boolean[] = [];
    for (const id of hogs) open.push(await h.alive('hog', id));
    expect(open).toEqual([false, false, false, false, true, true, true]);
    expect(await h.alive('alice', alices)).toBe(true);
  });

  it('refuses a new session with 429 naming the key while all of its share answer requests, and lets others in', async () => {
    const hogs: string[] = [];
    for (let i = 0; i < 3; i++) hogs.push(await h.rawSession('hog', { use: true }));
    const before = h.waiting.length;
    const calls = hogs.map((id) => h.request('hog', id, 'tools/call', { name: 'test__wait', arguments: {} }));
    await until(() => h.waiting.length === before + 3, { what: 'three calls in flight' });
    const refused = await h.post('hog', INITIALIZE_2025);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.text).error.message).toMatch(
      /^Too many open sessions for 'hog' \(3, \[server\] max_sessions_per_principal\), each answering a request; close one \(DELETE \/mcp\)/,
    );
    // Another principal is not held back by the hog.
    const bobs = await h.rawSession('bob', { use: true });
    expect(await h.alive('bob', bobs)).toBe(true);
    // Once a call is answered its session is idle again, and the hog's next session ends it.
    for (const release of h.waiting.splice(before)) release();
    for (const call of await Promise.all(calls)) expect(call.text).toContain('released');
    await h.rawSession('hog', { use: true });
    expect((await Promise.all(hogs.map((id) => h.alive('hog', id)))).filter(Boolean)).toHaveLength(2);
  });
});

describe('the idle timeout', () => {
  let h: SessionHub;
  beforeAll(async () => {
    h = await sessionHub({ session_idle_timeout_ms: 1_000 });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('ends a session without a request for session_idle_timeout_ms; its client gets 404 and initializes again', async () => {
    const idle = await h.rawSession('alice', { use: true });
    const kept = await h.rawSession('alice', { use: true });
    const started = Date.now();
    // Bounded: a few pings keep one session alive while the other passes the timeout.
    while (Date.now() - started < 1_500) {
      expect(await h.alive('alice', kept)).toBe(true);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await h.alive('alice', idle)).toBe(false);
    expect(await h.alive('alice', kept)).toBe(true);
    expect(await h.alive('alice', await h.rawSession('alice', { use: true }))).toBe(true);
  });
});
