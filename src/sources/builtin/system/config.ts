// system.config: read or change the live configuration (admins only). Every change is validated as a
// whole before it applies; with persist it is also written to the project file, keeping its comments.

import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { REDACTED, redact } from '../../../observe/redact.ts';

const ConfigObject = z.record(z.string(), z.unknown());
type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value `get` showed masked: a secret whole, or a URL with its password masked (`postgres://app:[redacted]@db`). */
const isMasked = (v: unknown): v is string => typeof v === 'string' && v.includes(REDACTED);

/**
 * What `get` shows comes back to `set` with masks where the secrets were (`[auth]` whole, an API key, a header, a
 * URL's password). A value shown masked that comes back as it was shown keeps the value in effect as written (`raw`:
 * `${VAR}` stays a reference, so `persist` never writes the secret it expands to), or drops the key when only a
 * default stood there. List items are matched by `name` (`[[servers]]`, which an edit may reorder), else by place.
 */
function unmask(given: unknown, shown: unknown, raw: unknown): unknown {
  if (isMasked(given)) return given === shown ? raw : given;
  if (Array.isArray(given)) {
    const at = (list: unknown, item: unknown, i: number) => {
      if (!Array.isArray(list)) return undefined;
      const name = isPlain(item) && typeof item.name === 'string' ? item.name : undefined;
      return name === undefined ? list[i] : list.find((x) => isPlain(x) && x.name === name);
    };
    return given.map((item, i) => unmask(item, at(shown, item, i), at(raw, item, i)));
  }
  if (!isPlain(given)) return given;
  const out: Plain = {};
  for (const [key, value] of Object.entries(given)) {
    const kept = unmask(value, isPlain(shown) ? shown[key] : undefined, isPlain(raw) ? raw[key] : undefined);
    if (kept !== undefined) out[key] = kept;
  }
  return out;
}

/**
 * The same for a merge patch built from what `get` showed: a mask where the value in effect is shown masked leaves
 * that key out of the patch (unchanged, and never copied into the project file from elsewhere); a list replaces
 * the whole list in a merge patch, so its items are unmasked as `set` does.
 */
function unmaskPatch(patch: Plain, shown: unknown, raw: unknown): Plain {
  const out: Plain = {};
  for (const [key, value] of Object.entries(patch)) {
    const shownHere = isPlain(shown) ? shown[key] : undefined;
    const rawHere = isPlain(raw) ? raw[key] : undefined;
    if (isMasked(value) && value === shownHere) continue;
    if (Array.isArray(value)) out[key] = unmask(value, shownHere, rawHere);
    else out[key] = isPlain(value) ? unmaskPatch(value, shownHere, rawHere) : value;
  }
  return out;
}

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
    "Read or change Switchboard's configuration (admins only). action 'get' returns the effective configuration (and, in 'overridden', values set by serve's options). action 'set' replaces it with 'value' (a whole configuration object). action 'patch' applies 'patch' as an RFC 7396 JSON merge patch (objects merge, null deletes a key), e.g. {\"system\": {\"instance_ttl_ms\": 60000}}. Changes are validated first: an invalid key or value is rejected naming it and nothing changes. With persist: true the change is also written to the project .switchboard/config.toml, keeping its comments.",
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
    overridden: z
      .array(
        z.object({
          key: z.string().describe('Dotted key, e.g. server.port.'),
          value: z.unknown().describe('The value in effect (what config shows).'),
          from: z.string().describe('Where it came from, e.g. serve --port 0.'),
          configured: z.unknown().describe('What the configuration files (or the default) say.'),
        }),
      )
      .describe('Values in effect that the configuration files do not give, such as the port serve --port bound.'),
    persisted: z.boolean(),
    file: z.string().optional().describe('The project config file that was written, when persisted.'),
  }),
  // `set` can drop whole sections and `patch` deletes keys set to null: destructive, though repeating one
  // call with the same input leaves the same configuration (idempotent).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  roles: ['admin'],
  handle: async ({ action, value, patch, persist }, ctx) => {
    const { config, bus } = ctx.services;
    // Secrets in the configuration (an API key, an Authorization header) never leave in an answer, and a mask sent
    // back (`set` of what `get` showed, or a patch copied from it) is never written over a real one.
    const shown = (c: Record<string, unknown>) => redact(c) as Record<string, unknown>;
    const overridden = redact(config.overridden()) as ReturnType<typeof config.overridden>;
    if (action === 'get') return { config: shown(config.get()), overridden, persisted: false };
    let next: Record<string, unknown>;
    if (action === 'set') {
      if (value === undefined) throw missing('set', 'value', 'the whole new configuration object');
      if (patch !== undefined) throw unexpected('set', 'patch', "use action 'patch' to merge a patch");
      next = await config.replace(unmask(value, shown(config.get()), config.raw()), { persist });
    } else {
      if (patch === undefined) throw missing('patch', 'patch', 'an RFC 7396 merge patch object');
      if (value !== undefined)
        throw unexpected('patch', 'value', "use action 'set' to replace the whole configuration");
      next = await config.patch(unmaskPatch(patch, shown(config.get()), config.raw()), { persist });
    }
    bus.publish({ type: 'config.changed', action, persisted: persist, at: new Date().toISOString() });
    return persist
      ? { config: shown(next), overridden, persisted: true, file: config.projectFile }
      : { config: shown(next), overridden, persisted: false };
  },
});
