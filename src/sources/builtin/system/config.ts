// system.config: read or change the live configuration (admins only). Every change is validated as a
// whole before it applies; with persist it is also written to the project file, keeping its comments.

import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { redact } from '../../../observe/redact.ts';

const ConfigObject = z.record(z.string(), z.unknown());

function missing(action: string, field: 'value' | 'patch', what: string): SwitchboardError {
  return new SwitchboardError('INVALID_INPUT', `system.config action '${action}' needs '${field}': ${what}.`, {
    issues: [{ path: field, message: `required for action '${action}'` }],
  });
}

function unexpected(action: string, field: 'value' | 'patch', use: string): SwitchboardError {
  return new SwitchboardError('INVALID_INPUT', `system.config action '${action}' does not take '${field}'; ${use}.`, {
    issues: [{ path: field, message: `not allowed for action '${action}'` }],
  });
}

/** `system.config` — get, replace (`set`) or merge-patch (`patch`) the configuration. */
export const systemConfig = defineCapability({
  name: 'system.config',
  title: 'Configuration',
  description:
    "Read or change Switchboard's configuration (admins only). action 'get' returns the effective configuration. action 'set' replaces it with 'value' (a whole configuration object). action 'patch' applies 'patch' as an RFC 7396 JSON merge patch (objects merge, null deletes a key), e.g. {\"system\": {\"instance_ttl_ms\": 60000}}. Changes are validated first: an invalid key or value is rejected naming it and nothing changes. With persist: true the change is also written to the project .switchboard/config.toml, keeping its comments.",
  input: z.object({
    action: z.enum(['get', 'set', 'patch']).describe("'get' to read, 'set' to replace, 'patch' to merge-patch."),
    value: ConfigObject.optional().describe("The whole new configuration, for action 'set'."),
    patch: ConfigObject.optional().describe("An RFC 7396 merge patch, for action 'patch'."),
    persist: z
      .boolean()
      .default(false)
      .describe('Also write the change to the project config file (default false: in memory until restart).'),
  }),
  output: z.object({
    config: ConfigObject.describe('The effective configuration after the action.'),
    persisted: z.boolean(),
    file: z.string().optional().describe('The project config file that was written, when persisted.'),
  }),
  // `set` can drop whole sections and `patch` deletes keys set to null: destructive, though repeating one
  // call with the same input leaves the same configuration (idempotent).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  roles: ['admin'],
  handle: async ({ action, value, patch, persist }, ctx) => {
    const { config, bus } = ctx.services;
    // Secrets in the configuration (an API key, an Authorization header) never leave in an answer; `patch`
    // changes what is in effect, so a redacted value read back is never written over a real one.
    const shown = (c: Record<string, unknown>) => redact(c) as Record<string, unknown>;
    if (action === 'get') return { config: shown(config.get()), persisted: false };
    let next: Record<string, unknown>;
    if (action === 'set') {
      if (value === undefined) throw missing('set', 'value', 'the whole new configuration object');
      if (patch !== undefined) throw unexpected('set', 'patch', "use action 'patch' to merge a patch");
      next = await config.replace(value, { persist });
    } else {
      if (patch === undefined) throw missing('patch', 'patch', 'an RFC 7396 merge patch object');
      if (value !== undefined)
        throw unexpected('patch', 'value', "use action 'set' to replace the whole configuration");
      next = await config.patch(patch, { persist });
    }
    bus.publish({ type: 'config.changed', action, persisted: persist, at: new Date().toISOString() });
    return persist
      ? { config: shown(next), persisted: true, file: config.projectFile }
      : { config: shown(next), persisted: false };
  },
});
