// Redaction: secret-looking keys are masked at any depth and records are capped in size.
import { describe, expect, it } from 'vitest';
import { maskUrlSecrets, outwardEvent, REDACTED, redact, redactedJson } from '../../src/observe/redact.ts';
import { MUST_MASK, MUST_NOT_MASK, URL_SECRETS } from '../helpers/secret-keys.ts';

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

describe('which keys are secret', () => {
  // Both paths: the copy (redact) and the serialisation that first checks whether anything needs masking.
  it.each(MUST_MASK)('masks %s', (key) => {
    expect(redact({ [key]: 'v', nested: [{ [key]: 'v' }] })).toEqual({
      [key]: REDACTED,
      nested: [{ [key]: REDACTED }],
    });
    expect(JSON.parse(redactedJson({ nested: { [key]: 'v' } }))).toEqual({ nested: { [key]: REDACTED } });
  });
  it.each(MUST_NOT_MASK)('leaves %s readable', (key) => {
    expect(redact({ [key]: 'v' })).toEqual({ [key]: 'v' });
    expect(JSON.parse(redactedJson({ nested: { [key]: 'v' } }))).toEqual({ nested: { [key]: 'v' } });
  });
  it('masks the whole value under a secret key, whatever it holds', () => {
    expect(redact({ credentials: { user: 'ada', list: [1, 2] } })).toEqual({ credentials: REDACTED });
  });
});

describe('credentials inside URLs', () => {
  // Both paths again, under an ordinary key at any depth: the copy and the checked serialisation.
  it.each(URL_SECRETS)('masks what %s holds and keeps the rest readable', (key, given, masked) => {
    expect(redact({ [key]: given, nested: [given] })).toEqual({ [key]: masked, nested: [masked] });
    expect(JSON.parse(redactedJson({ nested: { [key]: given } }))).toEqual({ nested: { [key]: masked } });
  });
  it('judges a parameter by its decoded name, with the same rule as keys', () => {
    expect(maskUrlSecrets('https://h/x?api%5Fkey=s1&sort_key=a&Password=s2')).toBe(
      `https://h/x?api%5Fkey=${REDACTED}&sort_key=a&Password=${REDACTED}`,
    );
  });
  it('masks the error message of a call event, where a driver quotes its connection string', () => {
    const event = outwardEvent({
      type: 'call',
      input: {},
      error: { code: 'UNAVAILABLE', message: 'connect ECONNREFUSED postgres://app:hunter2@db:5432/prod' },
    });
    expect(event.error).toEqual({
      code: 'UNAVAILABLE',
      message: `connect ECONNREFUSED postgres://app:${REDACTED}@db:5432/prod`,
    });
  });
  it('stays linear on long strings built to make the scan backtrack', () => {
    const hostile = ['a.'.repeat(100_000), '=a:'.repeat(100_000), `x://${'@'.repeat(200_000)}`, 'a://?'.repeat(50_000)];
    const started = performance.now();
    for (const text of hostile) maskUrlSecrets(text);
    // Quadratic work on these would take minutes; linear work takes milliseconds (bound loose for a busy machine).
    expect(performance.now() - started).toBeLessThan(2_000);
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

describe('call events', () => {
  it('mask secrets and cap large values before they are stored or streamed', async () => {
    const { testHub } = await import('../helpers/hub.ts');
    const { defineCapability } = await import('../../src/core/capability.ts');
    const { z } = await import('zod');
    const hub = await testHub();
    hub.services.registry.add(
      defineCapability({
        name: 'demo.login',
        description: 'x',
        input: z.object({ user: z.string(), password: z.string(), blob: z.string().optional() }),
        handle: () => ({ token: 'abc', ok: true }),
      }),
    );
    await hub.call('demo.login', { user: 'ada', password: 'hunter2' });
    await hub.call('demo.login', { user: 'ada', password: 'x', blob: 'y'.repeat(10_000) });
    // What leaves the process (resources, get_state, SSE) goes through the same outward view.
    const events = (await hub.services.store.events.recent(10))
      .map((e) => e.event as any)
      .filter((e) => e.type === 'call');
    expect(events[0]).toMatchObject({
      input: { user: 'ada', password: REDACTED },
      output: { token: REDACTED, ok: true },
    });
    expect(typeof events[1].input).toBe('string');
    expect(events[1].input).toMatch(/truncated/);
    expect(events[1].input).not.toContain('"password":"x"');
    await hub.close();
  });
});

describe('logs', () => {
  it('never carry secret-looking keys', async () => {
    const { createLogger } = await import('../../src/observe/logger.ts');
    const { Writable } = await import('node:stream');
    let out = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        out += chunk;
        done();
      },
    });
    const logger = createLogger('info', sink);
    logger.info(
      { data: { user: 'ada', password: 'hunter2', headers: { Authorization: 'Bearer sb_x' } } },
      'handler log',
    );
    expect(out).toContain('ada');
    expect(out).not.toContain('hunter2');
    expect(out).not.toContain('sb_x');
  });
});

describe('Ring', () => {
  it('keeps the newest items, oldest first', async () => {
    const { Ring } = await import('../../src/observe/events.ts');
    const r = new Ring<number>(3);
    for (let i = 1; i <= 5; i++) r.push(i);
    expect(r.last(10)).toEqual([3, 4, 5]);
    expect(r.last(2)).toEqual([4, 5]);
    expect(new Ring<number>(0).last(5)).toEqual([]);
  });
});

describe('secret-looking keys', () => {
  it('are matched on the last word, so ordinary keys stay readable', () => {
    const out = redact({
      author: 'a',
      max_tokens: 5,
      session_id: 's',
      githubToken: 'g',
      'x-api-key': 'k',
      clientSecret: 'c',
      refresh_token: 'r',
    });
    expect(out).toEqual({
      author: 'a',
      max_tokens: 5,
      session_id: 's',
      githubToken: REDACTED,
      'x-api-key': REDACTED,
      clientSecret: REDACTED,
      refresh_token: REDACTED,
    });
  });
});
