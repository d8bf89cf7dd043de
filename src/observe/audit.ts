// The audit trail: one record per call (who, how, what, outcome, how long), inputs redacted and capped,
// appended to the store in batches (BATCH_MS, BATCH_MAX) and pruned by retention.

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ErrorInfo } from '../core/errors.ts';
import { isoTime } from '../core/iso-time.ts';
import { capabilityNameOf } from '../core/names.ts';
import type { CallRequest, CallState, Outcome } from '../core/pipeline.ts';
import type { AuditSink, NewAuditRecord, Store } from '../store/contract.ts';
import { singleLine } from '../store/records/audit.ts';
import { BatchQueue } from './batch.ts';
import { maskUrlSecrets, redactedJson } from './redact.ts';

export interface AuditSettings {
  enabled: boolean;
  retention_days: number;
  max_input_bytes: number;
}

export class AuditWriter {
  /** Records gathered since the last write: plain records, as the store takes them (only it knows their format). */
  private readonly queue = new BatchQueue<NewAuditRecord>((records) => this.write(records));
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
    const record: NewAuditRecord = {
      at: isoTime(Date.now() - durationMs),
      principal: state.req.principal.id,
      transport: state.req.transport,
      capability: state.entry.capability.name,
      input: redactedJson(state.req.input ?? {}, s.max_input_bytes),
      outcome: outcome.ok ? 'ok' : 'error',
      errorCode: outcome.ok ? null : outcome.error.code,
      errorMessage: outcome.ok ? null : maskUrlSecrets(outcome.error.message).slice(0, 1000),
      durationMs: Math.round(durationMs * 1000) / 1000,
      // Generated, a checked X-Request-Id (REST) or the client's JSON-RPC id (MCP): a record's text fields are
      // single lines, so tabs and line breaks become spaces.
      requestId: singleLine(state.ctx.requestId),
    };
    // The result cache answered: the capability did not run, and the trail says so.
    if (state.cache === 'hit') record.cached = true;
    // The caller's W3C trace, which this call continued: the row leads to the trace.
    if (state.ctx.trace) record.traceId = state.ctx.trace.traceId;
    this.queue.push(record);
  };

  /** Refusal observer: a call to an unknown or hidden tool is recorded too — probing is worth seeing. */
  readonly refused = (req: CallRequest, error: ErrorInfo): void => {
    const s = this.settings();
    if (!s.enabled) return;
    this.queue.push({
      at: isoTime(Date.now()),
      principal: req.principal.id,
      transport: req.transport,
      // In capability form (task__create → task.create), as every other record and `audit --tool` expect; the
      // name is the caller's, so it is made a single line like the request id.
      capability: singleLine(capabilityNameOf(req.name.slice(0, 200))),
      input: redactedJson(req.input ?? {}, s.max_input_bytes),
      outcome: 'error',
      errorCode: error.code,
      errorMessage: maskUrlSecrets(error.message).slice(0, 1000),
      durationMs: 0,
      requestId: singleLine(req.requestId ?? randomUUID()),
      ...(req.trace ? { traceId: req.trace.traceId } : {}),
    });
  };

  /** Write what is queued and wait until it is stored (so readers, in any process, see it). */
  async flush(): Promise<void> {
    await this.queue.flush();
    await this.lastAppend;
    // Nothing was ever written when the sink is not open: nothing to wait for.
    await this.sinkOrNone?.flush();
  }

  /** Hand a batch to the store; with the off-thread writer, without waiting for it. */
  private write(records: NewAuditRecord[]): void {
    // A call that finishes while the hub shuts down is not recorded (the store is closing).
    if (this.closed) return;
    const sink = this.sink();
    if (sink) sink.write(records);
    else this.lastAppend = this.lastAppend.then(() => this.append(records));
  }

  /** A store without a sink (in memory) takes the records through its API. */
  private async append(records: NewAuditRecord[]): Promise<void> {
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
