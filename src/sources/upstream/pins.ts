// Pinned tool definitions (docs/security.md#pinned-tools): what decides which of a server's tools reach clients.
// A tool is listed when its definition (name, title, description, schemas, annotations) hashes to what was approved;
// anything else — a changed definition, a new tool — is withheld and kept as pending until an operator approves it.
// Pure functions over the stored document (src/store/records/tool-pins.ts); `pin-book.ts` keeps them in the store.
import { createHash } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import type { APPROVAL_MODES } from '../../config/schema-servers.ts';
import { type ErrorInfo, SwitchboardError } from '../../core/errors.ts';
import type { PinnedTool, ToolPins } from '../../store/records/tool-pins.ts';

export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** Who approves what a server lists before any pins exist (trust on first use). */
export const FIRST_USE = 'first-use';

/** The pinned fields of a listed tool (nothing else: `_meta`, icons and execution hints are not shown to a model). */
export function pinnedTool(tool: Tool): PinnedTool {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema as Record<string, unknown> } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations as Record<string, unknown> } : {}),
  };
}

/** JSON with object keys sorted, so a server that reorders keys does not count as a change. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

const hashes = new WeakMap<Tool, string>();

/** `sha256:<hex>` of a tool's pinned fields; remembered per listed object (each rebuild asks again). */
export function toolHash(tool: Tool): string {
  let h = hashes.get(tool);
  if (!h) {
    h = pinHash(pinnedTool(tool));
    hashes.set(tool, h);
  }
  return h;
}

export function pinHash(tool: PinnedTool): string {
  return `sha256:${createHash('sha256').update(canonical(tool)).digest('hex')}`;
}

const FIELDS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

/** The pinned fields that differ between two definitions of one tool. */
export function changedFields(before: PinnedTool, after: PinnedTool): string[] {
  return FIELDS.filter((f) => canonical(before[f]) !== canonical(after[f]));
}

/** A withheld tool: new since approval, or changed (and which fields). */
export interface WithheldTool {
  name: string;
  kind: 'added' | 'changed';
  fields: string[];
}

export interface PinDecision {
  /** The tools clients are shown. */
  visible: Tool[];
  withheld: WithheldTool[];
  /** The pins after this listing (undefined: none, `off` before any were kept). */
  doc: ToolPins | undefined;
  /** Withheld definitions not pending before this listing: what to audit and announce. */
  fresh: WithheldTool[];
}

const emptyPins = (server: string): ToolPins => ({ server, approved: {}, pending: {} });

/**
 * Which of `tools` a server with these pins may show, and the pins after this listing: with none yet, `first-use`
 * approves everything listed and `manual` withholds everything; `off` shows everything and keeps the pins as they
 * are. A tool the server stopped listing simply goes (its approval stays, should it come back unchanged).
 *
 * @example
 * decide('docs', 'first-use', pins, catalog.tools, new Date().toISOString()).visible // the approved definitions
 */
export function decide(
  server: string,
  mode: ApprovalMode,
  pins: ToolPins | undefined,
  tools: readonly Tool[],
  at: string,
): PinDecision {
  if (mode === 'off') return { visible: [...tools], withheld: [], doc: pins, fresh: [] };
  if (!pins && mode === 'first-use') {
    const approved: ToolPins['approved'] = {};
    for (const t of tools)
      approved[t.name] = { hash: toolHash(t), tool: pinnedTool(t), approvedAt: at, approvedBy: FIRST_USE };
    return { visible: [...tools], withheld: [], doc: { server, approved, pending: {} }, fresh: [] };
  }
  const before = pins ?? emptyPins(server);
  const doc: ToolPins = { server, approved: before.approved, pending: {} };
  const visible: Tool[] = [];
  const withheld: WithheldTool[] = [];
  const fresh: WithheldTool[] = [];
  for (const t of tools) {
    const hash = toolHash(t);
    const ok = before.approved[t.name];
    if (ok?.hash === hash) {
      visible.push(t);
      continue;
    }
    const tool = pinnedTool(t);
    const was = before.pending[t.name];
    doc.pending[t.name] = was?.hash === hash ? was : { hash, tool, seenAt: at };
    const w: WithheldTool = ok
      ? { name: t.name, kind: 'changed', fields: changedFields(ok.tool, tool) }
      : { name: t.name, kind: 'added', fields: [] };
    withheld.push(w);
    if (was?.hash !== hash) fresh.push(w);
  }
  return { visible, withheld, doc, fresh };
}

/** A pending change as an operator reviews it: the approved definition (none for a new tool) and the offered one. */
export interface PendingChange extends WithheldTool {
  before?: PinnedTool;
  after: PinnedTool;
  seenAt: string;
}

/** What is withheld in `pins`, by tool name. */
export function pendingChanges(pins: ToolPins | undefined): PendingChange[] {
  if (!pins) return [];
  return Object.entries(pins.pending)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, p]) => {
      const before = pins.approved[name]?.tool;
      return before
        ? { name, kind: 'changed', fields: changedFields(before, p.tool), before, after: p.tool, seenAt: p.seenAt }
        : { name, kind: 'added', fields: [], after: p.tool, seenAt: p.seenAt };
    });
}

/**
 * Approve the pending definitions of `names` (all when empty): they become the approved ones. Approval is of the
 * definition reviewed (its hash), so a server that changes again after the review is withheld again.
 */
export function approvePending(
  pins: ToolPins | undefined,
  names: readonly string[],
  by: string,
  at: string,
): { doc: ToolPins | undefined; approved: PendingChange[] } {
  const changes = pendingChanges(pins);
  if (!pins || changes.length === 0) return { doc: pins, approved: [] };
  const unknown = names.filter((n) => !pins.pending[n]);
  if (unknown.length)
    throw new SwitchboardError(
      'NOT_FOUND',
      `Server '${pins.server}' has no withheld definition of ${unknown.map((n) => `'${n}'`).join(', ')}. Withheld: ${changes.map((c) => c.name).join(', ')}.`,
      { server: pins.server, withheld: changes.map((c) => c.name) },
    );
  const chosen = names.length ? changes.filter((c) => names.includes(c.name)) : changes;
  const doc: ToolPins = { server: pins.server, approved: { ...pins.approved }, pending: { ...pins.pending } };
  for (const c of chosen) {
    const p = pins.pending[c.name];
    doc.approved[c.name] = { hash: p.hash, tool: p.tool, approvedAt: at, approvedBy: by };
    delete doc.pending[c.name];
  }
  return { doc, approved: chosen };
}

/** "search (description, inputSchema changed), fetch (new)": a change list for a sentence. */
export function changeList(changes: readonly WithheldTool[]): string {
  return changes
    .map((c) => `${c.name} (${c.kind === 'added' ? 'new' : `${c.fields.join(', ') || 'definition'} changed`})`)
    .join(', ');
}

/** The answer to a call of `name`, a tool withheld until approved: which server, what changed, the command. */
export function withheldError(name: string, server: string, change: WithheldTool): ErrorInfo {
  const what =
    change.kind === 'added'
      ? 'added it after its tools were approved'
      : `changed its ${change.fields.join(', ') || 'definition'} since it was approved`;
  return {
    code: 'NOT_FOUND',
    message: `Tool '${name}' is withheld: upstream server '${server}' ${what}, and a new or changed definition is not shown until an operator reviews it. Approve it with: switchboard mcp approve ${server}`,
    details: { server, withheld: change.name },
  };
}
