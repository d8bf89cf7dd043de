// One turn's appends to its transcript: providers emit events synchronously, the store writes them in order in the
// background (one write per emit; on Redis one script each), and the turn waits for them before it reads or ends.

import type { SessionStore } from './session-store.ts';
import type { TranscriptEvent } from './session-types.ts';

export interface TranscriptWriter {
  /** Queue events behind those already queued; never throws (a failed write is reported once through onError). */
  append(events: TranscriptEvent[]): void;
  /** Resolves when everything queued so far is written; rejects with the first failure. */
  flush(): Promise<void>;
}

/**
 * A writer whose every append is fenced by `holder`: once another turn took the session's lock over, nothing more
 * is written, and the first failure stops the chain (later events would leave a gap in the transcript).
 *
 * @example
 * const w = transcriptWriter(sessions, 'rev-1', instanceId, (err) => controller.abort(err));
 * w.append([{ type: 'turn_start' }]); await w.flush();
 */
export function transcriptWriter(
  sessions: SessionStore,
  name: string,
  holder: string,
  onError: (err: unknown) => void,
  /** Told after each write, with how many events it added (the hub publishes `agent.transcript`). */
  onWritten?: (count: number) => void,
): TranscriptWriter {
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown;
  return {
    append(events) {
      if (!events.length || failure !== undefined) return;
      chain = chain.then(async () => {
        if (failure !== undefined) return;
        try {
          await sessions.append(name, events, { holder });
          onWritten?.(events.length);
        } catch (err) {
          failure = err;
          onError(err);
        }
      });
    },
    async flush() {
      await chain;
      if (failure !== undefined) throw failure;
    },
  };
}
