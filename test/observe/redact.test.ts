// Redaction: secret-looking keys are masked at any depth and records are capped in size.
import { describe, expect, it } from 'vitest';
import { REDACTED, redact, redactedJson } from '../../src/observe/redact.ts';

describe('redact', () => {
  it('masks secret-looking keys at any depth and keeps the rest', () => {
    const out = redact({
      text: 'hi',
      apiKey: 'k',
      nested: { password: 'p', list: [{ Authorization: 'Bearer x', ok: 1 }] },
    });
    expect(out).toEqual({
      text: 'hi',
      apiKey: REDACTED,
      nested: { password: REDACTED, list: [{ Authorization: REDACTED, ok: 1 }] },
    });
  });
});

describe('redactedJson', () => {
  it('caps the record at maxBytes and says how big it was', () => {
    const text = redactedJson({ text: 'é'.repeat(5000) }, 4096);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
    expect(text).toMatch(/…\[truncated, 10011 bytes\]$/);
  });
  it('leaves small records whole', () => {
    expect(redactedJson({ a: 1, token: 't' })).toBe(`{"a":1,"token":"${REDACTED}"}`);
  });
});
