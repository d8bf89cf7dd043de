// The audit trail: one record per call (who, how, what, outcome, how long), inputs redacted and capped,
// appended to the store in batches (BATCH_MS, BATCH_MAX) and pruned by retention.

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ErrorInfo } from '../core/errors.ts';
import { capabilityNameOf } from '../core/names.ts';
import type { CallRequest, CallState, Outcome } from '../core/pipeline.ts';
import { AuditBatch, type AuditBatchData, batchRecords, cleanField } from '../store/audit-segment.ts';
import type { AuditSink, Store } from '../store/contract.ts';
import { BATCH_MAX, FlushTimer } from './batch.ts';
import { redactedJson } from './redact.ts';

export interface AuditSettings {
  enabled: boolean;
  retention_days: number;
  max_input_bytes: number;
}

export class AuditWriter {
  /** Records gathered since the last write, in columns (see AuditBatch for why). */
  private batch = new AuditBatch(BATCH_MAX);
  /** The last write to the store, when the store has no sink (flush waits for it). */
  private lastAppend: Promise<void> = Promise.resolve();
  private readonly pruneTimer: NodeJS.Timeout;
  /**
   * The store's off-thread writer, when it has one (SQLite files); otherwise batches go through appendMany.
   * Opened with the first batch, not at start-up: its worker thread is a V8 isolate of its own (~10 MB and a
   * few ms of CPU), which a server that has answered nothing yet should not pay for. `null` until then.
   */
  private sinkOrNone: AuditSink | undefined | null = null;
  private closed = false;
  private readonly due = new FlushTimer(() => this.write());

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly settings: () => AuditSettings,
  ) {
    this.pruneTimer = setInterval(() => void this.prune(), 60 * 60_000);
    this.pruneTimer.unref();
  }

  private sink(): AuditSink | undefined {
    if (this.sinkOrNone === null)
      this.sinkOrNone = this.store.audit.openSink?.((message) =>
        this.logger.error({ err: message }, 'audit write failed'),
      );
    return this.sinkOrNone;
  }

  /** Pipeline observer: queue one record for the call (`at` is when it started). */
  readonly observe = (state: CallState, outcome: Outcome): void => {
    const s = this.settings();
    if (!s.enabled) return;
    const durationMs = state.durationMs;
    const n = this.batch.add(
      Date.now() - durationMs,
      Math.round(durationMs * 1000) / 1000,
      state.req.principal.id,
      state.req.transport,
      state.entry.capability.name,
      outcome.ok ? '' : outcome.error.code,
      // Generated, a checked X-Request-Id (REST) or the client's JSON-RPC id (MCP): tabs and line breaks would
      // break the record's line, so they become spaces.
      cleanField(state.ctx.requestId),
      outcome.ok ? '' : JSON.stringify(outcome.error.message.slice(0, 1000)),
      redactedJson(state.req.input ?? {}, s.max_input_bytes),
    );
    this.due.added(n);
  };

  /** Refusal observer: a call to an unknown or hidden tool is recorded too — probing is worth seeing. */
  readonly refused = (req: CallRequest, error: ErrorInfo): void => {
    const s = this.settings();
    if (!s.enabled) return;
    const n = this.batch.add(
      Date.now(),
      0,
      req.principal.id,
      req.transport,
      // In capability form (task__create → task.create), as every other record and `audit --tool` expect; the
      // name is the caller's, so it is cleaned of tabs and line breaks before it reaches the record format.
      cleanField(capabilityNameOf(req.name.slice(0, 200))),
      error.code,
      cleanField(req.requestId ?? randomUUID()),
      JSON.stringify(error.message.slice(0, 1000)),
      redactedJson(req.input ?? {}, s.max_input_bytes),
    );
    this.due.added(n);
  };

  /** Write what is queued and wait until it is stored (so readers, in any process, see it). */
  async flush(): Promise<void> {
    this.write();
    await this.lastAppend;
    // Nothing was ever written when the sink is not open: nothing to wait for.
    await this.sinkOrNone?.flush();
  }

  /** Hand what is queued to the store; with the off-thread writer, without waiting for it. */
  private write(): void {
    this.due.written();
    if (this.batch.count === 0) return;
    const batch = this.batch.data();
    this.batch = new AuditBatch(BATCH_MAX);
    // A call that finishes while the hub shuts down is not recorded (the store is closing).
    if (this.closed) return;
    const sink = this.sink();
    if (sink) sink.write(batch);
    else this.lastAppend = this.lastAppend.then(() => this.append(batch));
  }

  /** A store without a sink (in memory) takes whole records. */
  private async append(batch: AuditBatchData): Promise<void> {
    const records = batchRecords(batch);
    try {
      await this.store.audit.appendMany(records);
    } catch (err) {
      this.logger.error({ err: (err as Error).message, records: records.length }, 'audit append failed');
    }
  }

  /** Delete records older than the retention; returns how many. */
  async prune(now = Date.now()): Promise<number> {
    const days = this.settings().retention_days;
    if (days <= 0) return 0;
    try {
      return await this.store.audit.prune(new Date(now - days * 86_400_000).toISOString());
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'audit prune failed');
      return 0;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.pruneTimer);
    await this.flush();
    this.closed = true;
    await this.sinkOrNone?.close();
  }
}
