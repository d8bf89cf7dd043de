// Builds an MCP protocol server (the SDK's low-level `Server`) over the registry: tools, resources,
// templates, prompts and completions all answer from the live catalog through the one pipeline.

import {
  createRequestStateCodec,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  ResourceNotFoundError,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { isRawResult } from '../core/capability.ts';
import { listedTools } from '../core/catalog/exposure.ts';
import type { CallContext, LogLevel, McpCallInfo, Principal, TransportKind } from '../core/context.ts';
import { allowed } from '../core/registry.ts';
import { displayFields, matchTemplate } from '../core/resource.ts';
import type { Hub } from '../hub.ts';
import { type Caller, type Lookup, mcpCallInfoOf, traceFromHeaders } from './mcp-edge.ts';
import { tasksOf } from './mcp-task-table.ts';
import { callOrTask, declaresTasks, tasksNotDeclared, taskView } from './mcp-tasks.ts';
import { callOnSession, cancelTask, draftTask, listTasks, taskResult } from './mcp-tasks-2025.ts';
import { paginate } from './paginate.ts';
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_INFO } from './server-identity.ts';
import { toCallToolResult } from './tool-result.ts';

/** A minimal context for resource reads and prompt gets (they are not pipeline calls). */
function readContext(
  hub: Hub,
  principal: Principal,
  transport: TransportKind,
  signal: AbortSignal,
  mcp?: McpCallInfo,
): CallContext {
  return {
    principal,
    transport,
    requestId: crypto.randomUUID(),
    signal,
    progress: async () => {},
    log: async () => {},
    client: {},
    ...(mcp ? { mcp } : {}),
    services: hub.services,
  };
}

/** What the transport seals into a `requestState` on the wire. */
interface SealedState {
  /** The handler's own state string. */
  s: string;
  /** The principal it was minted for: state is never honoured for another caller. */
  p: string;
  /** The method and tool or prompt it was minted by (`tools/call:name`): never honoured for another one. */
  n: string;
}

/**
 * One requestState codec per hub: handlers mint plain strings, the transport HMAC-seals them on the way out and
 * verifies them on the way back (SEP-2322 requires integrity protection), so a handler only ever reads state it
 * minted itself, for the same caller and the same tool or prompt. The key lives in memory, or — with a Redis
 * store — in Redis, shared by every instance behind one address.
 */
const codecs = new WeakMap<Hub, RequestStateCodec<SealedState>>();
function requestStateCodec(hub: Hub): RequestStateCodec<SealedState> {
  let codec = codecs.get(hub);
  if (!codec) {
    // A human may take a while to answer an elicitation; an hour bounds replay of a leaked state.
    // Several instances on Redis share one key, so a call can continue on any of them (docs/scale-out.md).
    const key = hub.scale?.requestStateKey ?? crypto.getRandomValues(new Uint8Array(32));
    codec = createRequestStateCodec<SealedState>({ key, ttlSeconds: 3600 });
    codecs.set(hub, codec);
  }
  return codec;
}

/** Seal the `requestState` of an outgoing `input_required` result for this principal and target. */
async function sealed(
  result: Record<string, unknown>,
  codec: RequestStateCodec<SealedState>,
  principal: Principal,
  target: string,
) {
  if (result.resultType !== 'input_required' || typeof result.requestState !== 'string') return result;
  return { ...result, requestState: await codec.mint({ s: result.requestState, p: principal.id, n: target }) };
}

/**
 * The MCP-only part of a call's context, read from the SDK request context. `target` names what is being
 * called (`tools/call:name`); a verified requestState minted for another target is refused.
 */
function mcpInfo(server: Server, ctx: ServerContext, target: string): McpCallInfo {
  // Already verified (and decoded) by the `requestState.verify` hook before the handler runs.
  const state = ctx.mcpReq.requestState<SealedState>();
  if (state !== undefined && state.n !== target)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', {
      reason: 'invalid_request_state',
    });
  const closeSSE = ctx.http?.closeSSE;
  return mcpCallInfoOf({
    server,
    envelope: ctx.mcpReq.envelope as Record<string, unknown> | undefined,
    ...(ctx.mcpReq.inputResponses ? { inputResponses: ctx.mcpReq.inputResponses } : {}),
    ...(state !== undefined ? { requestState: state.s } : {}),
    ...(closeSSE ? { closeStream: () => closeSSE() } : {}),
    ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
  });
}

/**
 * Tell a connected client (stdio, a 2025 session) when tools, resources or prompts change; returns the
 * unsubscribe function. 2026-07-28 clients hear it on their `subscriptions/listen` stream instead.
 */
