// The store as handlers and transports see it: reads of the event log and the audit trail first write what this
// process still holds in its batches, so a caller always sees its own calls.
import type { Store, StoredEvent } from '../store/contract.ts';

/**
 * @param flush writes the queued hub events and audit records
 * @param recent the newest events, stored and in memory (`EventHistory.recent`)
 */
export function readYourWrites(
  store: Store,
  flush: () => Promise<void>,
  recent: (n: number) => Promise<StoredEvent[]>,
): Store {
  return Object.create(store, {
    events: {
      value: Object.assign(Object.create(store.events), {
        recent: async (n: number) => {
          await flush();
          return recent(n);
        },
      }),
    },
    audit: {
      value: Object.assign(Object.create(store.audit), {
        query: async (q?: object) => {
          await flush();
          return store.audit.query(q);
        },
      }),
    },
  });
}
