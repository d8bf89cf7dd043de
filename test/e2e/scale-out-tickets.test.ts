// The dashboard's event-stream tickets across two instances on one Redis (behind a balancer without affinity the
// ticket is asked of one instance and the stream opened on another): any instance redeems a ticket once, for the
// caller who asked. Expiry on the shared store is tested in process with a short life (test/serve/dashboard-tickets).
import { describe, expect, it } from 'vitest';
import { runCli, startHttpServer } from '../helpers/cli.ts';
import { cleanedAfterEach, REDIS_URL, redisProject, testPrefix } from '../helpers/redis.ts';
import { eventAfter } from '../helpers/sse.ts';

describe('dashboard tickets across two instances on one Redis', () => {
  const { servers, dirs, prefixes } = cleanedAfterEach();

  it('a ticket from A opens the stream on B, filtered for its caller, once; then it is refused everywhere', async () => {
    const prefix = testPrefix();
    prefixes.push(prefix);
    const dir = redisProject(REDIS_URL, prefix);
    dirs.push(dir);
    const token = async (name: string, roles: string) => {
      const out = await runCli(dir, ['token', 'create', name, '--roles', roles, '--json']);
      expect(out.code, out.stderr).toBe(0);
      return JSON.parse(out.stdout).token as string;
    };
    const admin = await token('ops', 'admin');
    const agent = await token('worker', 'agent');
    const [a, b] = await Promise.all([startHttpServer(dir), startHttpServer(dir)]);
    servers.push(a, b);

    const ticketFrom = async (base: string, bearer: string) => {
      const res = await fetch(`${base}/v1/ui/ticket`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}` },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { ticket: string }).ticket;
    };
    const callOnA = (bearer: string, name: string) =>
      fetch(`${a.url}/v1/tools/${name}`, { method: 'POST', headers: { authorization: `Bearer ${bearer}` } });

    const ticket = await ticketFrom(a.url, agent);
    // The stream on B carries the agent's own call made on A (the shared bus), not the admin's before it.
    const { event } = await eventAfter(
      `${b.url}/v1/ui/events?ticket=${ticket}`,
      async () => {
        await callOnA(admin, 'system.health');
        await callOnA(agent, 'task.list');
      },
      (e) => e.type === 'call',
      10_000,
    );
    expect(event).toMatchObject({ principal: 'worker', name: 'task.list' });
    for (const base of [b.url, a.url]) expect((await fetch(`${base}/v1/ui/events?ticket=${ticket}`)).status).toBe(401);

    // The other way round, raced: a ticket from B redeemed on both at once opens exactly one stream.
    const raced = await ticketFrom(b.url, admin);
    const controller = new AbortController();
    const opened = await Promise.all(
      [a.url, b.url].map((base) => fetch(`${base}/v1/ui/events?ticket=${raced}`, { signal: controller.signal })),
    );
    expect(opened.map((r) => r.status).sort()).toEqual([200, 401]);
    controller.abort();
    // A made-up ticket, and the token itself in the URL, open nothing.
    expect((await fetch(`${b.url}/v1/ui/events?ticket=${admin}`)).status).toBe(401);
  }, 60_000);
});
