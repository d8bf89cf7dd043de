// A 2026-07-28 multi-round-trip call across instances: two hubs on one Redis prefix share the requestState
// sealing key, so a state minted by one is accepted by the other; a hub on another prefix (its own key) refuses it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability, inputRequired } from '../../src/core/capability.ts';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { RedisStore } from '../../src/store/redis/index.ts';
import { ASK_NAME, acceptedName } from '../helpers/ask-name.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { REDIS_URL, testPrefix } from '../helpers/redis.ts';
import { rpc2026 } from '../helpers/rpc2026.ts';

const greet = defineCapability({
  name: 'mrtr.greet',
  description: 'Asks for a name through input_required, then greets; keeps state across the round.',
  input: z.object({}),
  interactive: true,
  handle: (_input, ctx) => {
    const name = acceptedName(ctx);
    if (name && ctx.mcp?.requestState === 'asked-once') return `Hello, ${name}!`;
    return inputRequired({ name: ASK_NAME }, 'asked-once');
  },
});

/** One raw 2026-07-28 tools/call of `mrtr__greet` to `base`; answers the JSON-RPC response. */
async function call(base: string, params: Record<string, unknown>) {
  return (await rpc2026(base, 'tools/call', { name: 'mrtr__greet', arguments: {}, ...params })).message;
}

describe('requestState across instances', () => {
  const hubs: TestHub[] = [];
  const https: HttpHandle[] = [];
  const prefix = testPrefix();
  const other = testPrefix();

  async function instance(p: string) {
    const hub = await testHub({ store: await RedisStore.open({ url: REDIS_URL, prefix: p }) });
    hub.services.registry.add(greet);
    const http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
    hubs.push(hub);
    https.push(http);
    return http.url;
  }

  let a: string;
  let b: string;
  let elsewhere: string;
  beforeAll(async () => {
    a = await instance(prefix);
    b = await instance(prefix);
    elsewhere = await instance(other);
  });
  afterAll(async () => {
    for (const h of https) await h.close();
    for (const h of hubs) await h.close();
    for (const p of [prefix, other]) {
      const s = await RedisStore.open({ url: REDIS_URL, prefix: p });
      await s.dropAll();
      await s.close();
    }
  });

  it('continues on instance B a call that instance A answered with input_required', async () => {
    const first = await call(a, {});
    expect(first.result.resultType).toBe('input_required');
    const second = await call(b, {
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
      requestState: first.result.requestState,
    });
    expect(second.result.content[0].text).toBe('Hello, Ada!');
  });

  it('is refused (-32602) by an instance of another deployment, which has its own key', async () => {
    const first = await call(a, {});
    const replayed = await call(elsewhere, {
      inputResponses: { name: { action: 'accept', content: { name: 'Eve' } } },
      requestState: first.result.requestState,
    });
    expect(replayed.error.code).toBe(-32602);
  });
});
