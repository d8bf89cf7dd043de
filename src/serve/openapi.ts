// OpenAPI 3.1 for the REST face, generated from the same registry descriptors (and so the same Zod
// schemas) that MCP advertises — never written by hand.

import type { Principal } from '../core/context.ts';
import { ERROR_TABLE } from '../core/errors.ts';
import type { Registry } from '../core/registry.ts';
import { version } from '../version.ts';

export function buildOpenApi(registry: Registry, principal: Principal): Record<string, unknown> {
  const errorResponse = { $ref: '#/components/responses/Error' };
  const paths: Record<string, unknown> = {
    '/v1/tools': {
      get: {
        operationId: 'listTools',
        summary: 'List the tools the caller may call.',
        responses: {
          '200': { description: 'Tool descriptors', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
    '/v1/events': {
      get: {
        operationId: 'streamEvents',
        summary: 'Server-sent events: one per call and hub change.',
        responses: { '200': { description: 'text/event-stream' } },
      },
    },
    '/healthz': {
      get: { operationId: 'healthz', summary: 'Liveness.', responses: { '200': { description: 'alive' } } },
    },
    '/readyz': {
      get: {
        operationId: 'readyz',
        summary: 'Readiness (store answers).',
        responses: { '200': { description: 'ready' }, '503': { description: 'not ready' } },
      },
    },
  };
  for (const { tool, capability } of registry.list(principal)) {
    const status: Record<string, unknown> = {
      '200': {
        description: 'The capability ran and returned its output.',
        content: { 'application/json': { schema: tool.outputSchema ?? {} } },
      },
    };
    for (const code of Object.keys(ERROR_TABLE) as (keyof typeof ERROR_TABLE)[]) {
      const s = String(ERROR_TABLE[code].status);
      if (s !== '499' && !status[s]) status[s] = errorResponse;
    }
    paths[`/v1/tools/${tool.name}`] = {
      post: {
        operationId: tool.name,
        summary: tool.title ?? capability.name,
        description: tool.description,
        tags: [capability.name.split('.')[0]],
        requestBody: { required: false, content: { 'application/json': { schema: tool.inputSchema } } },
        responses: status,
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard REST API',
      version,
      description: 'Every capability as POST /v1/tools/{name}; the body is the input.',
    },
    paths,
    components: {
      responses: {
        Error: {
          description: 'The call failed; `code` is one of the error table codes (docs/errors.md).',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['error'],
                properties: {
                  error: {
                    type: 'object',
                    required: ['code', 'message'],
                    properties: {
                      code: { type: 'string', enum: Object.keys(ERROR_TABLE) },
                      message: { type: 'string' },
                      details: { type: 'object' },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  };
}
