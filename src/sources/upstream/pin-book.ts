// The pins of every upstream server, kept in the store (one document per server, every instance and the CLI read
// them) with a copy in memory that `rebuild` decides from synchronously, so the first tools/list after a server lists
// never waits for the store. Writes re-read the document first: an approval made elsewhere (`switchboard mcp approve`
// in another process, another instance on one Redis) is never overwritten with a stale copy. While anything is
// withheld the documents are read again every PIN_POLL_MS, which is how an approval made elsewhere reaches this hub.
import { randomUUID } from 'node:crypto';
import type { Tool } from '@modelcontextprotocol/client';
import type { Logger } from 'pino';
import type { EventBus } from '../../core/context.ts';
import type { Store } from '../../store/contract.ts';
import { TOOL_PINS_NAMESPACE, type ToolPins, ToolPinsSchema } from '../../store/records/tool-pins.ts';
import {
  type ApprovalMode,
  approvePending,
  changeList,
  decide,
  type PendingChange,
  type PinDecision,
  pendingChanges,
  toolHash,
  type WithheldTool,
} from './pins.ts';

/** How often the pins of a server with withheld tools are read again (an approval from another process). */
export const PIN_POLL_MS = 1_000;

export interface PinBookDeps {
  store: Store;
  logger: Logger;
  bus: EventBus;
  /** The `[audit]` settings: whether to write, and the cap on a record's input. */
  audit: () => { enabled: boolean; max_input_bytes: number };
  /** Told when what a server may show changed without a new listing (an approval, here or elsewhere). */
  changed: () => void;
}

export class PinBook {
  /** Undefined value: the server has no pins yet. */
  private readonly pins = new Map<string, ToolPins | undefined>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private poller?: NodeJS.Timeout;
  private polling = false;
  private stopped = false;

  constructor(private readonly deps: PinBookDeps) {}

  /** Read a server's pins into memory (before it lists, so its first listing is decided at once). */
  async load(server: string): Promise<void> {
    this.remember(server, await this.read(server).catch((err) => this.unreadable(server, err)));
  }

  /** What the server may show of `tools` now, from the copy in memory. */
  decide(server: string, mode: ApprovalMode, tools: readonly Tool[]): PinDecision {
    return decide(server, mode, this.pins.get(server), tools, new Date().toISOString());
  }

  /** The server's withheld definitions, as an operator reviews them. */
  pending(server: string): PendingChange[] {
    return pendingChanges(this.pins.get(server));
  }

  /**
   * Keep what a live listing means for the pins: first use, a new or changed definition withheld (audited and
   * announced once). `shown` is what the caller decided from memory; `changed` is told if the store says otherwise.
   */
  record(server: string, mode: ApprovalMode, tools: readonly Tool[]): Promise<void> {
    if (mode === 'off') return Promise.resolve();
    return this.queue(server, async () => {
      const stored = await this.read(server);
      const at = new Date().toISOString();
      const before = decide(server, mode, this.pins.get(server), tools, at);
      const d = decide(server, mode, stored, tools, at);
      if (JSON.stringify(d.doc) !== JSON.stringify(stored))
        await this.deps.store.documents.put(TOOL_PINS_NAMESPACE, server, d.doc);
      this.remember(server, d.doc);
      if (d.fresh.length) this.withheld(server, d.fresh);
      if (visibleKey(before) !== visibleKey(d)) this.deps.changed();
    }).catch((err) => {
      this.deps.logger.warn({ server, err: (err as Error).message }, 'could not keep the pinned tool definitions');
    });
  }

  /** Approve withheld definitions (`names`, or all); returns what was approved (nothing when nothing was withheld). */
  approve(server: string, names: readonly string[], by: string): Promise<PendingChange[]> {
    return this.queue(server, async () => {
      const stored = await this.read(server);
      const { doc, approved } = approvePending(stored, names, by, new Date().toISOString());
      if (!approved.length) return [];
      await this.deps.store.documents.put(TOOL_PINS_NAMESPACE, server, doc);
      this.remember(server, doc);
      this.audit('upstream.approve', by, { server, approved: summary(approved) });
      this.deps.bus.publish({
        type: 'upstream.approved',
        server,
        tools: approved.map((c) => c.name),
        by,
        at: new Date().toISOString(),
      });
      this.deps.logger.info({ server, by, tools: approved.map((c) => c.name) }, 'tool definitions approved');
      this.deps.changed();
      return approved;
    });
  }

  /** Resolves when every write asked for so far is done. */
  async settled(): Promise<void> {
    await Promise.all([...this.queues.values()].map((p) => p.catch(() => undefined)));
  }

