// Registering one upstream server's catalog in the registry under its planned names: its tools (pass-through
// input, the server's own schemas, its timeout with progress resets, task-optional), resources, templates and
// prompts. What is registered is what the pins let through (pins.ts); calls go back through the manager (`via`),
// which owns the breakers, spans and per-user connections.
import type { Tool } from '@modelcontextprotocol/client';
import type { Logger } from 'pino';
import { z } from 'zod';
import { mcpResult } from '../../core/capability.ts';
import type { Principal } from '../../core/context.ts';
import type { Registry } from '../../core/registry.ts';
import { displayFields, type ResourceContents } from '../../core/resource.ts';
import type { Catalog } from '../../mcp-client/catalog.ts';
import type { UpstreamConnection } from '../../mcp-client/connection.ts';
import type { ServerNames } from './naming.ts';

/** Upstream tool input passes through as the server's own schema describes it; the server validates it. */
const PassThroughInput = z.looseObject({});

type HandlerContext = Parameters<Parameters<Registry['add']>[0]['handle']>[1];

/** How a registered capability reaches its server. */
export interface UpstreamCalls {
  callTool(tool: Tool, input: Record<string, unknown>, ctx: HandlerContext): Promise<unknown>;
  readResource(uri: string, ctx: { signal: AbortSignal; principal?: Principal }): Promise<ResourceContents[]>;
  complete(params: Record<string, unknown>): Promise<string[]>;
  getPrompt(
    prompt: string,
    args: Record<string, string>,
    ctx: { signal: AbortSignal; principal?: Principal },
  ): Promise<unknown>;
}

/** Add the server's catalog to the registry; returns the source name its entries carry (to remove them later). */
export function registerCatalog(
  registry: Registry,
  logger: Logger,
  conn: UpstreamConnection,
  catalog: Catalog,
  names: ServerNames,
  via: UpstreamCalls,
): string {
  const source = `upstream:${conn.name}`;
  const roles = conn.server.roles.length ? conn.server.roles : undefined;
  const byName = new Map(catalog.tools.map((t) => [t.name, t]));
  for (const item of names.tools) {
    const tool = byName.get(item.original);
    if (!tool) continue;
    const added = registry.add({
      name: item.name,
      ...(tool.title ? { title: tool.title } : {}),
      description: tool.description ?? `${tool.name} (from ${conn.name})`,
      input: PassThroughInput,
      inputJsonSchema: tool.inputSchema as Record<string, unknown>,
      ...(tool.outputSchema ? { outputJsonSchema: tool.outputSchema as Record<string, unknown> } : {}),
      ...(tool.annotations ? { annotations: tool.annotations as Record<string, boolean> } : {}),
      ...(roles ? { roles } : {}),
      source,
      feature: 'upstream',
      // The server's timeout_ms, restarted by each progress notification it sends.
      policy: { timeoutMs: conn.server.timeoutMs, progressResetsTimeout: true },
      // A slow call (an upstream task among them) becomes a task for a client with the tasks extension.
      task: 'optional',
      handle: (input, ctx) => via.callTool(tool, input as Record<string, unknown>, ctx),
    });
    if (!added.ok) logger.warn({ server: conn.name, tool: tool.name }, added.message);
  }
  for (const resource of catalog.resources) {
    if (registry.getResource(resource.uri)) continue;
    registry.addResource({
      uri: resource.uri,
      name: resource.name,
      ...displayFields(resource),
      ...(roles ? { roles } : {}),
      source,
      read: async (ctx) => via.readResource(resource.uri, ctx),
    });
  }
  for (const template of catalog.resourceTemplates) {
    if (registry.hasResourceTemplate(template.uriTemplate)) continue;
    registry.addResourceTemplate({
      uriTemplate: template.uriTemplate,
      name: template.name,
      ...displayFields(template),
      ...(roles ? { roles } : {}),
      source,
      read: async (uri, _vars, ctx) => via.readResource(uri, ctx),
      complete: (variable, value) =>
        via.complete({ ref: { type: 'ref/resource', uri: template.uriTemplate }, argument: { name: variable, value } }),
    });
  }
  const prompts = new Map(catalog.prompts.map((p) => [p.name, p]));
  for (const item of names.prompts) {
    const prompt = prompts.get(item.original);
    if (!prompt || registry.getPrompt(item.name)) continue;
    const shape: Record<string, z.ZodType> = {};
    for (const arg of prompt.arguments ?? [])
      shape[arg.name] = (arg.required ? z.string() : z.string().optional()).describe(arg.description ?? '');
    registry.addPrompt({
      name: item.name,
      ...(prompt.title ? { title: prompt.title } : {}),
      ...(prompt.description ? { description: prompt.description } : {}),
      ...(prompt.arguments?.length ? { args: z.object(shape) } : {}),
      ...(roles ? { roles } : {}),
      source,
      get: async (args, ctx) => mcpResult((await via.getPrompt(prompt.name, args, ctx)) as Record<string, unknown>),
      complete: (argument, value) =>
        via.complete({ ref: { type: 'ref/prompt', name: prompt.name }, argument: { name: argument, value } }),
    });
  }
  return source;
}
