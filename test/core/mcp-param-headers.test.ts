// SEP-2243 headers, both sides: what Switchboard sends upstream must pass the check it applies to its own callers.
import { describe, expect, it } from 'vitest';
import {
  checkParamHeaders,
  decodeParamHeader,
  encodeParamHeader,
  paramHeadersOf,
  paramHeaderValues,
} from '../../src/core/mcp-param-headers.ts';

const schema = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    level: { type: 'integer', 'x-mcp-header': 'Level' },
    dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
    where: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
  },
};

describe('Mcp-Param headers', () => {
  it('sends plain ASCII as it is and anything else as =?base64?…?=, and decodes it back', () => {
    expect(encodeParamHeader('eu-west')).toBe('eu-west');
    for (const value of ['Zürich', ' padded ', '', '=?base64?abc?=', 'line\nbreak', '日本'])
      expect(decodeParamHeader(encodeParamHeader(value))).toBe(value);
    expect(encodeParamHeader('Zürich')).toBe(`=?base64?${Buffer.from('Zürich').toString('base64')}?=`);
  });

  it('mirrors every declared primitive the call carries, and what it sends passes the server check', () => {
    const declared = paramHeadersOf(schema);
    const args = { region: 'Zürich', level: 3, dry: false, where: { zone: 'b' } };
    const headers = paramHeaderValues(declared, args);
    expect(headers).toEqual({
      'Mcp-Param-Region': encodeParamHeader('Zürich'),
      'Mcp-Param-Level': '3',
      'Mcp-Param-Dry': 'false',
      'Mcp-Param-Zone': 'b',
    });
    const asReceived = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(checkParamHeaders(declared, args, asReceived)).toEqual({ ok: true });
  });

  it('leaves out absent, null and non-primitive values and unsafe integers', () => {
    const declared = paramHeadersOf(schema);
    expect(paramHeaderValues(declared, { region: null, level: 2 ** 60, where: 'flat' })).toEqual({});
  });
});
