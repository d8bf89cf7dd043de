// Who runs an MCP task (its holder, mcp-task-table.ts) and what becomes of a task whose holder is gone: whether this
// instance holds a lease others can check, whether a task's holder still lives, and the failed record a task ends as
// when it does not — with how to go on with the work it stood for.
import { hostname } from 'node:os';
import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { hubInstanceId } from '../core/hub-instance.ts';
import { processAlive } from '../core/process.ts';
import type { Store } from '../store/contract.ts';
import type { StoredTask } from '../store/records/mcp-tasks.ts';

/** Whether this instance keeps a lease in the shared instance list (on Redis, a hub that serves does). */
export async function holdsLease(store: Store, instanceId: string): Promise<boolean> {
  if (store.kind !== 'redis') return false;
  return (await store.instances.get(hubInstanceId(instanceId)).catch(() => undefined)) !== undefined;
}

/**
 * Whether the instance that runs a task is gone. On Redis a hub that serves keeps a lease in the instance list,
 * which runs out wherever it crashed; otherwise (SQLite: one machine) its process is checked. A holder on another
 * machine without a lease cannot be judged, and is taken to be alive.
 */
export async function holderGone(
  record: StoredTask,
  at: { here: string; running: (id: string) => boolean; store: Store; now: number },
): Promise<boolean> {
  const { holder } = record;
  if (holder.instance === at.here) return !at.running(record.id);
  if (holder.leased) {
    const lease = await at.store.instances.get(hubInstanceId(holder.instance));
    return !lease || lease.expiresAt < at.now;
  }
  return holder.host === hostname() && !processAlive(holder.pid);
}

/** The record of a task whose holder is gone: failed, saying so, kept `retainMs` from now at least. */
export function orphanEnded(record: StoredTask, now: number, retainMs: number): StoredTask {
  const ended: StoredTask = {
    ...record,
    status: 'failed',
    error: stoppedError(record, 'it is gone (it crashed, was killed, or its lease in the store ran out)'),
    lastUpdatedAt: new Date(now).toISOString(),
    expiresAt: Math.max(record.expiresAt, now + retainMs),
  };
  delete ended.inputRequests;
  ended.ttlMs = ended.expiresAt - Date.parse(ended.createdAt);
  return ended;
}

/** Why a task ended with its instance, and how to go on with the work it stood for. */
export function stoppedError(record: StoredTask, what: string): NonNullable<StoredTask['error']> {
  return {
    code: ProtocolErrorCode.InternalError,
    message: `The Switchboard instance running this task (${record.holder.instance}) ended it unfinished: ${what}. Call ${record.tool} again; a script run or agent session it started is kept (script__status or agent__list shows it, and it can be continued).`,
  };
}
