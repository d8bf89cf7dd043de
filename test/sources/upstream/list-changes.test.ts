// A catalog change reaches a client without a session (issue 31 §3): Switchboard's own upstream client, talking
// 2026-07-28 to another Switchboard over HTTP, opens no 2025 session and still learns of a tool added upstream,
// through the upstream's `subscriptions/listen` stream; and every list that the 2026 wire caches says it is private
// to the caller (it is filtered per caller) with no lifetime to serve from cache.
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';
import { defineCapability } from '../../../src/core/capability.ts';
import { serveHttp } from '../../../src/serve/http.ts';
import type { RunningUpstream } from '../../../src/sources/upstream/index.ts';
import { testHub } from '../../helpers/hub.ts';
import { rpc2026 } from '../../helpers/rpc2026.ts';
import { hubBehindHub, waitFor } from './helpers.ts';

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

it('a downstream hub on the 2026-07-28 wire learns of a tool added upstream, without a session', async () => {
  // approval off: a tool added after the first listing is shown at once (pinning: pinned.test.ts).
  const pair = await hubBehindHub({ server: { approval: 'off' } });
  open.push(pair);
  const { far, near } = pair;
  // Stateless: the SDK negotiated 2026-07-28 with the upstream, so no 2025 session carries list_changed.
  const manager = (near.sources.get('upstream') as RunningUpstream).manager();
  expect(manager?.views()[0]).toMatchObject({ name: 'far', status: 'connected', era: 'modern' });
  expect(near.services.registry.get('far__system__health')).toBeDefined();
  expect(near.services.registry.get('far__late__hello')).toBeUndefined();

  far.services.registry.add(
    defineCapability({
      name: 'late.hello',
      description: 'Added to the upstream after the downstream listed it.',
      input: z.object({}),
      handle: () => 'hello from far',
    }),
  );
  await waitFor(() => near.services.registry.get('far__late__hello'), 10_000, 'the added tool downstream');
  const out = await near.call('far__late__hello', {});
  expect(out.ok && out.raw?.content).toEqual([{ type: 'text', text: 'hello from far' }]);
});

it('marks every cacheable list private to the caller, with no lifetime to serve it from cache', async () => {
  const hub = await testHub();
  open.push(hub);
  const http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
  open.push(http);
  for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
    const { message } = await rpc2026(http.url, method, {});
    expect(message.result, method).toMatchObject({ cacheScope: 'private', ttlMs: 0 });
  }
});
