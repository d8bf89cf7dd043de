// Splitting one long stdio line, the framing before and after issue 15, in one run: the old algorithms (copied here:
// the server's string buffer re-scanned from its start on every chunk, and the upstream client's reader doing the
// same over decoded text) beside the shared LineSplitter. The line arrives in 64 KiB chunks, as from a pipe; the time
// is until the line is out, decoded. Usage: `node bench/stdio-framing.mjs [--sizes 1,8,50] [--old-max 50]` (MB; the
// old readers are quadratic, so sizes above --old-max are timed with the new one only).
import { StringDecoder } from 'node:string_decoder';
import { tsImport } from 'tsx/esm/api';
import { machine } from './lib/proc.mjs';

const { LineSplitter } = await tsImport('../src/core/line-splitter.ts', import.meta.url);
const argv = process.argv.slice(2);
const sizes = (argv.includes('--sizes') ? argv[argv.indexOf('--sizes') + 1] : '1,8,50').split(',').map(Number);
const oldMax = Number(argv.includes('--old-max') ? argv[argv.indexOf('--old-max') + 1] : 50);
const CHUNK = 64 * 1024;

/** The server's reader before: `src/serve/stdio-transport.ts` at f4c9ce4 (limit check left out). */
function oldServer(chunks) {
  let buffer = '';
  let out;
  for (const chunk of chunks) {
    buffer += chunk.toString('utf8');
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      out = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
    }
  }
  return out;
}

/** The upstream client's reader before: `LaneReadBuffer` at f4c9ce4 (append, then readMessage until null). */
function oldClient(chunks) {
  let text = '';
  const decoder = new StringDecoder('utf8');
  let out;
  for (const chunk of chunks) {
    text += decoder.write(chunk);
    const nl = text.indexOf('\n');
    if (nl !== -1) {
      out = text.slice(0, nl);
      text = text.slice(nl + 1);
    }
  }
  return out;
}

function splitter(chunks) {
  const s = new LineSplitter(1024 * 1024 * 1024);
  let out;
  const sink = { line: (l) => (out = l), oversized: () => {} };
  for (const chunk of chunks) s.push(chunk, sink);
  return out;
}

function time(fn, chunks, length) {
  const started = performance.now();
  const line = fn(chunks);
  const ms = performance.now() - started;
  if (line?.length !== length) throw new Error(`${fn.name}: wrong line`);
  return ms;
}

const m = machine();
console.log(`# stdio framing, ${new Date().toISOString()}, ${m.cpu}, ${m.cores} cores, Node ${m.node}`);
console.log('| line | before: server (ms) | before: upstream client (ms) | after: LineSplitter (ms, best of 5) |');
console.log('|---:|---:|---:|---:|');
for (const mb of sizes) {
  const body = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"${'x'.repeat(mb * 1e6)}"}]}}`;
  const bytes = Buffer.from(`${body}\n`);
  const chunks = [];
  for (let i = 0; i < bytes.length; i += CHUNK) chunks.push(bytes.subarray(i, i + CHUNK));
  const after = Math.min(...[0, 1, 2, 3, 4].map(() => time(splitter, chunks, body.length)));
  const old = (fn) => (mb <= oldMax ? time(fn, chunks, body.length).toFixed(0) : '—');
  console.log(`| ${mb} MB | ${old(oldServer)} | ${old(oldClient)} | ${after.toFixed(1)} |`);
}
