// What a caller may not call directly, it may not reach through another tool (issue 28, §2; docs/security.md rule 2).
// Every capability that forwards or dispatches (`forwards`, `reachesOthers`) has a case here, and the first test
// fails when one appears without one. Each case gives a caller whose exposure hides the plugin `myplug` the way to
// reach its hooks through that capability and checks that no hook ran — and that an unrestricted caller, on the same
// hub, does reach them, so the case cannot pass because the route is broken.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/context.ts';
import { exposureFilter } from '../../src/core/name-globs.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import type { TestHub } from '../helpers/hub.ts';
import { writePlugin } from '../helpers/plugins.ts';
import { until } from '../helpers/until.ts';
import { agentHub } from '../sources/agents/agent-hub.ts';

/** A token whose `expose` hides `myplug.*`, as `[policy.tokens.x.expose] deny = ["myplug.*"]` or a profile does. */
const limited: Principal = {
  id: 'limited',
  roles: ['agent'],
  kind: 'token',
  sees: exposureFilter([{ deny: ['myplug.*'] }]),
};
const open: Principal = { id: 'open', roles: ['agent'], kind: 'token' };

/** Hooks that each leave a file in the project when they run: on every agent event, and one called directly. */
const MANIFEST = `hooks:
  pre: { event: PreToolUse, command: 'touch RAN-pre' }
  post: { event: PostToolUse, command: 'touch RAN-post' }
  prompt: { event: UserPromptSubmit, command: 'touch RAN-prompt' }
  direct: { command: 'touch RAN-direct' }
`;

let api: FakeAnthropic | undefined;
let hub: TestHub | undefined;
afterEach(async () => {
  await hub?.close();
  await api?.close();
  hub = api = undefined;
});

async function hubWithPlugin(): Promise<TestHub> {
  api = await startFakeAnthropic({ fallback: 'done' });
  hub = await agentHub({
    anthropic: api.url,
    agents: { worker: { json: { name: 'worker', description: 'Works', provider: 'anthropic', roles: ['agent'] } } },
  });
  writePlugin(hub.dir, 'myplug', MANIFEST);
  const h = hub;
  await until(() => h.services.registry.get('myplug.direct') !== undefined, { what: 'the plugin to load' });
  return h;
}

const ran = (h: TestHub, hook: string) => existsSync(join(h.dir, `RAN-${hook}`));
const forget = (h: TestHub, hook: string) => rmSync(join(h.dir, `RAN-${hook}`), { force: true });

/**
 * Each forwarding or dispatching capability: how a caller reaches `myplug`'s hooks through it, and which hook that
 * runs. A new capability with `forwards` or `reachesOthers` needs a case here.
 */
const ROUTES: Record<string, { hook: string; reach: (h: TestHub, as: Principal) => Promise<unknown> }> = {
  'catalog.call': {
    hook: 'direct',
    reach: (h, as) => h.call('catalog.call', { name: 'myplug__direct', arguments: {} }, as),
  },
  'catalog.run': {
    hook: 'direct',
    reach: (h, as) => h.call('catalog.run', { code: 'return await tools.myplug__direct({})' }, as),
  },
  'hook.pre_tool': {
    hook: 'pre',
    reach: (h, as) => h.call('hook.pre_tool', { tool: 'Edit', params: { file_path: 'a.txt' } }, as),
  },
  'hook.post_tool': {
    hook: 'post',
    reach: (h, as) => h.call('hook.post_tool', { tool: 'Edit', params: { file_path: 'a.txt' }, result: null }, as),
  },
  'hook.todo_write': {
    hook: 'post',
    reach: (h, as) => h.call('hook.todo_write', { todos: [{ content: 'x', status: 'pending' }] }, as),
  },
  'hook.user_prompt': {
    hook: 'prompt',
    reach: (h, as) => h.call('hook.user_prompt', { prompt: 'hello' }, as),
  },
  'agent.start': {
    hook: 'direct',
    reach: async (h, as) => {
      api!.enqueue({ content: [{ type: 'tool_use', name: 'myplug__direct', input: {} }] }, 'done');
      return h.call(
        'agent.start',
        { session_name: `s-${as.id}`, agent_name: 'worker', prompt: 'run it', enable_builtins: true },
        as,
      );
    },
  },
  'agent.resume': {
    hook: 'direct',
    reach: async (h, as) => {
      const session = `r-${as.id}`;
      api!.enqueue('started');
      // The session keeps the options it started with: built-ins on; the resumed turn runs as the resuming caller.
      await h.call(
        'agent.start',
        { session_name: session, agent_name: 'worker', prompt: 'hi', enable_builtins: true },
        as,
      );
      api!.enqueue({ content: [{ type: 'tool_use', name: 'myplug__direct', input: {} }] }, 'done');
      return h.call('agent.resume', { session_name: session, prompt: 'run it' }, as);
    },
  },
};

describe('rule 2: only what the caller could call directly', () => {
  it('every capability that forwards or dispatches has a case here', async () => {
    const h = await hubWithPlugin();
    const actors = h.services.registry
      .list()
      .filter((e) => e.capability.forwards || e.capability.reachesOthers)
      .map((e) => e.capability.name)
      .sort();
    expect(actors).toEqual(Object.keys(ROUTES).sort());
  });

  it('the limited caller cannot call the hooks directly; the open one can', async () => {
    const h = await hubWithPlugin();
    const refused = await h.call('myplug.direct', {}, limited);
    expect(!refused.ok && refused.error.code).toBe('NOT_FOUND');
    expect(ran(h, 'direct')).toBe(false);
    expect((await h.call('myplug.direct', {}, open)).ok).toBe(true);
    expect(ran(h, 'direct')).toBe(true);
  });

  for (const [name, route] of Object.entries(ROUTES)) {
    it(`${name}: a hook the caller's exposure hides does not run; the open caller's call runs it`, async () => {
      const h = await hubWithPlugin();
      await route.reach(h, limited);
      expect(ran(h, route.hook)).toBe(false);
      forget(h, route.hook);
      await route.reach(h, open);
      expect(ran(h, route.hook)).toBe(true);
    });
  }
});
