// How far module loading, not protocol work, decides cold start: the bare SDK echo server started three ways —
// from node_modules (ESM), as one esbuild CJS file, and from a V8 startup snapshot of that file — each measured
// as spawn + SDK client connect + one tools/call. Usage: `node bench/snapshot-probe.mjs [--runs 10]`.
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { cpuMs, memMb } from './lib/proc.mjs';
import { buildSdkSnapshot } from './lib/sdk-snapshot.mjs';
import { ROOT } from './lib/servers.mjs';
import { median, withTimeout } from './lib/stats.mjs';

const i = process.argv.indexOf('--runs');
const RUNS = i === -1 ? 10 : Number(process.argv[i + 1]);

const sdk = await buildSdkSnapshot();
try {
  const variants = {
    'bare SDK from node_modules (ESM)': [join(ROOT, 'bench/bare-sdk-server.mjs'), 'stdio'],
    'bare SDK as one CJS bundle': [sdk.bundle],
    'bare SDK from a V8 startup snapshot': ['--snapshot-blob', sdk.blob],
    'raw floor (no SDK)': [join(ROOT, 'bench/raw-floor-server.mjs'), 'stdio'],
  };
  const rows = [];
  for (const [name, args] of Object.entries(variants)) {
    const ms = [];
    const cpu = [];
    const rss = [];
    for (let run = 0; run <= RUNS; run++) {
      const t0 = performance.now();
      const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' });
      const client = new Client({ name: 'switchboard-bench', version: '1.0.0' });
      try {
        await withTimeout(client.connect(transport), 20_000, `${name} connect`);
        const r = await withTimeout(
          client.callTool({ name: 'echo', arguments: { text: 'x' } }),
          10_000,
          `${name} call`,
        );
        if (r.isError || r.structuredContent?.text !== 'x') throw new Error(`${name}: ${JSON.stringify(r)}`);
        if (run > 0) {
          // run 0 is discarded (page cache)
          ms.push(performance.now() - t0);
          cpu.push(cpuMs(transport.pid));
          rss.push(memMb(transport.pid).rss);
        }
      } finally {
        await client.close().catch(() => {});
      }
    }
    rows.push(`| ${name} | ${median(ms).toFixed(0)} | ${median(cpu).toFixed(0)} | ${median(rss).toFixed(1)} |`);
  }
  console.log(
    `\nCold start to first answer, median of ${RUNS}:\n\n| server | wall ms | server CPU ms | RSS MB |\n|---|---:|---:|---:|\n${rows.join('\n')}`,
  );
} finally {
  sdk.remove();
}