  /** Forget a server no longer configured (its document stays: re-added, it keeps its approvals). */
  drop(server: string): void {
    this.pins.delete(server);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.poller);
    this.poller = undefined;
  }

  private async read(server: string): Promise<ToolPins | undefined> {
    const doc = await this.deps.store.documents.get(TOOL_PINS_NAMESPACE, server);
    if (!doc) return undefined;
    const parsed = ToolPinsSchema.safeParse(doc.value);
    if (parsed.success) return parsed.data;
    // Fail closed: pins this version cannot read approve nothing, so every tool waits for an approval.
    this.deps.logger.error(
      { server, issues: parsed.error.issues.slice(0, 3) },
      `the pinned tool definitions of '${server}' are unreadable: every tool is withheld until approved (switchboard mcp approve ${server})`,
    );
    return { server, approved: {}, pending: {} };
  }

  /** A store that cannot be read approves nothing (an empty pin set), rather than trusting a first use anew. */
  private unreadable(server: string, err: unknown): ToolPins {
    this.deps.logger.error(
      { server, err: (err as Error).message },
      'could not read the pinned tool definitions: withholding every tool',
    );
    return { server, approved: {}, pending: {} };
  }

  private remember(server: string, pins: ToolPins | undefined): void {
    this.pins.set(server, pins);
    this.schedulePoll();
  }

  private queue<T>(server: string, work: () => Promise<T>): Promise<T> {
    const run = (this.queues.get(server) ?? Promise.resolve()).catch(() => undefined).then(work);
    this.queues.set(server, run);
    return run;
  }

  private withheld(server: string, fresh: WithheldTool[]): void {
    const list = changeList(fresh);
    this.deps.logger.warn(
      { server, tools: fresh.map((w) => w.name) },
      `withheld tool definitions of '${server}' until approved: ${list}; review with: switchboard mcp approve ${server}`,
    );
    this.audit('upstream.withhold', 'internal', { server, withheld: summary(fresh) });
    this.deps.bus.publish({
      type: 'upstream.withheld',
      server,
      tools: fresh.map((w) => w.name),
      message: `${server}: ${list}`,
      at: new Date().toISOString(),
    });
  }

  /** An audit record of a pin decision: the server and each tool, new or which fields changed. */
  private audit(capability: string, principal: string, input: Record<string, unknown>): void {
    const settings = this.deps.audit();
    if (!settings.enabled) return;
    const text = JSON.stringify(input);
    this.deps.store.audit
      .append({
        at: new Date().toISOString(),
        principal,
        transport: principal === 'cli' ? 'cli' : 'internal',
        capability,
        input: text.length > settings.max_input_bytes ? text.slice(0, settings.max_input_bytes) : text,
        outcome: 'ok',
        errorCode: null,
        errorMessage: null,
        durationMs: 0,
        requestId: randomUUID(),
      })
      .catch((err) => this.deps.logger.warn({ err: (err as Error).message }, 'could not audit a pin decision'));
  }

  /** Poll while something is withheld: an approval made in another process arrives through the store. */
  private schedulePoll(): void {
    const waiting = [...this.pins.values()].some((p) => p && Object.keys(p.pending).length > 0);
    if (!waiting || this.stopped) {
      clearInterval(this.poller);
      this.poller = undefined;
      return;
    }
    if (this.poller) return;
    this.poller = setInterval(() => void this.poll(), PIN_POLL_MS);
    this.poller.unref();
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      let changed = false;
      for (const [server, pins] of this.pins) {
        if (!pins || Object.keys(pins.pending).length === 0) continue;
        const stored = await this.read(server).catch(() => pins);
        // A write of this process in flight would be read half-way: the queue's own result wins.
        if (this.stopped || this.pins.get(server) !== pins) continue;
        if (JSON.stringify(stored) !== JSON.stringify(pins)) {
          this.pins.set(server, stored);
          changed = true;
        }
      }
      if (changed) this.deps.changed();
      this.schedulePoll();
    } finally {
      this.polling = false;
    }
  }
}

/** What a decision shows, as one comparable string. */
const visibleKey = (d: PinDecision) => d.visible.map(toolHash).join(',');

/** The tools of a change for an audit record: new, or which fields changed. */
function summary(changes: readonly WithheldTool[]): Record<string, string> {
  return Object.fromEntries(
    changes.map((c) => [c.name, c.kind === 'added' ? 'new' : `changed: ${c.fields.join(', ') || 'definition'}`]),
  );
}
