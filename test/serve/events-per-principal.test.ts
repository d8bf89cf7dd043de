// Who sees whose calls: `switchboard://events` and `system.get_state` apply the dashboard stream's rule
// (src/observe/event-view.ts) — a non-admin sees only its own call summaries and no hub-wide operator events, an admin
// sees everyone's. Over real HTTP with tokens, through the official MCP SDK client.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/policy/tokens.ts';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { until } from '../helpers/until.ts';

let hub: TestHub;
let http: HttpHandle;
const clients: Record<'alice' | 'bob' | 'ops', Client> = {} as never;

beforeAll(async () => {
  hub = await testHub();
  const roles = { alice: ['agent'], bob: ['agent'], ops: ['admin', 'agent'] };
  for (const [name, granted] of Object.entries(roles))
    await hub.services.store.tokens.create({
      name,
      hash: hashToken(`sb_${name}-secret`),
      roles: granted,
      expiresAt: null,
    });
  http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
  for (const name of Object.keys(roles) as (keyof typeof roles)[]) {
    const client = new Client({ name: `events-${name}`, version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer sb_${name}-secret` } },
      }),
    );
    clients[name] = client;
  }
});
afterAll(async () => {
  for (const client of Object.values(clients)) await client?.close();
  await http?.close();
  await hub?.close();
});

type Seen = { event: { type: string; name?: string; principal?: string } };

/** The events a client reads from `switchboard://events` and from `system.get_state`. */
async function views(client: Client): Promise<{ resource: Seen[]; state: Seen[] }> {
  const read = await client.readResource({ uri: 'switchboard://events' });
  const resource = JSON.parse((read.contents[0] as { text: string }).text) as Seen[];
  const state = (await client.callTool({ name: 'system__get_state', arguments: {} })).structuredContent as {
    recentEvents: Seen[];
  };
  return { resource, state: state.recentEvents };
}

const callers = (events: Seen[]) =>
  new Set(events.filter((e) => e.event.type === 'call').map((e) => e.event.principal));
const types = (events: Seen[]) => new Set(events.map((e) => e.event.type));

describe('recent events per principal', () => {
  it('each agent sees only its own calls through the resource and system.get_state; an admin sees all', async () => {
    for (const name of ['alice', 'bob'] as const) {
      const created = await clients[name].callTool({ name: 'task__create', arguments: { text: `${name}'s task` } });
      expect(created.isError, JSON.stringify(created)).toBeFalsy();
    }
    // An operator event: a configuration change, which is for admins only.
    const patched = await clients.ops.callTool({
      name: 'system__config',
      arguments: { action: 'patch', patch: { policy: { timeout_ms: 31_000 } } },
    });
    expect(patched.isError, JSON.stringify(patched)).toBeFalsy();

    // The admin's view holds both agents' calls once they are recorded: only then is their absence elsewhere telling.
    const admin = await until(
      async () => {
        const seen = await views(clients.ops);
        const all = [...seen.resource, ...seen.state];
        return callers(all).has('alice') && callers(all).has('bob') && types(all).has('config.changed') && seen;
      },
      { what: "both agents' calls and the configuration change in the admin's views" },
    );
    for (const events of [admin.resource, admin.state]) {
      expect(callers(events)).toEqual(new Set(['alice', 'bob', 'ops']));
      expect(types(events)).toContain('config.changed');
    }

    for (const name of ['alice', 'bob'] as const) {
      const { resource, state } = await views(clients[name]);
      for (const events of [resource, state]) {
        expect(callers(events)).toEqual(new Set([name]));
        expect(types(events)).not.toContain('config.changed');
        // The hub events of the parts it may use stay: the task board's.
        expect(types(events)).toContain('task.changed');
      }
      expect(resource.some((e) => e.event.name === 'task.create')).toBe(true);
    }
  });
});
