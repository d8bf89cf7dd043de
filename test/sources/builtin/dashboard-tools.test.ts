// The admin tools the dashboard calls: system.audit pages the trail by (time, seq) without repeating or skipping a
// record (many in one millisecond included), system.tokens creates and revokes tokens, script.runs stays per
// principal — all through the pipeline, roles checked.
import { afterEach, describe, expect, it } from 'vitest';
import { auditRecord } from '../../helpers/audit.ts';
import { type TestHub, testHub } from '../../helpers/hub.ts';

let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

const agent = { id: 'worker', roles: ['agent'] };

describe('system.audit', () => {
  it('pages newest first through records that share a millisecond, each exactly once', async () => {
    hub = await testHub();
    // 25 records: 10 in one millisecond, the rest a millisecond apart; other principals' calls interleaved.
    const records = Array.from({ length: 25 }, (_, i) =>
      auditRecord(i < 10 ? 0 : i, { principal: 'bulk', requestId: `b${i}` }),
    );
    await hub.services.store.audit.appendMany([...records, auditRecord(5, { principal: 'other' })]);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await hub.value('system.audit', { principal: 'bulk', limit: 4, ...(cursor ? { cursor } : {}) });
      expect(page.records.length).toBeLessThanOrEqual(4);
      seen.push(...page.records.map((r: { requestId: string }) => r.requestId));
      cursor = page.nextCursor ?? undefined;
      if (!cursor) break;
    }
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
    expect(seen.slice(0, 3)).toEqual(['b24', 'b23', 'b22']);
  });

  it('filters by tool name, outcome and time; refuses a made-up cursor and non-admins', async () => {
    hub = await testHub();
    await hub.services.store.audit.appendMany([
      auditRecord(1, { capability: 'task.create' }),
      auditRecord(2, { capability: 'task.create', outcome: 'error', errorCode: 'INVALID_INPUT', errorMessage: 'x' }),
      auditRecord(3, { capability: 'task.list' }),
    ]);
    const errors = await hub.value('system.audit', { tool: 'task__create', outcome: 'error' });
    expect(errors.records.map((r: { requestId: string }) => r.requestId)).toEqual(['r2']);
    const early = await hub.value('system.audit', {
      since: new Date(1_800_000_000_000).toISOString(),
      until: new Date(1_800_000_000_002).toISOString(),
    });
    expect(early.records.map((r: { requestId: string }) => r.requestId)).toEqual(['r1']);
    const bad = await hub.call('system.audit', { cursor: 'nope' });
    expect(bad.ok || bad.error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('cursor') });
    expect((await hub.call('system.audit', {}, agent)).ok).toBe(false);
  });
});

describe('system.tokens', () => {
  it('creates a token whose secret is answered once, lists it without secrets, revokes it', async () => {
    hub = await testHub();
    const made = await hub.value('system.tokens', { action: 'create', name: 'ci', roles: ['agent'], expires: '1d' });
    expect(made.token).toMatch(/^sb_/);
    expect(made.created).toMatchObject({ name: 'ci', roles: ['agent'] });
    const list = await hub.value('system.tokens', {});
    expect(list.tokens).toEqual([expect.objectContaining({ name: 'ci', expired: false })]);
    expect(JSON.stringify(list)).not.toContain(made.token);
    expect(JSON.stringify(list)).not.toContain('hash');
    const noRoles = await hub.call('system.tokens', { action: 'create', name: 'x' });
    expect(noRoles.ok || noRoles.error.message).toContain('needs roles');
    const reserved = await hub.call('system.tokens', { action: 'create', name: 'stdio', roles: ['agent'] });
    expect(reserved.ok || reserved.error.message).toContain('built-in caller');
    await hub.value('system.tokens', { action: 'revoke', name: 'ci' });
    expect((await hub.value('system.tokens', {})).tokens).toEqual([]);
    const gone = await hub.call('system.tokens', { action: 'revoke', name: 'ci' });
    expect(gone.ok || gone.error.code).toBe('NOT_FOUND');
    expect((await hub.call('system.tokens', {}, agent)).ok).toBe(false);
  });
});
