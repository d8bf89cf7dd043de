// ClaudeBench's system, hook, MCP and test methods onto Switchboard's capabilities, and the ClaudeBench methods that
// have no equivalent here, each refused with why. Facts from ClaudeBench's schemas and its wire contract
// (specs/001-claudebench/contracts/jsonrpc-contract.json).
import { z } from 'zod';
import { type Method, method, NativeFailure, ParamsError, RELAY_FIELDS } from './method.ts';

/** Hook methods whose input and answer Switchboard's hook tools share with ClaudeBench: passed through unchanged. */
const HOOKS = ['hook.pre_tool', 'hook.post_tool', 'hook.user_prompt', 'hook.todo_write'] as const;

/** A method whose params are the capability's input as they are: the capability's own check names a wrong field. */
const passThrough = (name: string): Method => ({
  params: z.record(z.string(), z.unknown()),
  run: (params, native) => native(name, params),
});

export const OTHER_METHODS: Record<string, Method> = {
  // The hook tools take ClaudeBench's hook inputs field for field (the relay's sessionId, instanceId, timestamp too).
  ...Object.fromEntries(HOOKS.map((name) => [name, passThrough(name)])),
  // test.circuit takes ClaudeBench's input unchanged too; offered with `[system] test_tools = true`, admin only.
  'test.circuit': passThrough('test.circuit'),

  'system.register': method({
    params: z.strictObject({
      id: z.string().min(1),
      roles: z.array(z.string()),
      // ClaudeBench's relay sends the session's project and resume point; kept for nothing here.
      metadata: z.record(z.string(), z.unknown()).optional(),
      ...RELAY_FIELDS,
    }),
    fields: { instanceId: 'id' },
    async run({ id, roles }, native) {
      await native('system.register', { instanceId: id, roles });
      return { registered: true };
    },
  }),

  'system.heartbeat': method({
    params: z.strictObject({ instanceId: z.string().min(1) }),
    async run({ instanceId }, native) {
      try {
        await native('system.heartbeat', { instanceId });
        return { alive: true };
      } catch (err) {
        // ClaudeBench answers a lease that is gone with alive: false (register again), not an error.
        if (err instanceof NativeFailure && err.info.code === 'NOT_FOUND') return { alive: false };
        throw err;
      }
    },
  }),

  'system.health': method({
    params: z.strictObject({}),
    async run(_params, native) {
      const h = (await native('system.health', {})) as {
        status: string;
        services: Record<string, { status: string }>;
      };
      // ClaudeBench names a boolean per service it depends on; here, one per component Switchboard checks.
      const services = Object.fromEntries(Object.entries(h.services).map(([k, v]) => [k, v.status === 'healthy']));
      return { status: h.status, services };
    },
  }),

  'system.get_state': method({
    params: z.strictObject({}),
    async run(_params, native) {
      const state = (await native('system.get_state', {})) as { instances: unknown[]; recentEvents: unknown[] };
      // ClaudeBench's state lists tasks; Switchboard's counts them, so the list is task.list's first page.
      const { tasks } = (await native('task.list', { limit: 100 })) as { tasks: unknown[] };
      return { tasks, instances: state.instances, recentEvents: state.recentEvents };
    },
  }),

  'system.metrics': method({
    params: z.strictObject({ detailed: z.boolean().optional() }),
    async run({ detailed }, native) {
      if (detailed)
        throw new ParamsError(
          'detailed',
          "Detailed metrics are Switchboard's own: the MCP tool system__metrics (per capability: calls, errors, latency percentiles) and GET /metrics. Send detailed: false or leave it out.",
        );
      const m = (await native('system.metrics', {})) as {
        capabilities: Record<string, { calls: number; errors: number; latencyMs: { mean: number } }>;
        totals: { calls: number };
      };
      const all = Object.values(m.capabilities);
      const calls = all.reduce((n, c) => n + c.calls, 0);
      const complete = m.capabilities['task.complete'];
      return {
        eventsProcessed: m.totals.calls,
        tasksCompleted: complete ? complete.calls - complete.errors : 0,
        averageLatency: calls ? all.reduce((n, c) => n + c.latencyMs.mean * c.calls, 0) / calls : 0,
        memoryUsage: process.memoryUsage().heapUsed,
      };
    },
  }),

  'mcp.tool.execute': method({
    params: z.strictObject({ tool: z.string().min(1), params: z.record(z.string(), z.unknown()) }),
    // The tool's own input check names its fields; here they are inside params.
    fields: (path) => (path === '(root)' ? 'params' : `params.${path}`),
    async run({ tool, params }, native) {
      return { result: await native(tool, params) };
    },
  }),

  'mcp.tool.list': method({
    params: z.strictObject({}),
    async run(_params, _native, tools) {
      return {
        tools: (await tools()).map((t) => ({
          name: t.name,
          description: t.description ?? '',
          inputSchema: t.inputSchema,
        })),
      };
    },
  }),
};

