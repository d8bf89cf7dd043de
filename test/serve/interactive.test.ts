// A capability declared `interactive` (it may answer inputRequired) is routed to the SDK before it runs, on a 2025
// session and on stateless 2026-07-28 HTTP, driven by the official SDK client: each round runs the handler body once,
// a call of it through catalog.call is routed alike, one that asks without the declaration fails INTERNAL having run
// once, and no registry entry changes (they are frozen here: a write at run time would fail the call).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability, inputRequired } from '../../src/core/capability.ts';
import type { Entry } from '../../src/core/registry.ts';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { ASK_NAME, acceptedName } from '../helpers/ask-name.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';

let hub: TestHub;
let http: HttpHandle;
const runs = { greet: 0, undeclared: 0 };
const watched: { entry: Entry; before: Entry }[] = [];

beforeAll(async () => {
  hub = await testHub();
  const r = hub.services.registry;
  r.add(
    defineCapability({
      name: 'ask.greet',
      description: 'Asks for a name through inputRequired, then greets.',
      input: z.object({}),
      interactive: true,
      handle: (_input, ctx) => {
        runs.greet++;
        const name = acceptedName(ctx);
        if (name) return `Hello, ${name}!`;
        return inputRequired({ name: ASK_NAME }, 'asked');
      },
    }),
  );
  r.add(
    defineCapability({
      name: 'ask.undeclared',
      description: 'Asks for a name through inputRequired without declaring interactive.',
      input: z.object({}),
      handle: () => {
        runs.undeclared++;
        return inputRequired({ name: ASK_NAME });
      },
    }),
  );
  for (const name of ['ask.greet', 'ask.undeclared', 'catalog.call']) {
    const entry = r.get(name)!;
    watched.push({ entry, before: { ...entry } });
    Object.freeze(entry);
    Object.freeze(entry.capability);
    Object.freeze(entry.tool);
  }
  http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  for (const { entry, before } of watched) expect(entry).toEqual(before);
  await http?.close();
  await hub?.close();
});

const text = (result: { content?: unknown }) => (result.content as { text: string }[])[0]?.text;

const eras = [
  { label: 'a 2025-11-25 session', options: {}, name: 'Ada' },
  {
    label: 'stateless 2026-07-28 HTTP',
    options: { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    name: 'Grace',
  },
] as const;

for (const era of eras)
  describe(`an interactive capability over ${era.label}`, () => {
    let client: Client;
    let transport: StreamableHTTPClientTransport;
    beforeAll(async () => {
      client = new Client({ name: 't', version: '1.0.0' }, {
        capabilities: { elicitation: {} },
        ...era.options,
      } as any);
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: era.name } }));
      transport = new StreamableHTTPClientTransport(new URL(`${http.url}/mcp`));
      await client.connect(transport);
    });
    afterAll(async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    });

    it('runs its body once per round, the first call and every later one', async () => {
      for (let call = 1; call <= 2; call++) {
        const before = runs.greet;
        expect(text(await client.callTool({ name: 'ask__greet', arguments: {} }))).toBe(`Hello, ${era.name}!`);
        expect(runs.greet - before).toBe(2); // the asking round, then the answering one
      }
    });

    it('is routed alike when called through catalog.call', async () => {
      const before = runs.greet;
      const result = await client.callTool({ name: 'catalog__call', arguments: { name: 'ask__greet', arguments: {} } });
      expect(text(result)).toBe(`Hello, ${era.name}!`);
      expect(runs.greet - before).toBe(2);
    });

    it('fails a capability that asks without declaring interactive, having run it once', async () => {
      const before = runs.undeclared;
      const result = await client.callTool({ name: 'ask__undeclared', arguments: {} });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain(
        'ask__undeclared asked the client for input (inputRequired) but is not declared interactive',
      );
      expect(result._meta).toMatchObject({ 'switchboard/error': { code: 'INTERNAL' } });
      expect(runs.undeclared - before).toBe(1);
    });
  });
