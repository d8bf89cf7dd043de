// What span export costs: bench/stdio-ab.mjs — `switchboard serve` over stdio, 64 calls in flight, beside the bare
// SDK server as the anchor — with telemetry off ("this build") and on (the same build "against" itself with
// OTEL_EXPORTER_OTLP_ENDPOINT set), exporting over OTLP/HTTP to a sink in this process that decodes each request
// (the OpenTelemetry libraries' protobuf definitions) and counts the spans that arrive. The batch processor drops
// spans beyond its queue (OTEL_BSP_MAX_QUEUE_SIZE, 2048) when calls end faster than it exports: the count says how
// many of the calls were exported. (The in-process pipeline bench cannot measure it: its calls never yield to I/O,
// so nothing is exported while it runs.)
// Usage: `node bench/telemetry.mjs [--rounds 5] [--calls 20000]` after `npm run build`.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';

const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : dflt);
const rounds = opt('rounds', '5');
const calls = opt('calls', '20000');
const root = createRequire(import.meta.url)('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const { ExportTraceServiceRequest, ExportTraceServiceResponse } = root.opentelemetry.proto.collector.trace.v1;

let spans = 0;
let requests = 0;
const sink = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    requests++;
    const body = ExportTraceServiceRequest.decode(Buffer.concat(chunks));
    for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans += ss.spans.length;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' });
    res.end(ExportTraceServiceResponse.encode({}).finish());
  });
});
await new Promise((r) => sink.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${sink.address().port}`;

const root_ = new URL('..', import.meta.url).pathname;
const child = spawn(
  process.execPath,
  [
    new URL('./stdio-ab.mjs', import.meta.url).pathname,
    '--rounds',
    rounds,
    '--calls',
    calls,
    '--against',
    root_,
    '--env-against',
    `OTEL_EXPORTER_OTLP_ENDPOINT=${url}`,
  ],
  { stdio: ['ignore', 'inherit', 'inherit'] },
);
const code = await new Promise((r) => child.on('exit', r));
sink.close();
// The run with telemetry on makes 5,000 warm-up calls and `calls` measured ones per round.
const made = Number(rounds) * (5000 + Number(calls));
console.log(
  `\nwith telemetry on: ${spans} spans exported in ${requests} OTLP requests for ${made} calls (${((100 * spans) / made).toFixed(1)} %).`,
);
process.exit(code ?? 1);
