// `switchboard stats`: per-capability call metrics of a running server (system.metrics), as a table.
import { CliError, printJson } from './output.ts';
import { connectRemote } from './remote.ts';
import { table as makeTable } from './table.ts';

interface Row {
  calls: number;
  errors: number;
  inFlight: number;
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  transports: Record<string, { calls: number }>;
}

export async function stats(opts: { url: string; token?: string; json?: boolean }): Promise<void> {
  const client = await connectRemote(opts.url, opts.token);
  try {
    const result = await client.callTool({ name: 'system__metrics', arguments: {} });
    if (result.isError)
      throw new CliError((result.content as { text?: string }[])[0]?.text ?? 'system.metrics failed.');
    const data = result.structuredContent as {
      capabilities: Record<string, Row>;
      totals: { calls: number; errors: number };
    };
    if (opts.json) return printJson(data);
    const table = makeTable([
      'capability',
      'calls',
      'errors',
      'in flight',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'max ms',
      'by transport',
    ]);
    for (const [name, m] of Object.entries(data.capabilities)) {
      const via = Object.entries(m.transports ?? {})
        .map(([t, v]) => `${t}:${v.calls}`)
        .join(' ');
      table.push([
        name,
        m.calls,
        m.errors,
        m.inFlight,
        m.latencyMs.p50,
        m.latencyMs.p95,
        m.latencyMs.p99,
        m.latencyMs.max,
        via,
      ]);
    }
    process.stdout.write(`${table.toString()}\ntotal: ${data.totals.calls} calls, ${data.totals.errors} errors\n`);
  } finally {
    await client.close();
  }
}