export function forwardListChanges(hub: Hub, server: Server): () => void {
  return hub.services.registry.onChange((kind) => {
    const send =
      kind === 'tools'
        ? server.sendToolListChanged()
        : kind === 'resources'
          ? server.sendResourceListChanged()
          : server.sendPromptListChanged();
    send.catch(() => {});
  });
}

/** What one protocol server serves: the hub, to this caller. */
export interface Serving {
  hub: Hub;
  principal: Principal;
  /** A 2026-07-28 request's server: the tool its `tools/call` was looked up as at the edge, not looked up again. */
  lookup?: Lookup;
}

/** One page of a list, mapped to its wire form, with `nextCursor` when more follow. */
function listPage<T, U>(
  hub: Hub,
  items: T[],
  cursor: string | undefined,
  keyOf: (item: T) => string,
  map: (item: T) => U,
) {
  const { page, nextCursor } = paginate(items, cursor, hub.config.get().server.page_size, keyOf);
  return { items: page.map(map), more: nextCursor ? { nextCursor } : {} };
}

/**
 * Build one protocol server instance. Cheap by design: handlers close over the hub, so stateless HTTP
 * can afford one instance per request.
 *
 * `serving` is the hub and the caller, or — on stdio, which answers `initialize` before the hub has started
 * (docs/decisions.md, "Initialize before the hub") — a function that starts the hub and resolves to them. The
 * handshake (`initialize`, `server/discover`, `ping`) is the SDK's own and needs neither; every handler below waits
 * for them first, so requests that arrive during the start run in the order they came once it is done, a request
 * cancelled while it waited runs nothing, and a hub that failed to start answers each with that failure.
 */
