// The agent session contract suite: the embedded files (`AgentSessionFiles`) and the Redis part must pass it
// unchanged.
// It uses only the AgentSessionStore interface, plus one hook per implementation that leaves a lock behind whose
// holder is gone (a dead process for files, a lease run out for Redis), so it pins behaviour, not storage.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentSessionRecord, AgentSessionStore } from '../../src/store/contract.ts';

export interface SessionStoreUnderTest {
  sessions: AgentSessionStore;
  /** Leave `name` locked by `owner`, a holder that is gone (crashed process, expired lease). */
  staleLock(name: string, owner: string): Promise<void>;
  close(): Promise<void>;
}

/** A session meta of the shape the agents room writes (the store keeps it verbatim). */
export function sessionMeta(name: string, status = 'running'): AgentSessionRecord & Record<string, unknown> {
  return {
    schema_version: 1,
    session_name: name,
    agent: null,
    provider: 'anthropic',
    model: 'claude-test',
    project_dir: '/nowhere',
    created_at: '2030-01-01T00:00:00.000Z',
    last_resumed_at: null,
    status,
    provider_session_id: null,
    usage: { input_tokens: 0, output_tokens: 0 },
    turns: 0,
    tool_calls: 0,
    options: { structured_output_retries: 2, tools: [], enable_builtins: false, builtin_config: {} },
  };
}

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected a failure');
}

/**
 * Define the suite for one implementation; `make` returns a fresh, empty store per test.
 *
 * @example
 * agentSessionContract('files', async () => ({ sessions: new AgentSessionFiles(dir, rule), staleLock, close }));
 */