const HOOK_DISPATCH =
  'Point that Claude Code event at `switchboard hook dispatch` instead (docs/plugins.md#coding-agent-hooks-switchboard-hook-dispatch): it runs the project’s plugin hooks for every event.';

/** ClaudeBench's methods with no equivalent here, and why (docs/coming-from-claudebench.md). */
export const REFUSED: Record<string, string> = {
  'hook.agent_stop': `Switchboard keeps no per-agent session state for a stop to clean up. ${HOOK_DISPATCH}`,
  'hook.notification': `Switchboard does not broadcast Claude Code's notifications. ${HOOK_DISPATCH}`,
  'hook.pre_compact': `Switchboard keeps no conversation state to save before a compaction. ${HOOK_DISPATCH}`,
  'system.unregister':
    'Switchboard has no unregister: an instance that stops heartbeating expires after [system] instance_ttl_ms, and its tasks go back to pending.',
  'git.context.get': 'Switchboard keeps no git context (recent tools, todos, prompts) per instance.',
  'git.auto_commit.notify': 'Switchboard records no commits made by a hook relay.',
  'task.delete_attachment':
    'Switchboard deletes attachments only with their task (task.delete); attach under the same key again to replace one.',
  'task.get_attachments_batch': 'Ask task.get_attachment or task.list_attachments per task.',
  ...Object.fromEntries(
    ['task.decompose', 'task.context', 'task.create_project', 'task.get_project'].map((m) => [
      m,
      'Projects, decomposition and specialist context need ClaudeBench’s inference service, which Switchboard does not have.',
    ]),
  ),
  ...Object.fromEntries(
    [
      'swarm.assign',
      'swarm.context',
      'swarm.create_project',
      'swarm.decompose',
      'swarm.resolve',
      'swarm.synthesize',
    ].map((m) => [m, 'Swarm coordination needs ClaudeBench’s inference service, which Switchboard does not have.']),
  ),
  ...Object.fromEntries(
    ['session.rehydrate', 'session.snapshot.create', 'session.state.get'].map((m) => [
      m,
      'Switchboard keeps no Claude Code session snapshots (its session__* tools are its own sub-agent sessions).',
    ]),
  ),
  ...Object.fromEntries(
    ['system.postgres.query', 'system.postgres.tables', 'system.redis.get', 'system.redis.keys'].map((m) => [
      m,
      'Switchboard offers no raw database access; its state is read through its tools (task__list, system__get_state, system__audit).',
    ]),
  ),
  'system.discover': 'Call mcp.tool.list, or GET /v1/tools (with each tool’s JSON Schema).',
  'system.check_health': 'Call system.health.',
  'system.batch.process': 'Send a JSON-RPC batch (an array of requests) to POST /rpc instead.',
  'system.quorum.vote': 'Switchboard instances decide nothing by vote: they share one store (docs/scale-out.md).',
  'system.flush': 'Switchboard offers no flush of its store over the wire.',
  'config.get': 'Switchboard’s configuration is read with the MCP tool system__config (admin).',
  'config.set': 'Switchboard’s configuration is changed with the MCP tool system__config (admin).',
  'docs.get': 'Switchboard serves no documentation pages over the wire; its docs are in its docs/ folder.',
  'docs.list': 'Switchboard serves no documentation pages over the wire; its docs are in its docs/ folder.',
};
