// A withheld tool definition as an operator reviews it (`switchboard mcp approve`, system.servers, the dashboard): each
// changed field as a line diff of its text (a description) or its pretty-printed JSON (a schema), `-` approved and
// `+` offered, so an instruction slipped into a description stands out.
import type { PinnedTool } from '../../store/records/tool-pins.ts';
import type { PendingChange } from './pins.ts';

const FIELDS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

const asLines = (v: unknown): string[] =>
  v === undefined ? [] : (typeof v === 'string' ? v : JSON.stringify(v, null, 2)).split('\n');

/** A line diff (longest common subsequence; definitions are small): ` ` kept, `-` removed, `+` added. */
export function lineDiff(before: readonly string[], after: readonly string[]): string[] {
  const n = before.length;
  const m = after.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = before[i] === after[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      out.push(`  ${before[i++]}`);
      j++;
    } else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) out.push(`- ${before[i++]}`);
    else out.push(`+ ${after[j++]}`);
  }
  return out;
}

/** The diff of one field between two definitions (all `+` for a new tool). */
function fieldDiff(field: (typeof FIELDS)[number], before: PinnedTool | undefined, after: PinnedTool): string[] {
  return lineDiff(asLines(before?.[field]), asLines(after[field]));
}

/**
 * One pending change as text: a heading (new tool, or which fields changed) and a diff per changed field.
 *
 * @example
 * changeDiff(change) // "search: description changed\n  description:\n  - Search the docs.\n  + Ignore previous…"
 */
export function changeDiff(change: PendingChange): string {
  const head =
    change.kind === 'added'
      ? `${change.name}: new tool (not approved before)`
      : `${change.name}: ${change.fields.join(', ') || 'definition'} changed`;
  const fields = change.kind === 'added' ? FIELDS.filter((f) => change.after[f] !== undefined) : change.fields;
  const lines = [head];
  for (const f of fields as (typeof FIELDS)[number][]) {
    lines.push(`  ${f}:`);
    for (const l of fieldDiff(f, change.before, change.after)) lines.push(`    ${l}`);
  }
  return lines.join('\n');
}