export function agentSessionContract(name: string, make: () => Promise<SessionStoreUnderTest>): void {
  describe(`AgentSessionStore contract: ${name}`, () => {
    let t: SessionStoreUnderTest;
    let s: AgentSessionStore;
    beforeEach(async () => {
      t = await make();
      s = t.sessions;
    });
    afterEach(async () => {
      await t.close();
    });

    it('creates a session once: the name is then taken, with the message that says to resume it', async () => {
      await s.create(sessionMeta('b-one'));
      await s.create(sessionMeta('a-two', 'completed'));
      expect(await s.get('b-one')).toEqual(sessionMeta('b-one'));
      const again = await failure(s.create(sessionMeta('b-one', 'completed')));
      expect(again.code).toBe('CONFLICT');
      expect(again.message).toBe(
        "Session 'b-one' already exists. Continue it with agent__resume {session_name: 'b-one'}, or pick another name.",
      );
      expect((await s.get('b-one'))?.status).toBe('running');
      expect(await s.names()).toEqual(['a-two', 'b-one']);
    });

    it('answers an unknown session: no meta, no transcript, NOT_FOUND for writes', async () => {
      expect(await s.get('ghost')).toBeUndefined();
      expect(await s.transcript('ghost')).toEqual({ events: [], skipped: 0, next: 0 });
      for (const write of [s.put(sessionMeta('ghost')), s.append('ghost', [{ type: 'note' }])]) {
        const err = await failure(write);
        expect(err.code).toBe('NOT_FOUND');
        expect(err.message).toBe(
          "No session 'ghost'. Start it with agent__start, or list sessions with session__list.",
        );
      }
      expect(await s.names()).toEqual([]);
      expect(await s.remove('ghost')).toBe(false);
    });

    it('replaces the meta as a whole, and refuses what is not a meta without writing anything', async () => {
      await s.create(sessionMeta('m'));
      const done = { ...sessionMeta('m', 'completed'), turns: 3, last_result: { content: 'ok' } };
      await s.put(done);
      expect(await s.get('m')).toEqual(done);
      for (const bad of [null, [], 'text', { status: 'x' }, { session_name: '' }]) {
        const err = await failure(s.put(bad as never));
        expect(err.code).toBe('INVALID_INPUT');
      }
      expect(await s.get('m')).toEqual(done);
      expect((await failure(s.get(''))).code).toBe('INVALID_INPUT');
    });

    it('appends events in order, stamped with ts unless they carry one, and reads on from an offset', async () => {
      await s.create(sessionMeta('log'));
      await s.append('log', [
        { type: 'turn_start', prompt: 'hi' },
        { type: 'message', role: 'user' },
      ]);
      const first = await s.transcript('log');
      expect(first.events.map((e) => e.type)).toEqual(['turn_start', 'message']);
      expect(first.events[0].ts).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(first.skipped).toBe(0);
      await s.append('log', [{ type: 'turn_end', ts: '2030-01-01T00:00:00.000Z' }]);
      const rest = await s.transcript('log', first.next);
      expect(rest.events).toEqual([{ type: 'turn_end', ts: '2030-01-01T00:00:00.000Z' }]);
      expect(await s.transcript('log', rest.next)).toEqual({ events: [], skipped: 0, next: rest.next });
      expect((await s.transcript('log')).events).toHaveLength(3);
      await s.append('log', []);
      expect((await s.transcript('log')).events).toHaveLength(3);
    });

    it('appends a batch all or none: one bad event refuses the whole batch', async () => {
      await s.create(sessionMeta('batch'));
      for (const bad of [[{ type: 'ok' }, { no: 'type' }], [{ type: 'ok' }, null], 'not a list']) {
        const err = await failure(s.append('batch', bad as never));
        expect(err.code).toBe('INVALID_INPUT');
      }
      const cyclic: Record<string, unknown> = { type: 'loop' };
      cyclic.self = cyclic;
      expect((await failure(s.append('batch', [{ type: 'fine' }, cyclic as never]))).code).toBe('INVALID_INPUT');
      expect((await s.transcript('batch')).events).toEqual([]);
    });

    it('keeps every batch whole and in order when two writers append at once', async () => {
      await s.create(sessionMeta('busy-log'));
      await Promise.all(
        ['a', 'b'].map(async (w) => {
          for (let i = 0; i < 25; i++)
            await s.append('busy-log', [
              { type: 'first', w, i },
              { type: 'second', w, i },
            ]);
        }),
      );
      const { events } = await s.transcript('busy-log');
      expect(events).toHaveLength(100);
      for (let k = 0; k < events.length; k += 2) {
        expect(events[k]).toMatchObject({ type: 'first' });
        expect(events[k + 1]).toMatchObject({ type: 'second', w: events[k].w, i: events[k].i });
      }
      for (const w of ['a', 'b'])
        expect(events.filter((e) => e.w === w && e.type === 'first').map((e) => e.i)).toEqual(
          Array.from({ length: 25 }, (_, i) => i),
        );
    });

    it('holds one turn at a time: a second lock is the busy error, whoever asks; only the owner renews or unlocks', async () => {
      await s.create(sessionMeta('turn'));
      expect(await s.lockOwner('turn')).toBeUndefined();
      await s.lock('turn', 'inst-a', 30_000);
      expect(await s.lockOwner('turn')).toMatchObject({ owner: 'inst-a', alive: true });
      for (const owner of ['inst-b', 'inst-a']) {
        const err = await failure(s.lock('turn', owner, 30_000));
        expect(err.code).toBe('CONFLICT');
        expect(err.message).toBe(
          "Session 'turn' is running a turn; one session runs one turn at a time. Wait with agent__status {session_name: 'turn', wait_seconds: 60}, or stop it with agent__cancel.",
        );
      }
      expect(await s.renew('turn', 'inst-a', 30_000)).toBe(true);
      expect(await s.renew('turn', 'inst-b', 30_000)).toBe(false);
      await s.unlock('turn', 'inst-b');
      expect(await s.lockOwner('turn')).toMatchObject({ owner: 'inst-a', alive: true });
      await s.unlock('turn', 'inst-a');
      expect(await s.lockOwner('turn')).toBeUndefined();
      expect(await s.renew('turn', 'inst-a', 30_000)).toBe(false);
      await s.lock('turn', 'inst-b', 30_000);
      expect(await s.lockOwner('turn')).toMatchObject({ owner: 'inst-b', alive: true });
    });

    it('takes over a lock whose holder is gone; the old holder can then neither renew nor write', async () => {
      await s.create(sessionMeta('stale'));
      await t.staleLock('stale', 'inst-dead');
      expect(await s.lockOwner('stale')).toMatchObject({ owner: 'inst-dead', alive: false });
      await s.lock('stale', 'inst-live', 30_000);
      expect(await s.lockOwner('stale')).toMatchObject({ owner: 'inst-live', alive: true });
      expect(await s.renew('stale', 'inst-dead', 30_000)).toBe(false);
      const late = await failure(s.append('stale', [{ type: 'late' }], { holder: 'inst-dead' }));
      expect(late.code).toBe('CONFLICT');
      expect(late.message).toContain("Session 'stale': this turn");
      expect(late.message).toContain('no longer holds the session');
      expect((await failure(s.put(sessionMeta('stale', 'completed'), { holder: 'inst-dead' }))).code).toBe('CONFLICT');
      expect((await s.get('stale'))?.status).toBe('running');
      expect((await s.transcript('stale')).events).toEqual([]);
    });

    it('fences writes by the lock holder, and releases the lock with the last meta in one step', async () => {
      await s.create(sessionMeta('fenced'));
      await s.lock('fenced', 'inst-a', 30_000);
      await s.append('fenced', [{ type: 'turn_start' }], { holder: 'inst-a' });
      expect((await failure(s.append('fenced', [{ type: 'x' }], { holder: 'inst-b' }))).code).toBe('CONFLICT');
      await s.put(sessionMeta('fenced', 'completed'), { holder: 'inst-a', release: true });
      expect((await s.get('fenced'))?.status).toBe('completed');
      expect(await s.lockOwner('fenced')).toBeUndefined();
      expect((await s.transcript('fenced')).events.map((e) => e.type)).toEqual(['turn_start']);
    });

    it('removes a session with its transcript and lock, but never while a live turn holds it', async () => {
      await s.create(sessionMeta('gone'));
      await s.append('gone', [{ type: 'turn_start' }]);
      await s.lock('gone', 'inst-a', 30_000);
      const err = await failure(s.remove('gone'));
      expect(err.code).toBe('CONFLICT');
      expect(err.message).toBe("Session 'gone' is running a turn; stop it with agent__cancel before cleaning it.");
      expect(await s.get('gone')).toBeDefined();
      await t.staleLock('gone', 'inst-dead');
      expect(await s.remove('gone')).toBe(true);
      expect(await s.get('gone')).toBeUndefined();
      expect(await s.lockOwner('gone')).toBeUndefined();
      expect(await s.transcript('gone')).toEqual({ events: [], skipped: 0, next: 0 });
      expect(await s.names()).toEqual([]);
      // The name is free again, with an empty transcript.
      await s.create(sessionMeta('gone'));
      expect((await s.transcript('gone')).events).toEqual([]);
    });

    it('refuses a lease that is not a positive whole number of ms', async () => {
      await s.create(sessionMeta('ttl'));
      for (const ttl of [0, -5, 1.5, Number.NaN])
        expect((await failure(s.lock('ttl', 'inst-a', ttl))).code).toBe('INVALID_INPUT');
      expect(await s.lockOwner('ttl')).toBeUndefined();
    });
  });
}
