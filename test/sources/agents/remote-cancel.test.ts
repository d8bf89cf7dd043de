// agent.cancel of a turn another process runs: without a shared bus (SQLite) it says where the turn runs; on
// Redis it asks over the bus, and when no instance there stops the turn it says so after a bounded wait.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REMOTE_CANCEL_WAIT_MS } from '../../../src/sources/agents/remote-cancel.ts';
import { RedisStore } from '../../../src/store/redis/index.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../../helpers/fake-anthropic.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';
import { dropPrefix, REDIS_URL, testPrefix } from '../../helpers/redis.ts';
import { until } from '../../helpers/until.ts';
import { sessionMeta } from '../../store/agent-sessions-contract.ts';
import { agentHub } from './agent-hub.ts';

let api: FakeAnthropic;
beforeAll(async () => {
  api = await startFakeAnthropic();
});
afterAll(async () => {
  await api?.close();
});

it('from another SQLite hub on the project there is no way to reach the turn: CONFLICT names its process', async () => {
  const local = await agentHub({
    anthropic: api.url,
    agents: { helper: { json: { name: 'helper', description: 'Helps', provider: 'anthropic' } } },
  });
  try {
    const before = api.messages().length;
    api.enqueue({ content: [{ type: 'text', text: 'never' }], delayMs: 60_000 });
    await local.value('agent.start', { session_name: 'held', agent_name: 'helper', prompt: 'slow', async: true });
    await until(() => api.messages().length > before, { timeoutMs: 5_000, what: 'the turn to reach the API' });
    const sqliteHub = await testHub({ cwd: local.dir, env: { ...process.env } });
    try {
      expect(await sqliteHub.value('agent.status', { session_name: 'held' })).toMatchObject({ running: true });
      const conflict = await sqliteHub.call('agent.cancel', { session_name: 'held' });
      expect(conflict).toMatchObject({ ok: false, error: { code: 'CONFLICT' } });
      expect(!conflict.ok && conflict.error.message).toBe(
        `Session 'held' runs in another Switchboard process (process ${process.pid}); cancel it there.`,
      );
    } finally {
      await sqliteHub.close();
    }
    expect(await local.value('agent.cancel', { session_name: 'held' })).toMatchObject({
      cancelled: true,
      status: 'cancelled',
    });
  } finally {
    await local.close();
  }
}, 30_000);

it('asks over the Redis bus and answers UNAVAILABLE, naming the session and instance, when nobody stops the turn', async () => {
  const prefix = testPrefix();
  const owner = await RedisStore.open({ url: REDIS_URL, prefix });
  let shared: TestHub | undefined;
  try {
    // A turn held by an instance that is alive (its lease is fresh) but does not hear the bus.
    await owner.agentSessions.create(sessionMeta('held'));
    await owner.agentSessions.lock('held', 'deaf-instance', 60_000);
    shared = await testHub({ store: await RedisStore.open({ url: REDIS_URL, prefix }), env: { ...process.env } });
    expect(await shared.value('agent.status', { session_name: 'held' })).toMatchObject({ running: true });
    const t0 = Date.now();
    const out = await shared.call('agent.cancel', { session_name: 'held' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(REMOTE_CANCEL_WAIT_MS - 200);
    expect(out).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
    expect(!out.ok && out.error.message).toContain(
      "Asked the Switchboard instance running session 'held' (instance deaf-instance) to cancel its turn",
    );
    expect(!out.ok && out.error.message).toContain('still running after 10 s');
    // Nothing changed: the turn still holds the session.
    expect(await shared.value('agent.status', { session_name: 'held' })).toMatchObject({ running: true });
    expect(await owner.agentSessions.lockOwner('held')).toMatchObject({ owner: 'deaf-instance', alive: true });
  } finally {
    await shared?.close();
    await owner.close();
    await dropPrefix(REDIS_URL, prefix);
  }
}, 30_000);
