// The one shared Ajv instance for JSON Schemas that arrive at run time (callback tools, output_schema, upstream
// tools). Compiled validators are cached by schema text, so a schema used on every turn is compiled once.
import { Ajv, type ValidateFunction } from 'ajv';

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const cache = new Map<string, ValidateFunction>();

/**
 * Compile (once) and return a validator, or the reason the schema itself is invalid.
 *
 * @example
 * const v = jsonValidator({ type: 'object', required: ['a'] });
 * if (v.ok && !v.validate({})) console.error(describeAjvErrors(v.validate.errors));
 */
export function jsonValidator(
  schema: Record<string, unknown>,
): { ok: true; validate: ValidateFunction } | { ok: false; message: string } {
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) return { ok: true, validate: hit };
  try {
    const validate = ajv.compile(schema);
    if (cache.size > 500) cache.clear();
    cache.set(key, validate);
    return { ok: true, validate };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** Ajv errors as short lines a model can act on: where, and what was expected. */
export function describeAjvErrors(errors: ValidateFunction['errors']): string[] {
  return (errors ?? []).map((e) => {
    const where = e.instancePath || '(root)';
    const extra =
      e.keyword === 'additionalProperties'
        ? ` '${(e.params as { additionalProperty?: string }).additionalProperty}'`
        : e.keyword === 'enum'
          ? `: ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)}`
          : '';
    return `${where} ${e.message ?? 'is invalid'}${extra}`;
  });
}