export function buildMcpServer(
  serving: Serving | (() => Promise<Serving>),
  opts: { transport: TransportKind },
): Server {
  const { transport } = opts;
  const served = async (signal: AbortSignal): Promise<Serving> => {
    const ready = typeof serving === 'function' ? await serving() : serving;
    signal.throwIfAborted();
    return ready;
  };
  const server = new Server(SERVER_INFO, {
    capabilities: SERVER_CAPABILITIES,
    instructions: INSTRUCTIONS,
    // Rejects a tampered or expired requestState with -32602 before any handler runs.
    requestState: {
      verify: async (state, ctx) => {
        const { hub, principal } = await served(ctx.mcpReq.signal);
        const sealedState = await requestStateCodec(hub).verify(state, ctx);
        if (sealedState.p !== principal.id) throw new Error('requestState was minted for another principal');
        return sealedState;
      },
    },
  });

  server.setRequestHandler('tools/list', async (request, ctx) => {
    const { hub, principal } = await served(ctx.mcpReq.signal);
    await hub.catalogReady();
    const { items, more } = listPage(
      hub,
      listedTools(hub.services.registry, hub.config.get(), principal),
      request.params?.cursor,
      (e) => e.tool.name,
      (e) => {
        const { capability: _c, ...tool } = e.tool;
        // 2025-11-25's tool-level task negotiation (mcp-tasks-2025.ts); the 2026 encoding leaves `execution` out.
        const taskSupport = e.capability.task;
        return (taskSupport ? { ...tool, execution: { taskSupport } } : tool) as any;
      },
    );
    return { tools: items, ...more };
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { hub, principal, lookup } = await served(ctx.mcpReq.signal);
    const target = `tools/call:${request.params.name}`;
    const call = {
      id: ctx.mcpReq.id,
      name: request.params.name,
      arguments: request.params.arguments,
      meta: ctx.mcpReq._meta as Record<string, unknown> | undefined,
    };
    const headers = ctx.http?.req?.headers;
    const trace = headers
      ? traceFromHeaders({
          traceparent: headers.get('traceparent') ?? undefined,
          tracestate: headers.get('tracestate') ?? undefined,
        })
      : undefined;
    const caller: Caller = {
      principal,
      transport,
      mcp: mcpInfo(server, ctx, target),
      server,
      signal: ctx.mcpReq.signal,
      log: (level: LogLevel, data: unknown) => ctx.mcpReq.log(level, data).catch(() => {}),
      ...(trace ? { trace } : {}),
    };
    const entry = lookup?.name === call.name ? lookup.entry : undefined;
    if (caller.mcp?.era === 'legacy') {
      // A 2025 session's task-augmented call is the edge's (the SDK refuses a CreateTaskResult); one that reaches
      // here has a shape the edge does not take.
      if ((request.params as { task?: unknown }).task !== undefined)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          'A task-augmented tools/call takes name, arguments, task and _meta (without io.modelcontextprotocol/ keys); this one has more.',
        );
      await callOnSession(hub, call, caller, entry, undefined); // refuses a `required` tool called without a task
    }
    const answer = await callOrTask(hub, call, caller, entry);
    if ('task' in answer) return answer.task as any;
    const { outcome } = answer;
    return (await sealed(toCallToolResult(outcome), requestStateCodec(hub), principal, target)) as any;
  });

  // Tasks: a client polls, answers and cancels the tasks its long calls became — under MCP's tasks extension on
  // 2026-07-28 (mcp-tasks.ts: tasks/get|update|cancel), or under 2025-11-25's experimental tasks on a 2025 session
  // (mcp-tasks-2025.ts: tasks/get|result|list|cancel). Registered with their params' schema, as the SDK serves methods
  // outside its 2026 vocabulary; a method of the other revision is an unknown method.
  const tasksFor = async (ctx: ServerContext, method: string, only?: 'modern' | 'legacy') => {
    const { hub, principal } = await served(ctx.mcpReq.signal);
    const mcp = mcpCallInfoOf({ server, envelope: ctx.mcpReq.envelope as Record<string, unknown> | undefined });
    if (only && mcp.era !== only)
      throw new ProtocolError(
        ProtocolErrorCode.MethodNotFound,
        only === 'modern'
          ? `Method not found: ${method} is part of MCP's tasks extension, which needs protocol 2026-07-28.`
          : `Method not found: ${method} belongs to the tasks of protocol 2025-11-25; on 2026-07-28 a task's result comes with tasks/get.`,
      );
    if (mcp.era === 'modern' && !declaresTasks(mcp)) throw tasksNotDeclared(method);
    return { table: tasksOf(hub), principal, legacy: mcp.era === 'legacy' };
  };
  const TaskParams = z.object({ taskId: z.string() });
  server.setRequestHandler('tasks/get', { params: TaskParams }, async ({ taskId }, ctx) => {
    const { table, principal, legacy } = await tasksFor(ctx, 'tasks/get');
    const record = await table.get(taskId, principal);
    return (legacy ? draftTask(record) : taskView(record)) as any;
  });
  // The client's answers to what a task asked (its `inputRequests`); answers to nothing open are ignored.
  server.setRequestHandler(
    'tasks/update',
    { params: TaskParams.extend({ inputResponses: z.record(z.string(), z.unknown()).optional() }) },
    async ({ taskId, inputResponses }, ctx) => {
      const { table, principal } = await tasksFor(ctx, 'tasks/update', 'modern');
      // The SDK takes a request's `inputResponses` into its multi-round-trip context; older ones leave it in params.
      const responses = (ctx.mcpReq.inputResponses as Record<string, unknown> | undefined) ?? inputResponses ?? {};
      await table.answer(taskId, principal, responses);
      return {} as any;
    },
  );
  server.setRequestHandler('tasks/cancel', { params: TaskParams }, async ({ taskId }, ctx) => {
    const { table, principal, legacy } = await tasksFor(ctx, 'tasks/cancel');
    if (legacy) return (await cancelTask(table, taskId, principal)) as any;
    await table.cancel(taskId, principal);
    return {} as any;
  });
  server.setRequestHandler('tasks/result', { params: TaskParams }, async ({ taskId }, ctx) => {
    const { table, principal } = await tasksFor(ctx, 'tasks/result', 'legacy');
    // The task's questions ride this request's stream, related to it, as the call's own would have.
    const ask = (method: string, params: Record<string, unknown>) =>
      method === 'sampling/createMessage'
        ? server.createMessage(params as any, { relatedRequestId: ctx.mcpReq.id, signal: ctx.mcpReq.signal })
        : server.elicitInput(params as any, { relatedRequestId: ctx.mcpReq.id, signal: ctx.mcpReq.signal });
    return (await taskResult(table, taskId, { principal, signal: ctx.mcpReq.signal, ask })) as any;
  });
  server.setRequestHandler(
    'tasks/list',
    { params: z.object({ cursor: z.string().optional() }).optional() },
    async (params, ctx) => {
      const { table, principal } = await tasksFor(ctx, 'tasks/list', 'legacy');
      return (await listTasks(table, principal, params?.cursor)) as any;
    },
  );

  server.setRequestHandler('resources/list', async (request, ctx) => {
    const { hub, principal } = await served(ctx.mcpReq.signal);
    await hub.catalogReady();
    const { items, more } = listPage(
      hub,
      hub.services.registry.listResources(principal),
      request.params?.cursor,
      (r) => r.uri,
      (r) => ({
        uri: r.uri,
        name: r.name,
        ...displayFields(r),
      }),
    );
    return { resources: items, ...more };
  });

  server.setRequestHandler('resources/templates/list', async (request, ctx) => {
    const { hub, principal } = await served(ctx.mcpReq.signal);
    await hub.catalogReady();
    const { items, more } = listPage(
      hub,
      hub.services.registry.listResourceTemplates(principal),
      request.params?.cursor,
      (t) => t.uriTemplate,
      (t) => ({ uriTemplate: t.uriTemplate, name: t.name, ...displayFields(t) }),
    );
    return { resourceTemplates: items, ...more };
  });

  server.setRequestHandler('resources/read', async (request, ctx) => {
    const { hub, principal } = await served(ctx.mcpReq.signal);
    const { registry } = hub.services;
    return withCallerPaths(hub, async () => {
      const uri = request.params.uri;
      const rctx = readContext(hub, principal, transport, ctx.mcpReq.signal);
      const fixed = registry.getResource(uri);
      if (fixed && allowed(principal, fixed.roles)) return { contents: (await fixed.read(rctx)) as any };
      for (const t of registry.listResourceTemplates(principal)) {
        const vars = matchTemplate(t.uriTemplate, uri);
        if (vars) return { contents: (await t.read(uri, vars, rctx)) as any };
      }
      // -32602 with data.uri (SEP-2164), never an empty contents list.
      throw new ResourceNotFoundError(uri);
    });
  });

  // Nothing to keep per subscription (every change is announced), but they wait like every other request.
  server.setRequestHandler('resources/subscribe', async (_request, ctx) => {
    await served(ctx.mcpReq.signal);
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', async (_request, ctx) => {
    await served(ctx.mcpReq.signal);
    return {};
  });

  server.setRequestHandler('prompts/list', async (request, ctx) => {
    const { hub, principal } = await served(ctx.mcpReq.signal);
    await hub.catalogReady();
    const { items, more } = listPage(
      hub,
      hub.services.registry.listPrompts(principal),
      request.params?.cursor,
      (p) => p.name,
      (p) => ({
        name: p.name,
        ...displayFields(p),
        ...(p.args
          ? {
              arguments: Object.entries(p.args.shape).map(([name, schema]: [string, any]) => ({
                name,
                ...(schema.description ? { description: schema.description } : {}),
                required: !schema.safeParse(undefined).success,
              })),
            }
          : {}),
      }),
    );
    return { prompts: items, ...more };
  });

  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const { hub, principal } = await served(ctx.mcpReq.signal);
    const prompt = hub.services.registry.getPrompt(request.params.name);
    if (!prompt || !allowed(principal, prompt.roles)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Unknown prompt '${request.params.name}'. List prompts with prompts/list.`,
      );
    }
    const args = request.params.arguments ?? {};
    if (prompt.args) {
      const parsed = prompt.args.safeParse(args);
      if (!parsed.success) {
        const msg = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid arguments for prompt '${prompt.name}': ${msg}`,
        );
      }
    }
    const target = `prompts/get:${prompt.name}`;
    const result = await withCallerPaths(hub, async () =>
      prompt.get(
        args as Record<string, string>,
        readContext(hub, principal, transport, ctx.mcpReq.signal, mcpInfo(server, ctx, target)),
      ),
    );
    // A prompt may answer with an MCP result verbatim (mcpResult / inputRequired), e.g. to ask for input first.
    if (isRawResult(result))
      return (await sealed(result.mcp ?? { messages: [] }, requestStateCodec(hub), principal, target)) as any;
    return result as any;
  });

  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const { hub, principal } = await served(ctx.mcpReq.signal);
    const { registry } = hub.services;
    const { ref, argument } = request.params;
    let values: string[] = [];
    if (ref.type === 'ref/prompt') {
      const prompt = registry.getPrompt(ref.name);
      if (prompt?.complete && allowed(principal, prompt.roles))
        values = await prompt.complete(argument.name, argument.value);
    } else if (ref.type === 'ref/resource') {
      const t = registry.listResourceTemplates(principal).find((x) => x.uriTemplate === ref.uri);
      if (t?.complete) values = await t.complete(argument.name, argument.value);
    }
    return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
  });

  return server;
}

/**
 * Run a resource read or a prompt: they are not pipeline calls, so an error they throw is rewritten here, the way
 * the pipeline rewrites a failed call's, before the SDK answers it (it reads `code`, `message` and `data`).
 */
async function withCallerPaths<T>(hub: Hub, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    const message = hub.pipeline.pathsForCaller(err.message);
    if (message === err.message) throw err;
    const { code, data } = err as Error & { code?: unknown; data?: unknown };
    throw err instanceof ProtocolError
      ? new ProtocolError(err.code, message, err.data)
      : Object.assign(new Error(message), { code, data });
  }
}
