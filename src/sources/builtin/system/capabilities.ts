// system.capabilities: which features this hub offers, which are switched off and why, and the tools
// each one contributes — so a client can tell "not built / not configured" from "broken".
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import type { Feature } from '../../../core/context.ts';

/** Version of the feature contract reported by `system.capabilities`. */
export const CONTRACT_VERSION = '1.0';

const FeatureSchema = z.object({
  name: z.string(),
  status: z.enum(['Available', 'DisabledByPolicy', 'NotConfigured']),
  contractVersion: z.string(),
  description: z.string(),
  reason: z.string().optional().describe('Why the feature is not Available.'),
  tools: z.array(z.string()).describe('MCP tool names this feature contributes that you may call.'),
});

/** The feature a capability counts towards: its explicit `feature`, else its domain (`task` of `task.create`). */
export function featureOf(capability: { name: string; feature?: string }): string {
  return capability.feature ?? capability.name.split('.')[0];
}

/** `system.capabilities` — feature status plus the tools of each feature. */
export const systemCapabilities = defineCapability({
  name: 'system.capabilities',
  title: 'Features and tools',
  description:
    "List the hub's features and the tools each one offers you. Every feature (task board, system, handlers, scripts, agents, upstream servers, plugins) has a status — Available, DisabledByPolicy or NotConfigured, with a reason when it is not available — so you can tell a missing feature from a broken one.",
  input: z.object({}),
  output: z.object({ contractVersion: z.string(), features: z.array(FeatureSchema) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: (_input, ctx) => {
    const { features, registry } = ctx.services;
    const tools = new Map<string, string[]>();
    const sources = new Map<string, Set<string>>();
    for (const entry of registry.list(ctx.principal)) {
      const name = featureOf(entry.capability);
      tools.set(name, [...(tools.get(name) ?? []), entry.tool.name]);
      const set = sources.get(name) ?? new Set<string>();
      set.add(entry.capability.source ?? 'unknown');
      sources.set(name, set);
    }
    const known: Feature[] = features.list();
    const listed = known.map((f) => ({ ...f, tools: tools.get(f.name) ?? [] }));
    // Domains with tools but no declared feature (handler modules, runtime additions) are available by definition.
    for (const [name, names] of tools) {
      if (known.some((f) => f.name === name)) continue;
      listed.push({
        name,
        status: 'Available',
        contractVersion: CONTRACT_VERSION,
        description: `Capabilities of the '${name}' domain (from ${[...(sources.get(name) ?? [])].join(', ')}).`,
        tools: names,
      });
    }
    listed.sort((a, b) => a.name.localeCompare(b.name));
    return { contractVersion: CONTRACT_VERSION, features: listed };
  },
});
