// Revoking a token ends what it opened: the event streams (`GET /v1/events`, and the dashboard's `/v1/ui/events`
// through a ticket) end promptly with an `end` event saying why, and a ticket issued before the revocation opens
// nothing. A stream of another token stays open. Over real HTTP: a `switchboard serve` process with `switchboard token
// revoke` run as another process (SQLite), and two instances on one Redis, the token revoked through one while the
// streams are on the other.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/policy/tokens.ts';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { RedisStore } from '../../src/store/redis/index.ts';
import { BIN, childEnv, type HttpServerProcess, runCli, startHttpServer, tempProject } from '../helpers/cli.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { openTestStore } from '../helpers/redis.ts';
import { until } from '../helpers/until.ts';

/** How long a stream may take to end after its token goes; the check runs every 100 ms. */
const END_WITHIN_MS = 5_000;

interface Followed {
  /** Everything the stream sent so far. */
  text(): string;
  /** Resolves with the whole text once the server ends the stream; rejects if it has not ended within `ms`. */
  ended(ms?: number): Promise<string>;
  close(): void;
}

const opened: Followed[] = [];
afterEach(() => {
  for (const stream of opened.splice(0)) stream.close();
});

/** Open an SSE stream and read it in the background. */
async function follow(url: string, token?: string): Promise<Followed> {
  const controller = new AbortController();
  const res = await fetch(url, {
    signal: controller.signal,
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  });
  expect(res.status, `${url}: ${res.status}`).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const end = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += decoder.decode(value, { stream: true });
    }
  })();
  end.catch(() => {});
  const stream: Followed = {
    text: () => text,
    ended: (ms = END_WITHIN_MS) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${url} still open ${ms} ms after its token went`)), ms);
      });
      return Promise.race([end, late]).finally(() => clearTimeout(timer));
    },
    close: () => controller.abort(),
  };
  opened.push(stream);
  return stream;
}

async function ticket(base: string, token: string): Promise<string> {
  const res = await fetch(`${base}/v1/ui/ticket`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { ticket: string }).ticket;
}

/** Wait until `base` accepts a token just created in the store (a server reloads its token set within 100 ms). */
async function accepted(base: string, token: string): Promise<void> {
  const ok = async () =>
    (await fetch(`${base}/v1/tools`, { headers: { authorization: `Bearer ${token}` } })).status === 200;
  await until(ok, { what: `${base} to accept the new token` });
}

/** What a stream ended by a revocation says last. */
function expectEndedByRevocation(text: string): void {
  expect(text).toMatch(/event: end\ndata: .*"code":"UNAUTHORIZED".*revoked or has expired/);
}

/** A ticket issued before the revocation is refused, saying why. */
async function expectRefused(base: string, spare: string): Promise<void> {
  const res = await fetch(`${base}/v1/ui/events?ticket=${spare}`);
  expect(res.status).toBe(401);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error).toEqual({ code: 'UNAUTHORIZED', message: expect.stringContaining('has been revoked') });
}

/** A call made with `token` reaches the still open `stream`: the stream of a token that stayed lives on. */
async function expectLive(base: string, token: string, stream: Followed): Promise<void> {
  const res = await fetch(`${base}/v1/tools/system__health`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(200);
  await until(() => stream.text().includes('"name":"system.health"'), { what: 'the call on the other stream' });
}

describe('revoking a token on one server (SQLite), with the CLI in another process', () => {
  const dir = tempProject();
  let server: HttpServerProcess | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function createToken(name: string): Promise<string> {
    const out = await runCli(dir, ['token', 'create', name, '--roles', 'admin', '--json']);
    expect(out.code, out.stderr).toBe(0);
    return JSON.parse(out.stdout).token;
  }

  /** `switchboard events tail` with `token`, once it has printed the replayed events (so its stream is open). */
  async function tail(base: string, token: string) {
    const child = spawn(process.execPath, [BIN, 'events', 'tail', '--url', base, '--token', token, '--recent', '1'], {
      env: childEnv(dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await new Promise((resolve, reject) => {
      child.stdout.once('data', resolve);
      exited.then((code) => reject(new Error(`events tail exited (${code}) before printing: ${stderr}`)));
    });
    return { exited, stderr: () => stderr, kill: () => child.kill() };
  }

  it('ends the streams the token opened and refuses its earlier tickets; another token streams on', async () => {
    const [watcher, ops] = [await createToken('watcher'), await createToken('ops')];
    server = await startHttpServer(dir);
    const base = server.url;
    const events = await follow(`${base}/v1/events`, watcher);
    const ui = await follow(`${base}/v1/ui/events?ticket=${await ticket(base, watcher)}`);
    const spare = await ticket(base, watcher);
    const other = await follow(`${base}/v1/events`, ops);
    // A call to replay, so `events tail --recent 1` prints once its stream is open.
    await expectLive(base, ops, other);
    const tailing = await tail(base, watcher);

    try {
      const revoked = await runCli(dir, ['token', 'revoke', 'watcher']);
      expect(revoked.code, revoked.stderr).toBe(0);

      expectEndedByRevocation(await events.ended());
      expectEndedByRevocation(await ui.ended());
      // The CLI says why its stream ended, and fails.
      expect(await tailing.exited).toBe(1);
      expect(tailing.stderr()).toContain('ended the stream: The token that opened this stream was revoked');
      await expectRefused(base, spare);
      await expectLive(base, ops, other);
    } finally {
      tailing.kill();
    }
  });
});

describe('revoking a token on one instance (Redis) while its streams are on another', () => {
  const hubs: TestHub[] = [];
  const servers: HttpHandle[] = [];
  let first: Awaited<ReturnType<typeof openTestStore>>;
  let a: string;
  let b: string;
  const ops = 'sb_ops-secret';

  async function instance(store: RedisStore): Promise<string> {
    const hub = await testHub({ store });
    const http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
    hubs.push(hub);
    servers.push(http);
    return http.url;
  }

  beforeAll(async () => {
    first = await openTestStore();
    a = await instance(first);
    b = await instance(await RedisStore.open({ url: first.url, prefix: first.prefix }));
    await first.tokens.create({ name: 'ops', hash: hashToken(ops), roles: ['admin'], expiresAt: null });
    for (const base of [a, b]) await accepted(base, ops);
  });
  afterAll(async () => {
    for (const http of servers) await http.close();
    for (const hub of hubs) await hub.close();
    await first?.drop();
  });

  it('ends its streams on the other instance and refuses there a ticket issued before', async () => {
    const watcher = 'sb_watcher-secret';
    await first.tokens.create({ name: 'watcher', hash: hashToken(watcher), roles: ['admin'], expiresAt: null });
    for (const base of [a, b]) await accepted(base, watcher);

    // Streams on B: one with the token, one through a ticket A issued; a second ticket from A is kept for later.
    const events = await follow(`${b}/v1/events`, watcher);
    const ui = await follow(`${b}/v1/ui/events?ticket=${await ticket(a, watcher)}`);
    const spare = await ticket(a, watcher);
    const other = await follow(`${b}/v1/events`, ops);

    const res = await fetch(`${a}/v1/tools/system__tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ops}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'revoke', name: 'watcher' }),
    });
    expect(res.status, await res.clone().text()).toBe(200);

    expectEndedByRevocation(await events.ended());
    expectEndedByRevocation(await ui.ended());
    await expectRefused(b, spare);
    await expectLive(b, ops, other);
  });

  it('ends the streams of a token when it expires, with nobody revoking it', async () => {
    const brief = 'sb_brief-secret';
    const expiresAt = new Date(Date.now() + 2_000).toISOString();
    await first.tokens.create({ name: 'brief', hash: hashToken(brief), roles: ['admin'], expiresAt });
    for (const base of [a, b]) await accepted(base, brief);
    const events = await follow(`${b}/v1/events`, brief);
    const ui = await follow(`${b}/v1/ui/events?ticket=${await ticket(a, brief)}`);
    expectEndedByRevocation(await events.ended(2_000 + END_WITHIN_MS));
    expectEndedByRevocation(await ui.ended());
  });
});
