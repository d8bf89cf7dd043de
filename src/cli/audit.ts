// `switchboard audit`: read the audit trail of the project's store — who called what, when, and how it ended.
import { openProjectStore } from '../hub.ts';
import { parseDuration } from '../policy/tokens.ts';
import { CliError, printJson } from './output.ts';
import { table as makeTable } from './table.ts';

/** `--since` takes a duration back from now (`1h`, `30m`, `7d`) or an ISO time. */
export function parseSince(text: string, now = Date.now()): string {
  if (/^\d+[smhdw]$/.test(text)) return new Date(now - parseDuration(text, '--since')).toISOString();
  const t = Date.parse(text);
  if (Number.isNaN(t))
    throw new CliError(
      `--since must be a duration like 1h, 30m, 7d or an ISO time like 2026-11-26T10:00:00Z; got '${text}'.`,
      2,
    );
  return new Date(t).toISOString();
}

export async function audit(opts: {
  cwd: string;
  since?: string;
  tool?: string;
  principal?: string;
  outcome?: string;
  limit?: string;
  json?: boolean;
}): Promise<void> {
  if (opts.outcome && opts.outcome !== 'ok' && opts.outcome !== 'error')
    throw new CliError(`--outcome must be 'ok' or 'error'; got '${opts.outcome}'.`, 2);
  const limit = opts.limit === undefined ? 100 : Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new CliError(`--limit must be an integer from 1 to 10000; got '${opts.limit}'.`, 2);
  const store = await openProjectStore(opts.cwd);
  try {
    const records = await store.audit.query({
      ...(opts.since ? { since: parseSince(opts.since) } : {}),
      // Accept the tool name too (task__create) — the store keys records by capability name.
      ...(opts.tool ? { capability: opts.tool.replaceAll('__', '.') } : {}),
      ...(opts.principal ? { principal: opts.principal } : {}),
      ...(opts.outcome ? { outcome: opts.outcome as 'ok' | 'error' } : {}),
      limit,
    });
    if (opts.json) return printJson(records);
    if (records.length === 0) {
      process.stdout.write('No audit records match.\n');
      return;
    }
    // The trace column only when a record has one (its caller sent a W3C traceparent).
    const traced = records.some((r) => r.traceId);
    const table = makeTable(
      ['time', 'principal', 'via', 'capability', 'outcome', 'ms', 'input', ...(traced ? ['trace'] : [])],
      { colWidths: [21, 14, 7, 22, 24, 9, 40, ...(traced ? [34] : [])], wordWrap: true },
    );
    for (const r of records)
      table.push([
        r.at.slice(0, 19),
        r.principal,
        r.transport,
        r.capability,
        r.outcome === 'ok' ? (r.cached ? 'ok (cached)' : 'ok') : `${r.errorCode}`,
        r.durationMs.toFixed(1),
        r.input,
        ...(traced ? [r.traceId ?? ''] : []),
      ]);
    process.stdout.write(`${table.toString()}\n${records.length} records (newest first)\n`);
  } finally {
    await store.close();
  }
}
