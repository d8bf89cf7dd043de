// The hub's own resources: a welcome page generated from the live registry, health, the tool catalog,
// recent events, and `task://{id}`. Everything is computed at read time for the calling principal.
import { toolsDeclarations } from '../../core/catalog/typescript.ts';
import type { CallContext, Principal, Services } from '../../core/context.ts';
import { SwitchboardError } from '../../core/errors.ts';
import type { Entry } from '../../core/registry.ts';
import { defineResource, defineResourceTemplate, type ResourceContents } from '../../core/resource.ts';
import { maySeeEvent } from '../../observe/event-view.ts';
import { summarizeEvent } from './system/get-state.ts';
import { leaseTtlMs } from './system/lease.ts';

const RECENT_EVENTS = 100;
const MAX_COMPLETIONS = 20;
/** Completion scans the board page by page; past this many tasks it stops rather than stall the client. */
const COMPLETION_SCAN_LIMIT = 5_000;

const json = (uri: string, value: unknown): ResourceContents[] => [
  { uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) },
];

/** First sentence of a description, so the welcome page stays one line per tool. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(flat)?.[1] ?? flat;
  return sentence.length > 160 ? `${sentence.slice(0, 157)}...` : sentence;
}

/** Render the welcome page for one principal from what the registry holds right now. */
export function renderWelcome(services: Services, principal: Principal): string {
  const { registry } = services;
  const entries = registry.list(principal);
  const byTool = new Map(entries.map((e) => [e.capability.name, e]));
  const tool = (name: string) => byTool.get(name)?.tool.name;
  const domains = new Map<string, Entry[]>();
  for (const e of entries) {
    const domain = e.capability.name.split('.')[0];
    domains.set(domain, [...(domains.get(domain) ?? []), e]);
  }

  const out: string[] = [
    '# Welcome to Switchboard',
    '',
    'Switchboard is one MCP hub: behind this single endpoint it serves typed handlers, a shared task board, ' +
      'plugin hooks, scripts, sub-agents and the tools of other MCP servers, all through one pipeline that ' +
      'validates input, enforces roles and limits, and records metrics and events.',
    '',
    '## Calling tools',
    '',
    '- Tool names are `domain__action` (the capability `domain.action`); call them with MCP `tools/call` ' +
      '(the REST API under `/v1` serves the same tools).',
    '- Every tool validates its input against its schema. A failed call answers with `isError: true` and a message ' +
      'naming the field or the reason (NOT_FOUND, CONFLICT, RATE_LIMITED...): fix the input and call again.',
    '- Tools with an output schema also return `structuredContent`.',
    `- You are \`${principal.id}\` with roles ${principal.roles.length ? principal.roles.map((r) => `\`${r}\``).join(', ') : '(none)'}; this page lists only what you may use.`,
    '',
    `## Tools (${entries.length})`,
  ];
  for (const [domain, list] of [...domains].sort(([a], [b]) => a.localeCompare(b))) {
    out.push('', `### ${domain}`, '');
    for (const e of list) {
      const title = e.capability.title ? ` **${e.capability.title}**:` : '';
      out.push(`- \`${e.tool.name}\` —${title} ${oneLine(e.capability.description)}`);
    }
  }

  const resources = registry.listResources(principal);
  const templates = registry.listResourceTemplates(principal);
  out.push('', '## Resources', '');
  for (const r of resources) out.push(`- \`${r.uri}\`${r.description ? ` — ${oneLine(r.description)}` : ''}`);
  for (const t of templates)
    out.push(`- \`${t.uriTemplate}\` (template)${t.description ? ` — ${oneLine(t.description)}` : ''}`);
  if (!resources.length && !templates.length) out.push('- (none)');

  // The workflow only names tools the caller can actually call; steps whose tool is absent are left out.
  const step = (names: string[], text: (tools: string) => string) => {
    const found = names.map(tool).filter((t): t is string => Boolean(t));
    return found.length ? text(found.map((t) => `\`${t}\``).join(' / ')) : undefined;
  };
  const ttl = leaseTtlMs(services);
  const steps = [
    step(['system.register'], (t) => `Register yourself with ${t} (a stable \`instanceId\`, your roles).`),
    step(
      ['system.heartbeat'],
      (t) =>
        `Call ${t} at least every ${Math.floor(ttl / 2)} ms; after ${ttl} ms without one your lease ends and your tasks return to pending.`,
    ),
    step(['system.get_state'], (t) => `Orient yourself with ${t}: instances, task counts and recent events.`),
    step(['task.create'], (t) => `Add work with ${t}.`),
    step(['task.list', 'task.get', 'task.next'], (t) => `Find work with ${t}.`),
    step(['task.claim', 'task.assign'], (t) => `Take a task with ${t}.`),
    step(['task.start'], (t) => `Mark it started with ${t}.`),
    step(['task.update'], (t) => `Change its text, priority or metadata with ${t}.`),
    step(['task.complete', 'task.fail'], (t) => `Finish it with ${t} (a result, or a reason).`),
  ].filter((s): s is string => Boolean(s));
  if (domains.has('task') || steps.length) {
    out.push(
      '',
      '## Task-board workflow',
      '',
      'A task moves `pending` → `assigned` → `in_progress` → `completed` or `failed`.',
      '',
    );
    steps.forEach((s, i) => {
      out.push(`${i + 1}. ${s}`);
    });
    if (templates.some((t) => t.uriTemplate === 'task://{id}')) out.push('', 'Read one task as `task://<id>`.');
  }
  return `${out.join('\n')}\n`;
}

