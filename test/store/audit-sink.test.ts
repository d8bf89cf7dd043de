// The SQLite audit writer thread, when it cannot write: a project folder removed under a running hub (a temporary
// checkout, a cleaned-up directory). Its thread cannot open the database and ends; a flush and the close must not
// wait for it for ever (the hub's close waited on them), and the records it could not write are reported.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import type { NewAuditRecord } from '../../src/store/contract.ts';
import { SqliteStore } from '../../src/store/sqlite/index.ts';
import { testHub } from '../helpers/hub.ts';

const record: NewAuditRecord = {
  at: new Date().toISOString(),
  principal: 'p',
  transport: 'cli',
  capability: 'demo.echo',
  input: '{}',
  outcome: 'ok',
  errorCode: null,
  errorMessage: null,
  durationMs: 1,
  requestId: 'r-1',
};

it('settles flush and close when its thread could not open the database, and reports what was not written', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-audit-sink-'));
  const store = SqliteStore.open(join(dir, 'switchboard.db'));
  rmSync(dir, { recursive: true, force: true });
  const errors: string[] = [];
  const sink = store.audit.openSink?.((message) => errors.push(message));
  expect(sink).toBeDefined();
  sink?.write([record]);
  await sink?.flush();
  expect(errors).toEqual([expect.stringMatching(/^the audit writer stopped: .*directory does not exist/)]);
  sink?.write([record, record]);
  await sink?.close();
  expect(errors.slice(1)).toEqual([
    expect.stringMatching(/^the audit writer has stopped: audit records are not written to .*switchboard\.db$/),
    '2 audit records were not written: the audit writer had stopped',
  ]);
  store.close();
});

it('lets a hub whose project folder was removed close', async () => {
  const hub = await testHub();
  await hub.ready();
  await hub.call('system.health', {}); // an audit record, queued: the writer opens with its batch
  rmSync(hub.dir, { recursive: true, force: true });
  // It waited for ever before (the test's timeout would end it).
  await expect(hub.close()).resolves.toBeUndefined();
});
