// `switchboard mcp approve NAME [--tool T]... [--dry-run] [--json]`: review the tool definitions a server offers that
// are withheld because they are new or changed since approved (docs/security.md#pinned-tools), and approve them.
// It reads the project's store directly, so it works whether or not a hub runs: a running hub withheld them and
// recorded them there, and re-reads the pins while anything is withheld, so it lists them within a second. When the
// store holds nothing withheld (no hub has listed the server yet: a `manual` server just added), a hub is started
// in this process to list it first, as `mcp list --status` does.
import { resolve } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { openProjectStore } from '../hub.ts';
import { InProcessBus } from '../observe/events.ts';
import { createLogger } from '../observe/logger.ts';
import type { RunningUpstream } from '../sources/upstream/index.ts';
import { PinBook } from '../sources/upstream/pin-book.ts';
import { changeDiff } from '../sources/upstream/pin-diff.ts';
import type { PendingChange } from '../sources/upstream/pins.ts';
import { CliError, colour, printJson } from './output.ts';

export interface ApproveOptions {
  cwd: string;
  tool?: string[];
  dryRun?: boolean;
  json?: boolean;
}

/** Who approves from the command line, in the pins and the audit trail (the principal of local CLI calls). */
const BY = 'cli';

/** A way to the server's withheld definitions: the store, or a hub started here. */
interface Reviewer {
  pending(): PendingChange[];
  approve(tools: readonly string[]): Promise<PendingChange[]>;
  close(): Promise<void>;
}

export async function mcpApprove(name: string, opts: ApproveOptions): Promise<void> {
  const cwd = resolve(opts.cwd);
  const { config } = loadConfig(cwd);
  const entry = config.servers.find((s) => s.name === name);
  if (!entry) {
    const known = config.servers.map((s) => s.name);
    throw new CliError(`No MCP server '${name}'.${known.length ? ` Configured: ${known.join(', ')}.` : ''}`);
  }
  let reviewer = await fromStore(cwd, name, config.audit);
  if (reviewer.pending().length === 0 && entry.approval !== 'off') {
    await reviewer.close();
    reviewer = await fromHub(cwd, name);
  }
  try {
    const pending = reviewer.pending();
    const tools = opts.tool ?? [];
    const approved = opts.dryRun || pending.length === 0 ? [] : await reviewer.approve(tools);
    if (opts.json)
      return printJson({
        server: name,
        approval: entry.approval,
        pending: pending.map((c) => ({ ...c, diff: changeDiff(c) })),
        approved: approved.map((c) => c.name),
      });
    report(name, entry.approval, pending, approved, opts);
  } finally {
    await reviewer.close();
  }
}

function report(
  name: string,
  mode: string,
  pending: PendingChange[],
  approved: PendingChange[],
  opts: ApproveOptions,
): void {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  if (pending.length === 0) {
    out(
      mode === 'off'
        ? `Server '${name}' has approval = "off": every definition it lists is shown, nothing is withheld.`
        : `Nothing of '${name}' is withheld: every tool it lists is approved.`,
    );
    return;
  }
  const shown = opts.tool?.length ? pending.filter((c) => opts.tool?.includes(c.name)) : pending;
  out(`${colour().bold(name)}: ${pending.length} tool definition(s) withheld until approved`);
  for (const change of shown) {
    out();
    for (const line of changeDiff(change).split('\n'))
      out(/^\s+- /.test(line) ? colour().red(line) : /^\s+\+ /.test(line) ? colour().green(line) : line);
  }
  out();
  if (opts.dryRun) {
    out(`Not approved (--dry-run). Approve with: switchboard mcp approve ${name}`);
    return;
  }
  out(
    `Approved ${approved.length} of '${name}': ${approved.map((c) => c.name).join(', ')}. ` +
      'A running Switchboard lists them within a second.',
  );
}

/** The pins as the store keeps them: what a hub (running or not) recorded as withheld. */
async function fromStore(cwd: string, name: string, audit: { enabled: boolean; max_input_bytes: number }) {
  const store = await openProjectStore(cwd);
  const book = new PinBook({
    store,
    logger: createLogger('silent'),
    bus: new InProcessBus(),
    audit: () => audit,
    changed: () => {},
  });
  try {
    await book.load(name);
  } catch (err) {
    await store.close();
    throw err;
  }
  return {
    pending: () => book.pending(name),
    approve: (tools) => book.approve(name, tools, BY),
    async close() {
      book.stop();
      await book.settled();
      await store.close();
    },
  } satisfies Reviewer;
}

/** A hub in this process: it connects the server, so what it lists now is recorded (and withheld) first. */
async function fromHub(cwd: string, name: string): Promise<Reviewer> {
  const { createHub } = await import('../hub.ts');
  const hub = await createHub({ cwd, logger: createLogger('silent') });
  try {
    await hub.ready();
    const manager = (hub.sources.get('upstream') as RunningUpstream | undefined)?.manager();
    await manager?.settled();
    return {
      pending: () => manager?.pending(name) ?? [],
      approve: async (tools) => (await manager?.approve(name, tools, BY)) ?? [],
      async close() {
        await manager?.settled();
        await hub.close();
      },
    };
  } catch (err) {
    await hub.close();
    throw err;
  }
}
