// The one shared Ajv setup for JSON Schemas that arrive at run time (callback tools, output_schema, upstream
// tools). Each schema is compiled by the engine of the dialect its `$schema` declares (draft-07 and -06, 2019-09,
// 2020-12: an SDK-built MCP server declares 2020-12, which the draft-07 engine cannot even compile). Compiled
// validators are cached by dialect and schema text, so a schema used on every turn or call is compiled once.
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';

export type JsonSchemaDialect = 'draft-07' | '2019-09' | '2020-12';

const OPTIONS = { allErrors: true, strict: false, validateFormats: false };
const engines: Partial<Record<JsonSchemaDialect, Ajv>> = {};
const cache = new Map<string, ValidateFunction>();

/** The Ajv engine for a dialect, made the first time a schema of that dialect is compiled. */
function engineFor(dialect: JsonSchemaDialect): Ajv {
  engines[dialect] ??=
    dialect === '2020-12' ? new Ajv2020(OPTIONS) : dialect === '2019-09' ? new Ajv2019(OPTIONS) : new Ajv(OPTIONS);
  return engines[dialect];
}

const DRAFT_06 = 'https://json-schema.org/draft-06/schema';

/** A `$schema` URI without the differences that do not matter (http or https, a trailing `#`). */
const canonical = (uri: string) => uri.replace(/^http:/, 'https:').replace(/#$/, '');

/** The dialect a schema declares in `$schema` (`assumed` when it declares none); undefined for one Ajv lacks. */
function dialectOf(declared: unknown, assumed: JsonSchemaDialect): JsonSchemaDialect | undefined {
  if (typeof declared !== 'string') return assumed;
  const uri = canonical(declared);
  if (uri === 'https://json-schema.org/draft/2020-12/schema') return '2020-12';
  if (uri === 'https://json-schema.org/draft/2019-09/schema') return '2019-09';
  // Draft-07 only adds to draft-06: one engine reads both.
  if (uri === 'https://json-schema.org/draft-07/schema' || uri === DRAFT_06) return 'draft-07';
  return undefined;
}

/**
 * Compile (once) and return a validator, or the reason the schema itself is invalid. A schema without `$schema` is
 * read as `assumed` (draft-07 unless told: MCP tool schemas are 2020-12 by default).
 *
 * @example
 * const v = jsonValidator({ type: 'object', required: ['a'] });
 * if (v.ok && !v.validate({})) console.error(describeAjvErrors(v.validate.errors));
 */
export function jsonValidator(
  schema: Record<string, unknown>,
  assumed: JsonSchemaDialect = 'draft-07',
): { ok: true; validate: ValidateFunction } | { ok: false; message: string } {
  const dialect = dialectOf(schema.$schema, assumed);
  if (!dialect)
    return {
      ok: false,
      message: `"$schema": ${JSON.stringify(schema.$schema).slice(0, 200)} is not a dialect this hub validates (JSON Schema 2020-12, 2019-09, draft-07 or draft-06).`,
    };
  const key = `${dialect} ${JSON.stringify(schema)}`;
  const hit = cache.get(key);
  if (hit) return { ok: true, validate: hit };
  try {
    // The draft-07 engine knows its own meta-schema only: a draft-06 schema is compiled as draft-07.
    const { $schema, ...rest } = schema;
    const validate = engineFor(dialect).compile(
      typeof $schema === 'string' && canonical($schema) === DRAFT_06 ? rest : schema,
    );
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
