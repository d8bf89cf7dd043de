// End-to-end scale-out of long-lived work: two `switchboard serve --http` processes on one Redis and one project
// directory, an official SDK client that picks the instance for every request — a script run started on one is
// continued, polled and finished on the other (also after the instance holding it was killed), and an agent
// session started on one is polled, read and cancelled through the other.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer } from '../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { gate } from '../helpers/gate.ts';
import { cleanedAfterEach, REDIS_URL, redisProject, testPrefix } from '../helpers/redis.ts';
import { until } from '../helpers/until.ts';
import { projectScripts, writeFiles } from '../sources/scripts/helpers.ts';

type ToolResult = { structuredContent?: Record<string, any>; isError?: boolean; content?: { text?: string }[] };
const text = (r: ToolResult) => (r.content ?? []).map((c) => c.text).join('\n');

/** A 2025-era SDK client whose every request goes to the instance `to.url` names at that moment. */
async function pinnedClient(first: string) {
  const to = { url: first };
  const hits: string[] = [];
  const fetchImpl = (input: string | URL | Request, init?: RequestInit) => {
    hits.push(to.url);
    const target = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    target.host = new URL(to.url).host;
    return fetch(target, init);
  };
  const client = new Client({ name: 'e2e-scale-out-runs', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${first}/mcp`), { fetch: fetchImpl });
  await client.connect(transport);
  /** Call a tool through the instance at `url`. */
  const on = async (url: string, name: string, args: Record<string, unknown> = {}) => {
    to.url = url;
    const before = hits.length;
    const result = (await client.callTool({ name, arguments: args })) as ToolResult;
    // The call really went to that instance (and only there).
    expect(new Set(hits.slice(before))).toEqual(new Set([url]));
    return result;
  };
  return { client, transport, on };
}

const TALLY =
  "import { auto, llm } from 'switchboard';\nexport default function* () { yield auto('echo one >> tally.log'); yield llm('first?', { expects: { a: 'an answer' } }); yield auto('echo two >> tally.log'); yield llm('second?'); yield auto('echo three >> tally.log'); }\n";

describe('script runs and agent sessions across two instances on one Redis', () => {
  let api: FakeAnthropic;
  const { servers, dirs, prefixes } = cleanedAfterEach();
  beforeAll(async () => {
    api = await startFakeAnthropic();
  });
  afterAll(async () => {
    await api?.close();
  });
  /** Two instances on one Redis prefix and one project directory (with the tally script and a helper agent). */
  async function twoInstances() {
    const prefix = testPrefix();
    prefixes.push(prefix);
    const dir = redisProject(REDIS_URL, prefix);
    dirs.push(dir);
    projectScripts(dir, { 'nl/tally.md': '# Tally\n', 'compiled/tally.mjs': TALLY });
    writeFiles(join(dir, '.switchboard/agents'), {
      'helper/agent.json': JSON.stringify({ name: 'helper', description: 'Helps', provider: 'anthropic' }),
    });
    const env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' };
    const [a, b] = await Promise.all([startHttpServer(dir, [], env), startHttpServer(dir, [], env)]);
    servers.push(a, b);
    return { a, b, dir };
  }

  it('continues, polls and finishes a script run on whichever instance the next call reaches, running each step once', async () => {
    const { a, b, dir } = await twoInstances();
    const tally = () => readFileSync(join(dir, 'tally.log'), 'utf8');
    const { client, transport, on } = await pinnedClient(a.url);
    try {
      const started = await on(a.url, 'script__start', { name: 'tally' });
      expect(started.structuredContent).toMatchObject({ state: 'llm' });
      const runId = started.structuredContent?.run_id;
      expect(tally()).toBe('one\n');

      // B has never seen the run: it rebuilds it from the journal, for the same session.
      const status = await on(b.url, 'script__status');
      expect(status.structuredContent).toMatchObject({ state: 'llm', run_id: runId });
      expect(text(status)).toContain('first?');
      const bad = await on(b.url, 'script__continue_compiled_script', { outputs: { wrong: 1 } });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toContain('a');

      const second = await on(b.url, 'script__continue_compiled_script', { outputs: { a: 'yes' } });
      expect(text(second)).toContain('second?');
      expect(tally()).toBe('one\ntwo\n');

      // A still holds the run as it was after the start: it must see B moved it on, not answer from that copy.
      const onA = await on(a.url, 'script__status');
      expect(text(onA)).toContain('second?');
      const done = await on(a.url, 'script__continue_compiled_script', { outputs: {} });
      expect(done.structuredContent).toMatchObject({ state: 'finished', run_id: runId });
      expect(tally()).toBe('one\ntwo\nthree\n');
      expect((await on(b.url, 'script__status')).structuredContent).toMatchObject({ state: 'idle' });
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  }, 60_000);

  it('finishes a run through the other instance when the one that started it is killed; run_id works anywhere', async () => {
    const { a, b, dir } = await twoInstances();
    // A stateless caller (REST) starts on A and passes run_id to B.
    let lastStatus = 0;
    const post = async (base: string, tool: string, body: unknown) => {
      const res = await fetch(`${base}/v1/tools/${tool}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      lastStatus = res.status;
      return (await res.json()) as ToolResult;
    };
    const started = await post(a.url, 'script__start', { name: 'tally' });
    const runId = started.structuredContent?.run_id;
    expect(runId).toMatch(/^run-/);

    const killed = new Promise((r) => a.child.once('exit', r));
    a.child.kill('SIGKILL');
    await killed;
    servers.splice(servers.indexOf(a), 1);

    const next = await post(b.url, 'script__continue_compiled_script', { outputs: { a: 'x' }, run_id: runId });
    expect(text(next)).toContain('second?');
    const done = await post(b.url, 'script__continue_compiled_script', { outputs: {}, run_id: runId });
    expect(done.structuredContent).toMatchObject({ state: 'finished', run_id: runId });
    expect(readFileSync(join(dir, 'tally.log'), 'utf8')).toBe('one\ntwo\nthree\n');
    const again = await post(b.url, 'script__status', { run_id: runId });
    expect(lastStatus).toBe(404);
    expect(JSON.stringify(again)).toContain(`No running script run '${runId}'`);
  }, 60_000);

  it('polls, reads and cancels an agent session through the instance that does not run it', async () => {
    const { a, b } = await twoInstances();
    const { client, transport, on } = await pinnedClient(a.url);
    try {
      // The model answers when the test opens the gate: the turn runs on A until then, however slow the machine.
      const model = gate();
      api.enqueue({ content: [{ type: 'text', text: 'Done on A.' }], hold: model.opened });
      const started = await on(a.url, 'agent__start', {
        session_name: 'bg',
        agent_name: 'helper',
        prompt: 'work',
        async: true,
      });
      expect(started.structuredContent).toMatchObject({ status: 'running' });
      const running = await on(b.url, 'agent__result', { session_name: 'bg' });
      expect(running.structuredContent).toMatchObject({ status: 'running' });
      const waiting = on(b.url, 'agent__status', { session_name: 'bg', wait_seconds: 20 });
      model.open();
      const waited = await waiting;
      expect(waited.structuredContent).toMatchObject({ status: 'completed', running: false });
      expect((await on(b.url, 'agent__result', { session_name: 'bg' })).structuredContent).toMatchObject({
        status: 'completed',
        content: 'Done on A.',
      });

      // A turn that would take a minute, started on A, cancelled through B.
      const before = api.messages().length;
      api.enqueue({ content: [{ type: 'text', text: 'never' }], delayMs: 60_000 });
      await on(a.url, 'agent__start', { session_name: 'long', agent_name: 'helper', prompt: 'slow', async: true });
      await until(() => api.messages().length > before, { timeoutMs: 5_000, what: 'the turn to reach the API' });
      expect((await on(b.url, 'agent__status', { session_name: 'long' })).structuredContent).toMatchObject({
        running: true,
      });
      const t0 = Date.now();
      const cancelled = await on(b.url, 'agent__cancel', { session_name: 'long' });
      expect(cancelled.isError, text(cancelled)).toBeFalsy();
      expect(cancelled.structuredContent).toMatchObject({ cancelled: true, status: 'cancelled' });
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect((await on(a.url, 'agent__status', { session_name: 'long' })).structuredContent).toMatchObject({
        status: 'cancelled',
        running: false,
      });
      // Cancelling what no longer runs changes nothing, on either instance.
      expect((await on(b.url, 'agent__cancel', { session_name: 'long' })).structuredContent).toMatchObject({
        cancelled: false,
        status: 'cancelled',
      });
    } finally {
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  }, 60_000);
});
