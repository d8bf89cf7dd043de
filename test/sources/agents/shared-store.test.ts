// Sessions in a shared store (Redis): the session lives there and not in the project, a turn that lost its lock to
// another instance stops writing, and a session started on another machine is not resumed where its directory
// is missing.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { BusEvent } from '../../../src/core/context.ts';
import type { RedisStore } from '../../../src/store/redis/index.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import type { TestHub } from '../../helpers/hub.ts';
import { dropPrefix, REDIS_URL, testPrefix } from '../../helpers/redis.ts';
import { until } from '../../helpers/until.ts';
import { sessionMeta } from '../../store/agent-sessions-contract.ts';
import { agentHub } from './agent-hub.ts';

let api: FakeAnthropic | undefined;
let hub: TestHub | undefined;
let prefix: string | undefined;
afterEach(async () => {
  await hub?.close();
  await api?.close();
  if (prefix) await dropPrefix(REDIS_URL, prefix);
  hub = api = prefix = undefined;
});

async function redisAgentHub(extra = ''): Promise<{ hub: TestHub; store: RedisStore }> {
  api = await startFakeAnthropic();
  prefix = testPrefix();
  hub = await agentHub({
    anthropic: api.url,
    config: `[agents]\ndefault_provider = "anthropic"\nmax_output_chars = 100\n[store]\nkind = "redis"\nurl = "${REDIS_URL}"\nprefix = "${prefix}"\n${extra}`,
  });
  return { hub, store: hub.services.store as unknown as RedisStore };
}

it('keeps the session in Redis only: meta and transcript there, no files in the project, the cut note says where', async () => {
  const { hub, store } = await redisAgentHub();
  api?.enqueue('x'.repeat(150));
  const out = await hub.value('agent.start', { session_name: 'shared', prompt: 'hello' });
  expect(out.content).toMatch(/The whole answer is in the session's transcript in Redis \(.*asession:log:shared;/);
  expect(existsSync(join(hub.dir, '.switchboard/sessions'))).toBe(false);
  expect(await store.agentSessions.get('shared')).toMatchObject({
    schema_version: 1,
    session_name: 'shared',
    status: 'completed',
    provider: 'anthropic',
    last_result: { content: 'x'.repeat(150) },
  });
  const { events } = await store.agentSessions.transcript('shared');
  expect(events.map((e) => e.type)).toEqual(['turn_start', 'message', 'message', 'turn_end']);
  expect(await store.agentSessions.lockOwner('shared')).toBeUndefined();
});

it('a turn whose lock another instance took over stops, and writes neither transcript nor meta after that', async () => {
  const { hub, store } = await redisAgentHub('[system]\ninstance_ttl_ms = 600');
  const ended = new Promise<BusEvent>((resolve) => {
    hub.services.bus.subscribe((e) => {
      if (e.type === 'agent.turn' && e.session === 'stolen' && e.status !== 'running') resolve(e);
    });
  });
  api?.enqueue({ content: [{ type: 'text', text: 'too late' }], delayMs: 60_000 });
  await hub.value('agent.start', { session_name: 'stolen', prompt: 'slow', async: true });
  await until(() => api?.messages().length !== 0, { what: 'the turn to reach the API' });
  // What another instance does after this one's lease ran out (a long pause, a partition): it takes the lock.
  await store.client.del(`${store.prefix}asession:turn:stolen`);
  await store.agentSessions.lock('stolen', 'other-instance', 60_000);
  const before = (await store.agentSessions.transcript('stolen')).events;

  expect(await ended).toMatchObject({ status: 'interrupted' });
  // The renewal found the lock gone and stopped the turn; its last writes were fenced off.
  expect((await store.agentSessions.transcript('stolen')).events).toEqual(before);
  expect(before.some((e) => e.type === 'turn_end')).toBe(false);
  expect(await store.agentSessions.get('stolen')).toMatchObject({ status: 'running' });
  expect(await store.agentSessions.lockOwner('stolen')).toMatchObject({ owner: 'other-instance', alive: true });
  expect(await hub.value('agent.status', { session_name: 'stolen' })).toMatchObject({ running: true });
}, 30_000);

it('refuses to resume a session whose directory is not on this machine, when the turn would work in it', async () => {
  const { hub, store } = await redisAgentHub();
  // A session another machine started, in its own checkout, with the shell tool.
  const meta = {
    ...sessionMeta('elsewhere', 'completed'),
    project_dir: '/nowhere/on/this/machine',
    options: {
      structured_output_retries: 2,
      tools: [],
      enable_builtins: true,
      builtin_config: { enable_shell: true, shell_timeout_secs: 30 },
    },
  };
  await store.agentSessions.create(meta);
  const out = await hub.call('agent.resume', { session_name: 'elsewhere', prompt: 'go on' });
  expect(out).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  expect(!out.ok && out.error.message).toBe(
    "Session 'elsewhere' works in /nowhere/on/this/machine, which is not a directory on this Switchboard instance (it was started on another machine). Resume it through an instance that has that directory.",
  );
  expect(await store.agentSessions.lockOwner('elsewhere')).toBeUndefined();
  expect(api?.messages()).toHaveLength(0);
});
