import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startHttpServer } from '../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { gate } from '../helpers/gate.ts';
import { cleanedAfterEach, REDIS_URL, redisProject, testPrefix } from '../helpers/redis.ts';
import { until } from '../helpers/until.ts';

type ToolResult = { structuredContent?: Record<string, any>; isError?: boolean; content?: { text?: string }[] };
const text = (r: ToolResult) => (r.content ?? []).map((c) => c.text).join('\n');

const cli = (dir: string, args: string[], env: Record<string, string>) => runCli(dir, args, { env });

/** A stateless REST call to one instance: the status code and the tool result. */
async function post(base: string, tool: string, body: unknown): Promise<ToolResult & { status: number }> {
  const res = await fetch(`${base}/v1/tools/${tool}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reply = (await res.json()) as Record<string, any>;
  // A plain value comes as the body itself; a raw tool result (failed turns, cut answers) as {content, structuredContent}.
  if (res.ok && !Array.isArray(reply.content)) return { status: res.status, structuredContent: reply };
  return { status: res.status, ...(reply as ToolResult) };
}

describe('agent sessions across two instances with separate project directories on one Redis', () => {
  let api: FakeAnthropic;
  const { servers, dirs, prefixes } = cleanedAfterEach();
  beforeAll(async () => {
    api = await startFakeAnthropic();
  });
  afterAll(async () => {
    await api?.close();
  });
  /** A project on the shared prefix with its own copy of the helper agent (each machine has its checkout). */
  function project(prefix: string): string {
    const dir = redisProject(REDIS_URL, prefix);
    dirs.push(dir);
    mkdirSync(join(dir, '.switchboard/agents/helper'), { recursive: true });
    writeFileSync(
      join(dir, '.switchboard/agents/helper/agent.json'),
      JSON.stringify({ name: 'helper', description: 'Helps', provider: 'anthropic' }),
    );
    return dir;
  }

  async function twoMachines() {
    const prefix = testPrefix();
    prefixes.push(prefix);
    const dirA = project(prefix);
    const dirB = project(prefix);
    const env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' };
    const [a, b] = await Promise.all([startHttpServer(dirA, [], env), startHttpServer(dirB, [], env)]);
    servers.push(a, b);
    return { a, b, dirA, dirB, env };
  }

  /** Wait until the fake API has received `n` more requests than `before`. */
  async function requestsReach(n: number): Promise<void> {
    await until(() => api.messages().length >= n, { timeoutMs: 10_000, what: `${n} requests to the API` });
    expect(api.messages().length).toBe(n);
  }

  it('starts on A; status, result and list on B; resumes on B with the whole conversation; B cancels a turn A runs', async () => {
    const { a, b, dirA, dirB, env } = await twoMachines();
    // The model answers when the test opens the gate: the turn runs on A until then, however slow the machine.
    const model = gate();
    api.enqueue({ content: [{ type: 'text', text: 'Done on A.' }], hold: model.opened });
    const started = await post(a.url, 'agent__start', {
      session_name: 'bg',
      agent_name: 'helper',
      prompt: 'first job',
      async: true,
    });
    expect(started.structuredContent).toMatchObject({ status: 'running' });
    expect((await post(b.url, 'agent__result', { session_name: 'bg' })).structuredContent).toMatchObject({
      status: 'running',
    });
    const waiting = post(b.url, 'agent__status', { session_name: 'bg', wait_seconds: 20 });
    model.open();
    const waited = await waiting;
    expect(waited.structuredContent).toMatchObject({
      status: 'completed',
      running: false,
      usage: { input_tokens: 10 },
    });
    expect((await post(b.url, 'agent__result', { session_name: 'bg' })).structuredContent).toMatchObject({
      status: 'completed',
      content: 'Done on A.',
    });
    const listed = await post(b.url, 'session__list', { response_format: 'json' });
    expect(listed.structuredContent).toMatchObject({
      total: 1,
      sessions: [{ session_name: 'bg', agent: 'helper', status: 'completed', project_dir: dirA }],
    });

    // Resume through B: B has never run this session, and its model call carries the conversation from Redis.
    api.enqueue('Second answer, from B.');
    const resumed = await post(b.url, 'agent__resume', { session_name: 'bg', prompt: 'second job' });
    expect(resumed.structuredContent).toMatchObject({ status: 'completed', content: 'Second answer, from B.' });
    expect(api.messages().at(-1)?.body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'first job' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done on A.' }] },
      { role: 'user', content: [{ type: 'text', text: 'second job' }] },
    ]);
    expect((await post(a.url, 'agent__result', { session_name: 'bg' })).structuredContent).toMatchObject({
      content: 'Second answer, from B.',
    });

    // The CLI on either machine reads the shared session; neither project has session files.
    const tail = await cli(dirA, ['sessions', 'tail', 'bg', '--json', '-n', '100'], env);
    expect(tail.code, tail.stderr).toBe(0);
    const types = tail.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).type);
    expect(types.filter((t) => t === 'turn_start')).toHaveLength(2);
    expect(types.at(-1)).toBe('turn_end');
    const show = await cli(dirB, ['sessions', 'show', 'bg', '--json'], env);
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ meta: { status: 'completed', turns: 2 }, events: types.length });
    for (const dir of [dirA, dirB]) expect(existsSync(join(dir, '.switchboard/sessions'))).toBe(false);

    // A turn that would take a minute, started on A, cancelled through B: A stops it.
    const before = api.messages().length;
    api.enqueue({ content: [{ type: 'text', text: 'never' }], delayMs: 60_000 });
    await post(a.url, 'agent__start', { session_name: 'long', agent_name: 'helper', prompt: 'slow', async: true });
    await requestsReach(before + 1);
    expect((await post(b.url, 'agent__status', { session_name: 'long' })).structuredContent).toMatchObject({
      running: true,
    });
    // A second turn on a running session is the usual clear error, through either instance.
    const busy = await post(b.url, 'agent__resume', { session_name: 'long', prompt: 'me too' });
    expect(busy.status).toBe(409);
    expect(JSON.stringify(busy)).toContain(
      "Session 'long' is running a turn; one session runs one turn at a time. Wait with agent__status",
    );
    const cancelled = await post(b.url, 'agent__cancel', { session_name: 'long' });
    expect(cancelled.isError, text(cancelled)).toBeFalsy();
    expect(cancelled.structuredContent).toMatchObject({ cancelled: true, status: 'cancelled' });
    expect((await post(a.url, 'agent__status', { session_name: 'long' })).structuredContent).toMatchObject({
      status: 'cancelled',
      running: false,
    });
    // Nothing holds the session any more: a clean through B succeeds, and A no longer knows it.
    expect((await post(b.url, 'session__clean', { session_name: 'long' })).structuredContent).toMatchObject({
      removed: ['long'],
    });
    expect((await post(a.url, 'agent__status', { session_name: 'long' })).status).toBe(404);
  }, 90_000);

  it('an instance killed mid-turn: the session reads interrupted with the reason once its lease ends, and resumes on B', async () => {
    const { a, b } = await twoMachines();
    const before = api.messages().length;
    api.enqueue({ content: [{ type: 'text', text: 'never arrives' }], delayMs: 60_000 });
    await post(a.url, 'agent__start', { session_name: 'crash', agent_name: 'helper', prompt: 'long job', async: true });
    await requestsReach(before + 1);
    expect((await post(b.url, 'agent__status', { session_name: 'crash' })).structuredContent).toMatchObject({
      running: true,
    });
    const killed = new Promise((r) => a.child.once('exit', r));
    a.child.kill('SIGKILL');
    await killed;
    servers.splice(servers.indexOf(a), 1);

    // The lease is 3 s (instance_ttl_ms): waiting on B ends when it runs out, not after the 20 s asked for.
    const waited = await post(b.url, 'agent__status', { session_name: 'crash', wait_seconds: 20 });
    expect(waited.structuredContent).toMatchObject({ status: 'interrupted', running: false });
    expect(waited.structuredContent?.error).toMatch(
      /^The turn was interrupted: the Switchboard instance \d+-[0-9a-f]{8} that ran it stopped before the turn ended/,
    );
    const result = await post(b.url, 'agent__result', { session_name: 'crash' });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("Session 'crash' turn interrupted: The turn was interrupted");

    api.enqueue('Done after the crash, on B.');
    const resumed = await post(b.url, 'agent__resume', { session_name: 'crash', prompt: 'try again' });
    expect(resumed.structuredContent).toMatchObject({ status: 'completed', content: 'Done after the crash, on B.' });
    // The crashed turn's prompt was stored before A died: the model sees it, followed by the new one.
    expect(api.messages().at(-1)?.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'long job' },
          { type: 'text', text: 'try again' },
        ],
      },
    ]);
  }, 90_000);

  it('bad input on Redis: a bad session name, an unknown session and a taken name get the usual clear errors', async () => {
    const { a, b } = await twoMachines();
    const bad = await post(b.url, 'agent__status', { session_name: 'no spaces' });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad)).toContain(
      'Session name can only contain alphanumeric characters, dashes, and underscores',
    );
    const unknown = await post(b.url, 'agent__result', { session_name: 'ghost' });
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(unknown)).toContain(
      "No session 'ghost'. Start it with agent__start, or list sessions with session__list.",
    );
    expect((await post(a.url, 'agent__resume', { session_name: 'ghost', prompt: 'hi' })).status).toBe(404);
    api.enqueue('hello');
    await post(a.url, 'agent__start', { session_name: 'taken', agent_name: 'helper', prompt: 'hi' });
    const again = await post(b.url, 'agent__start', { session_name: 'taken', agent_name: 'helper', prompt: 'hi' });
    expect(again.status).toBe(409);
    expect(JSON.stringify(again)).toContain("Session 'taken' already exists. Continue it with agent__resume");
  }, 60_000);
});
