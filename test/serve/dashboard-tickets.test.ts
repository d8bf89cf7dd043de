// Event-stream tickets: single use, short-lived, bound to the principal that asked — in one process's memory, or on
// a shared store (two stores on one Redis prefix standing for two instances), where any instance redeems them once.
import { afterEach, describe, expect, it } from 'vitest';
import { type Config, ConfigSchema } from '../../src/config/schema.ts';
import { effectiveProfile, withProfile } from '../../src/core/profile.ts';
import { makePrincipal } from '../../src/policy/principal.ts';
import { TICKET_TTL_MS, Tickets } from '../../src/serve/dashboard/tickets.ts';
import { twoTestStores } from '../helpers/redis.ts';
import { until } from '../helpers/until.ts';

const ops = { id: 'ops', roles: ['admin'] };
let config: Config = ConfigSchema.parse({
  policy: { tokens: { ci: { expose: { allow: ['task.*', 'system.*'] } } } },
  profiles: { reviewer: { allow: ['task.get', 'system.*'] } },
});

describe('dashboard tickets in memory', () => {
  it('redeem once, for the principal that asked', async () => {
    const tickets = new Tickets({ config: () => config });
    const { ticket } = await tickets.issue({ principal: ops, token: 'f'.repeat(64) }, 1000);
    expect(await tickets.redeem(ticket, 1001)).toEqual({ principal: ops, token: 'f'.repeat(64) });
    expect(await tickets.redeem(ticket, 1002)).toBeUndefined();
  });

  it('expire after their lifetime, and unknown or missing tickets redeem nothing', async () => {
    const tickets = new Tickets({ config: () => config });
    const { ticket } = await tickets.issue({ principal: ops }, 1000);
    expect(await tickets.redeem(ticket, 1000 + TICKET_TTL_MS)).toBeUndefined();
    expect(await tickets.redeem('made-up', 1000)).toBeUndefined();
    expect(await tickets.redeem(null, 1000)).toBeUndefined();
  });
});

describe('dashboard tickets on a shared store', () => {
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  async function twoInstances(ttlMs?: number) {
    const [a, b] = await twoTestStores(cleanup);
    const serveExposure = { deny: ['system.metrics'] };
    const make = (shared: typeof a.shared.tickets) =>
      new Tickets({ shared, config: () => config, exposure: serveExposure, ...(ttlMs ? { ttlMs } : {}) });
    return { a: make(a.shared.tickets), b: make(b.shared.tickets), serveExposure, stores: [a, b] };
  }

  it('a ticket issued on A is redeemed once, on B, as the same caller with the same filters, profile and token', async () => {
    const { a, b, serveExposure } = await twoInstances();
    const ci = withProfile(
      makePrincipal(config, serveExposure, { id: 'ci', roles: ['agent'], kind: 'token' }),
      effectiveProfile(config, 'reviewer')!,
    );
    const { ticket, expiresInMs } = await a.issue({ principal: ci, token: 'c'.repeat(64) });
    expect(expiresInMs).toBe(TICKET_TTL_MS);
    // Both instances redeem at once: one gets the caller.
    const [onA, onB] = await Promise.all([a.redeem(ticket), b.redeem(ticket)]);
    expect([onA, onB].filter(Boolean)).toHaveLength(1);
    // The token it was issued with comes back, so the route can check it was not revoked meanwhile.
    expect((onA ?? onB)?.token).toBe('c'.repeat(64));
    const got = (onA ?? onB)?.principal;
    expect(got).toMatchObject({ id: 'ci', roles: ['agent'], kind: 'token', profile: { name: 'reviewer' } });
    // The rebuilt filters are the caller's: the token's own, serve --except and the profile.
    for (const name of ['task.get', 'task.create', 'system.metrics', 'system.health', 'upstream.x'])
      expect([name, got?.sees?.(name)]).toEqual([name, ci.sees?.(name)]);
    expect(got?.sees?.('task.get')).toBe(true);
    expect(got?.sees?.('task.create')).toBe(false);
    expect(got?.sees?.('system.metrics')).toBe(false);
    expect(await b.redeem(ticket)).toBeUndefined();
    expect(await a.redeem(ticket)).toBeUndefined();
  });

  it('keeps no credential, expires on the store, and refuses a ticket whose profile is gone', async () => {
    const { a, b, stores } = await twoInstances(150);
    const anonymous = makePrincipal(config, undefined, { id: 'anonymous', roles: ['*'], kind: 'anonymous' });
    const { ticket } = await a.issue({ principal: anonymous });
    // What the store holds is who asked, nothing that authenticates.
    const [store] = stores;
    expect(await store!.shared.tickets.take(ticket)).toBe('{"id":"anonymous","roles":["*"],"kind":"anonymous"}');

    // Expiry is the store's: once Redis has dropped the key (150 ms here), no instance redeems the ticket.
    const late = await a.issue({ principal: anonymous });
    await until(async () => (await store!.client.exists(`${store!.prefix}ticket:${late.ticket}`)) === 0, {
      what: 'a 150 ms ticket to expire',
    });
    expect(await b.redeem(late.ticket)).toBeUndefined();

    const reviewer = withProfile(anonymous, effectiveProfile(config, 'reviewer')!);
    const gone = await a.issue({ principal: reviewer });
    const before = config;
    config = ConfigSchema.parse({});
    try {
      expect(await b.redeem(gone.ticket)).toBeUndefined();
    } finally {
      config = before;
    }
  });
});