/** Health in the same shape as `system.health`. */
async function healthReport(services: Services) {
  const report = await services.health.run();
  return {
    ...report,
    uptimeMs: Math.max(0, Date.now() - services.startedAt.getTime()),
    instanceId: services.instanceId,
  };
}

/** Task ids starting with `prefix`, in board order, at most {@link MAX_COMPLETIONS}. */
async function completeTaskId(services: Services, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let scanned = 0;
  do {
    const page = await services.store.tasks.list({ limit: 500, cursor });
    for (const t of page.tasks) {
      if (t.id.startsWith(prefix)) ids.push(t.id);
      if (ids.length >= MAX_COMPLETIONS) return ids;
    }
    scanned += page.tasks.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor && scanned < COMPLETION_SCAN_LIMIT);
  return ids;
}

/**
 * Register the hub's resources: `switchboard://welcome`, `switchboard://health`, `switchboard://tools`,
 * `switchboard://events` and the template `task://{id}`. Returns a stop function (nothing to stop yet;
 * kept for symmetry with the other built-ins).
 *
 * @example
 * const stop = registerResources(services);
 * const [page] = await services.registry.getResource('switchboard://welcome')!.read(ctx);
 */
export function registerResources(services: Services): () => void {
  const { registry } = services;
  registry.batch(() => {
    registry.addResource(
      defineResource({
        uri: 'switchboard://welcome',
        name: 'welcome',
        title: 'Welcome to Switchboard',
        description:
          'Start here: what Switchboard is, how to call its tools, every tool and resource you may use, and the task-board workflow.',
        mimeType: 'text/markdown',
        read: (ctx: CallContext) => [
          { uri: 'switchboard://welcome', mimeType: 'text/markdown', text: renderWelcome(ctx.services, ctx.principal) },
        ],
      }),
    );
    registry.addResource(
      defineResource({
        uri: 'switchboard://health',
        name: 'health',
        title: 'Hub health',
        description: 'Overall and per-component health of the hub (same as system.health).',
        mimeType: 'application/json',
        read: async (ctx) => json('switchboard://health', await healthReport(ctx.services)),
      }),
    );
    registry.addResource(
      defineResource({
        uri: 'switchboard://tools',
        name: 'tools',
        title: 'Tool catalog',
        description: 'Every tool you may call, with its input and output JSON Schemas and annotations.',
        mimeType: 'application/json',
        read: (ctx) =>
          json(
            'switchboard://tools',
            ctx.services.registry.list(ctx.principal).map((e) => e.tool),
          ),
      }),
    );
    registry.addResource(
      defineResource({
        uri: 'switchboard://catalog/tools.d.ts',
        name: 'tools.d.ts',
        title: 'TypeScript declarations for code mode',
        description: 'The `tools` object catalog.run programs call: every tool you may call, typed from its schemas.',
        mimeType: 'application/typescript',
        read: (ctx) => [
          {
            uri: 'switchboard://catalog/tools.d.ts',
            mimeType: 'application/typescript',
            text: toolsDeclarations(
              ctx.services.registry
                .list(ctx.principal)
                .filter((e) => !e.capability.name.startsWith('catalog.'))
                .map((e) => e.tool),
            ),
          },
        ],
      }),
    );
    registry.addResource(
      defineResource({
        uri: 'switchboard://events',
        name: 'events',
        title: 'Recent events',
        description: `The ${RECENT_EVENTS} most recent hub events, oldest first (calls without their input and output, instance and config changes).`,
        mimeType: 'application/json',
        read: async (ctx) => {
          const events = await ctx.services.store.events.recent(RECENT_EVENTS);
          const visible = events.filter((e) => maySeeEvent(ctx.services.registry, ctx.principal, e.event));
          return json(
            'switchboard://events',
            visible.map((e) => ({ seq: e.seq, event: summarizeEvent(e.event) })),
          );
        },
      }),
    );
    registry.addResourceTemplate(
      defineResourceTemplate({
        uriTemplate: 'task://{id}',
        name: 'task',
        title: 'Task',
        description: 'One task of the shared board by id: text, priority, status, assignee, result and timestamps.',
        mimeType: 'application/json',
        read: async (uri, vars, ctx) => {
          const task = await ctx.services.store.tasks.get(vars.id);
          if (!task) {
            throw new SwitchboardError(
              'NOT_FOUND',
              `Task '${vars.id}' does not exist; list existing tasks with the task tools or read switchboard://welcome.`,
              {
                id: vars.id,
              },
            );
          }
          return json(uri, task);
        },
        complete: (variable, value) => (variable === 'id' ? completeTaskId(services, value) : []),
      }),
    );
  });
  return () => {};
}
