// system.audit: the audit trail, a page at a time, filtered by principal, tool, outcome and time (admins only).
// Pages are keyset-based on (time, seq), newest first, so 100,000 records page as fast as 100 and records written
// meanwhile neither repeat nor shift a page. The store's query is "newest first, before `until`": the cursor holds
// the last record's time and how many records at exactly that time were already shown, to skip them next time.
import { z } from 'zod';
import { defineCapability } from '../../../core/capability.ts';
import { SwitchboardError } from '../../../core/errors.ts';
import { AUDIT_MAX_LIMIT, AUDIT_OUTCOMES } from '../../../store/contract.ts';

const Cursor = z.object({ at: z.string(), skip: z.number().int().min(0) });

function readCursor(text: string): z.output<typeof Cursor> {
  try {
    return Cursor.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
  } catch {
    throw new SwitchboardError('INVALID_INPUT', 'cursor: not a cursor this tool gave; pass nextCursor as it came.');
  }
}

const isoTime = z.iso.datetime({ offset: true }).describe('An ISO time, e.g. 2026-11-27T10:00:00Z.');

export const systemAudit = defineCapability({
  name: 'system.audit',
  title: 'Audit trail',
  description:
    'Read the audit trail, newest first (admins only): one record per call with its time, principal, transport, capability, outcome, error, duration and redacted input. Filter by principal, tool (capability or tool name), outcome (ok or error) and time (since inclusive, until exclusive). Returns at most limit records (default 50, max 500) and nextCursor: pass it back as cursor for the next page; null on the last page.',
  input: z.strictObject({
    principal: z.string().min(1).max(128).optional(),
    tool: z.string().min(1).max(200).optional().describe('task.create or task__create.'),
    outcome: z.enum(AUDIT_OUTCOMES).optional(),
    since: isoTime.optional(),
    until: isoTime.optional(),
    limit: z.number().int().min(1).max(500).default(50),
    cursor: z.string().min(1).max(500).optional(),
  }),
  roles: ['admin'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handle: async ({ principal, tool, outcome, since, until, limit, cursor }, ctx) => {
    const after = cursor ? readCursor(cursor) : undefined;
    // Records at the cursor's own millisecond are asked for again (until is exclusive) and the shown ones skipped.
    const bound = after ? new Date(Date.parse(after.at) + 1).toISOString() : undefined;
    const iso = (t: string | undefined) => (t ? new Date(t).toISOString() : undefined);
    const untilAt = [iso(until), bound].filter((t) => t !== undefined).sort()[0];
    const skip = after?.skip ?? 0;
    if (skip + limit + 1 > AUDIT_MAX_LIMIT)
      throw new SwitchboardError('INVALID_INPUT', 'cursor: too many records share one millisecond to page further.');
    const found = await ctx.services.store.audit.query({
      ...(principal ? { principal } : {}),
      ...(tool ? { capability: tool.replaceAll('__', '.') } : {}),
      ...(outcome ? { outcome } : {}),
      ...(since ? { since: iso(since) } : {}),
      ...(untilAt ? { until: untilAt } : {}),
      limit: skip + limit + 1,
    });
    const fresh = found.filter((r, i) => !(after && i < skip && r.at === after.at));
    const records = fresh.slice(0, limit);
    const last = records.at(-1);
    let nextCursor: string | null = null;
    if (last && fresh.length > limit) {
      const sameAt = records.filter((r) => r.at === last.at).length + (after?.at === last.at ? skip : 0);
      nextCursor = Buffer.from(JSON.stringify({ at: last.at, skip: sameAt })).toString('base64url');
    }
    return { records, nextCursor };
  },
});
