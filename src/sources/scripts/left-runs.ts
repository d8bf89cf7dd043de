// Unfinished runs whose client is gone. A new stdio Switchboard starts its own stack (mekara keeps one per
// process), so a run its predecessor left is not taken over: it is listed to the caller, continued only when
// the caller names its run_id, and deleted once nobody touched it for `[scripts] unfinished_retention_days`.
import { hubInstanceId } from '../../core/hub-instance.ts';
import { processAlive } from '../../core/process.ts';
import type { ScriptRun, Store } from '../../store/contract.ts';

/** The key of runs a stdio hub let go of when it stopped cleanly. */
export const RELEASED_STDIO = 'stdio';

/**
 * Whether a run's client key names a stdio Switchboard that is gone: released when it stopped, or bound to a hub
 * that no longer runs. On a store several machines share (Redis) the instance list decides: a hub that serves
 * registers there and keeps a lease, so a crashed one's lease runs out wherever it ran. On a SQLite file (one
 * machine) hubs do not register, and the process id is checked.
 */
export async function stdioGone(store: Store, key: string): Promise<boolean> {
  if (key === RELEASED_STDIO) return true;
  const m = /^stdio:((\d+)-.+)$/.exec(key);
  if (!m) return false;
  if (store.kind === 'redis') {
    const lease = await store.instances.get(hubInstanceId(m[1]));
    return !lease || lease.expiresAt < Date.now();
  }
  return !processAlive(Number(m[2]));
}

/** Who holds an unfinished run, as `script__status` names it to a client that has none. */
export async function holderOf(store: Store, run: ScriptRun): Promise<string> {
  if (await stdioGone(store, run.clientKey)) return 'left by a Switchboard process that has ended';
  if (run.clientKey.startsWith('stdio:')) return 'held by another Switchboard process that is still running';
  if (run.clientKey.startsWith('session:')) return 'held by an HTTP session';
  if (run.clientKey.startsWith('run:')) return 'driven by its run_id';
  return `held by ${run.clientKey.split(':')[0]} calls`;
}

/**
 * Delete the unfinished runs (and journals) nobody touched since `before`, except those of a stdio Switchboard
 * still running and those `inUse` here. Looks at the 500 most recently active unfinished runs (the store's page
 * limit): older ones are reached on a later pass, once newer ones have gone.
 */
export async function pruneUnfinished(store: Store, before: string, inUse: (id: string) => boolean): Promise<number> {
  const open = await store.scriptRuns.list({ status: 'running', limit: 500 });
  let removed = 0;
  for (const run of open) {
    if (run.updatedAt >= before || inUse(run.id)) continue;
    if (run.clientKey.startsWith('stdio:') && !(await stdioGone(store, run.clientKey))) continue;
    if (await store.scriptRuns.remove(run.id)) removed++;
  }
  return removed;
}
