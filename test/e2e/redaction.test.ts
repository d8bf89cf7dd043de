// End-to-end: the keys redaction must mask (and must leave readable) through the real server — the event stream
// (`GET /v1/events`, live and `?recent=N`), the audit trail in the store, and `switchboard audit --json` — over REST.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/index.ts';
import { runCli, startHttpServer, tempProject } from '../helpers/cli.ts';
import { secretTableInput, secretTableRedacted } from '../helpers/secret-keys.ts';
import { eventAfter } from '../helpers/sse.ts';

describe('secret-looking keys of a call', () => {
  const dir = tempProject();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are masked in the event stream, the audit trail and `switchboard audit --json`; the others stay readable', async () => {
    const server = await startHttpServer(dir);
    try {
      // fixture.echo takes `text` and ignores the other keys; events and audit carry the input as sent.
      const post = () =>
        fetch(`${server.url}/v1/tools/fixture__echo`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(secretTableInput()),
        });
      const isEcho = (e: { type: string; name?: string }) => e.type === 'call' && e.name === 'fixture.echo';
      const live = await eventAfter(`${server.url}/v1/events`, post, isEcho);
      expect(live.event.input).toEqual(secretTableRedacted());
      expect(live.text).not.toContain('SECRET-');
      // The recent calls a late subscriber is sent first go through the same masking.
      const recent = await eventAfter(`${server.url}/v1/events?recent=20`, async () => {}, isEcho);
      expect(recent.event.input).toEqual(secretTableRedacted());
      expect(recent.text).not.toContain('SECRET-');
    } finally {
      // Stopping the server flushes the audit writer: the record is in the store after this.
      await server.stop();
    }

    const store = SqliteStore.open(join(dir, '.switchboard/state.db'));
    try {
      const [record] = await store.audit.query({ capability: 'fixture.echo' });
      expect(JSON.parse(record.input)).toEqual(secretTableRedacted());
    } finally {
      await store.close();
    }

    const cli = await runCli(dir, ['audit', '--tool', 'fixture__echo', '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const [listed] = JSON.parse(cli.stdout);
    expect(JSON.parse(listed.input)).toEqual(secretTableRedacted());
    expect(cli.stdout).not.toContain('SECRET-');
  });
});
