// An upstream server's catalog: listed on connect and on each list_changed, kept by the connection, cached in the
// store by the upstream manager.
import type {
  Client,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/client';

/** What a server offers, as it listed it (tool schemas untouched). */
export interface Catalog {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  serverInfo?: { name: string; version: string };
  listedAt: string;
}

/** List everything the server says it has; a capability it does not declare is simply empty. */
export async function listCatalog(client: Client, timeout: number): Promise<Catalog> {
  const caps = client.getServerCapabilities() ?? {};
  const opts = { timeout, cacheMode: 'bypass' } as never;
  const [tools, resources, resourceTemplates, prompts] = await Promise.all([
    caps.tools ? client.listTools(undefined, opts).then((r) => r.tools) : [],
    caps.resources ? client.listResources(undefined, opts).then((r) => r.resources) : [],
    caps.resources
      ? client
          .listResourceTemplates(undefined, opts)
          .then((r) => r.resourceTemplates)
          .catch(() => [])
      : [],
    caps.prompts ? client.listPrompts(undefined, opts).then((r) => r.prompts) : [],
  ]);
  const info = client.getServerVersion();
  return {
    tools,
    resources,
    resourceTemplates,
    prompts,
    ...(info ? { serverInfo: { name: info.name, version: info.version } } : {}),
    listedAt: new Date().toISOString(),
  };
}
