// The audit trail: one record per call (who, how, what, outcome, how long), inputs redacted and capped,
// appended to the store in batches — one transaction per event-loop turn — and pruned by retention.
import type { Logger } from 'pino';
import type { CallState, Outcome } from '../core/pipeline.ts';
import type { NewAuditRecord, Store } from '../store/contract.ts';
import { redactedJson } from './redact.ts';

/** Records reach the store within this many ms of the call (or sooner when many are waiting). */
const BATCH_MS = 50;
const BATCH_MAX = 500;

export interface AuditSettings {
  enabled: boolean;
  retention_days: number;
  max_input_bytes: number;
}

export class AuditWriter {
  private pending: NewAuditRecord[] = [];
  private readonly pruneTimer: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
    private readonly settings: () => AuditSettings,
  ) {
    this.pruneTimer = setInterval(() => void this.prune(), 60 * 60_000);
    this.pruneTimer.unref();
  }

  /** Pipeline observer: queue one record for the call. */
  readonly observe = (state: CallState, outcome: Outcome): void => {
    const s = this.settings();
    if (!s.enabled) return;
    const record: NewAuditRecord = {
      at: new Date().toISOString(),
      principal: state.req.principal.id,
      transport: state.req.transport,
      capability: state.entry.capability.name,
      input: redactedJson(state.req.input ?? {}, s.max_input_bytes),
      outcome: outcome.ok ? 'ok' : 'error',
      errorCode: outcome.ok ? null : outcome.error.code,
      errorMessage: outcome.ok ? null : outcome.error.message.slice(0, 1000),
      durationMs: Math.round((performance.now() - state.startedAt) * 1000) / 1000,
      requestId: state.ctx.requestId,
    };
    const n = this.pending.push(record);
    if (n === 1) setTimeout(() => void this.flush(), BATCH_MS).unref();
    else if (n >= BATCH_MAX) void this.flush();
  };

  /** Write what is queued. Failures are logged (without the records, which may hold user data). */
  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      await this.store.audit.appendMany(batch);
    } catch (err) {
      this.logger.error({ err: (err as Error).message, records: batch.length }, 'audit append failed');
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
  }
}
