// The shared Ajv setup reads each schema in the dialect it declares: SDK-built MCP servers declare 2020-12, which
// the draft-07 engine cannot compile at all.
import { describe, expect, it } from 'vitest';
import { describeAjvErrors, jsonValidator } from '../../src/core/ajv.ts';

describe('jsonValidator', () => {
  it('compiles and checks a schema in every dialect it declares: 2020-12, 2019-09, draft-07, draft-06', () => {
    for (const $schema of [
      'https://json-schema.org/draft/2020-12/schema',
      'https://json-schema.org/draft/2019-09/schema',
      'http://json-schema.org/draft-07/schema#',
      'http://json-schema.org/draft-06/schema#',
    ]) {
      const v = jsonValidator({ $schema, type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] });
      expect(v.ok, $schema).toBe(true);
      if (!v.ok) continue;
      expect(v.validate({ n: 1 })).toBe(true);
      expect(v.validate({ n: 'x' })).toBe(false);
      expect(describeAjvErrors(v.validate.errors)).toEqual(['/n must be integer']);
    }
  });

  it('reads a schema without $schema in the dialect asked for (2020-12 prefixItems, draft-07 by default)', () => {
    const tuple = { type: 'array', prefixItems: [{ type: 'string' }], items: false };
    const modern = jsonValidator(tuple, '2020-12');
    expect(modern.ok).toBe(true);
    expect(modern.ok && modern.validate(['a', 'b'])).toBe(false);
    expect(modern.ok && modern.validate(['a'])).toBe(true);
    // Draft-07 has no prefixItems, and `items: false` forbids every item.
    const classic = jsonValidator(tuple);
    expect(classic.ok).toBe(true);
    expect(classic.ok && classic.validate(['a'])).toBe(false);
  });

  it('says which $schema it cannot read, and which it can', () => {
    expect(jsonValidator({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' })).toEqual({
      ok: false,
      message:
        '"$schema": "http://json-schema.org/draft-04/schema#" is not a dialect this hub validates (JSON Schema 2020-12, 2019-09, draft-07 or draft-06).',
    });
  });
});
