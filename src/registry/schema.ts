// The MCP registry's answers as Zod schemas: `server.json` in the current schema (2025-12-11,
// https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json) and the v0.1 API's list and detail
// envelopes. Only what Switchboard reads is checked; everything else passes through (loose objects), so a registry
// that adds fields keeps working while one that answers another shape is refused with what was wrong.
import { z } from 'zod';

/** A value a client may ask for: an environment variable, a header, an argument or a `{curly}` variable. */
const InputFields = {
  description: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  format: z.string().optional(),
  /** Fixed by the publisher (not configurable); `{name}` parts come from `variables`. */
  value: z.string().optional(),
  default: z.string().optional(),
  placeholder: z.string().optional(),
  choices: z.array(z.string()).optional(),
};

export const InputSchema = z.looseObject(InputFields);
const variables = z.record(z.string(), InputSchema).optional();

export const KeyValueInputSchema = z.looseObject({ ...InputFields, name: z.string().min(1), variables });

export const ArgumentSchema = z.discriminatedUnion('type', [
  z.looseObject({
    ...InputFields,
    type: z.literal('positional'),
    valueHint: z.string().optional(),
    isRepeated: z.boolean().optional(),
    variables,
  }),
  z.looseObject({
    ...InputFields,
    type: z.literal('named'),
    name: z.string().min(1),
    isRepeated: z.boolean().optional(),
    variables,
  }),
]);

const RemoteTransportFields = {
  url: z.string().min(1),
  headers: z.array(KeyValueInputSchema).optional(),
  /** URL template variables (`https://{tenant}.example.com/mcp`), since the 2025-12-11 schema. */
  variables,
};

export const TransportSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('stdio') }),
  z.looseObject({ type: z.literal('streamable-http'), ...RemoteTransportFields }),
  z.looseObject({ type: z.literal('sse'), ...RemoteTransportFields }),
]);

export const RemoteSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('streamable-http'), ...RemoteTransportFields }),
  z.looseObject({ type: z.literal('sse'), ...RemoteTransportFields }),
]);

export const PackageSchema = z.looseObject({
  /** npm, pypi, oci, nuget, mcpb — kept open: a type this version does not know is refused when picked, not here. */
  registryType: z.string().min(1),
  registryBaseUrl: z.string().optional(),
  identifier: z.string().min(1),
  /** Optional since 2025-10-11: an OCI image carries its tag in `identifier`, an MCPB file its version in its URL. */
  version: z.string().optional(),
  runtimeHint: z.string().optional(),
  transport: TransportSchema,
  runtimeArguments: z.array(ArgumentSchema).optional(),
  packageArguments: z.array(ArgumentSchema).optional(),
  environmentVariables: z.array(KeyValueInputSchema).optional(),
  fileSha256: z.string().optional(),
});

/** A registry name: reverse-DNS namespace, one slash, server name (the registry's own pattern). */
export const REGISTRY_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

export const ServerJsonSchema = z.looseObject({
  $schema: z.string().optional(),
  name: z.string().regex(REGISTRY_NAME, 'expected a reverse-DNS name with one slash (io.github.user/server)'),
  description: z.string().default(''),
  title: z.string().optional(),
  version: z.string().min(1),
  websiteUrl: z.string().optional(),
  repository: z.looseObject({ url: z.string().optional(), source: z.string().optional() }).optional(),
  packages: z.array(PackageSchema).optional(),
  remotes: z.array(RemoteSchema).optional(),
});

const OFFICIAL = 'io.modelcontextprotocol.registry/official';

export const ServerResponseSchema = z.looseObject({
  server: ServerJsonSchema,
  _meta: z
    .looseObject({
      [OFFICIAL]: z
        .looseObject({
          status: z.string().optional(),
          isLatest: z.boolean().optional(),
          publishedAt: z.string().optional(),
          updatedAt: z.string().optional(),
        })
        .optional(),
    })
    .optional(),
});

export const ServerListSchema = z.looseObject({
  servers: z.array(ServerResponseSchema),
  metadata: z.looseObject({ nextCursor: z.string().nullish(), count: z.number().optional() }).optional(),
});

export type ServerJson = z.output<typeof ServerJsonSchema>;
export type RegistryPackage = z.output<typeof PackageSchema>;
export type RegistryRemote = z.output<typeof RemoteSchema>;
export type RegistryArgument = z.output<typeof ArgumentSchema>;
export type KeyValueInput = z.output<typeof KeyValueInputSchema>;
export type Input = z.output<typeof InputSchema>;
export type ServerResponse = z.output<typeof ServerResponseSchema>;
export type ServerList = z.output<typeof ServerListSchema>;

/** The registry's own record of a version: active, deprecated or deleted, and whether it is the latest. */
export const officialMeta = (r: ServerResponse) => r._meta?.[OFFICIAL];
