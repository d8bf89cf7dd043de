// The floor: a hand-written newline-JSON (stdio) / JSON-over-HTTP echo server with no SDK and no
// validation, answering initialize, tools/list and tools/call by hand. A reference for what Node itself
// costs (process start, pipe or socket, JSON) — used only by the benchmark, never by the product.
// Usage: `node bench/raw-floor-server.mjs stdio` or `node bench/raw-floor-server.mjs http [port]`.
import { createServer } from 'node:http';

const TOOL = {
  name: 'echo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};

/** The JSON-RPC answer to one message, or undefined for notifications. */
function answer(msg) {
  if (msg.id === undefined || msg.id === null) return undefined;
  switch (msg.method) {
    case 'initialize':
      return {
        jsonrpc: '2.0',
        id: msg.id,
        result: {
          protocolVersion: msg.params?.protocolVersion ?? '2025-11-25',
          capabilities: { tools: {} },
          serverInfo: { name: 'raw-floor', version: '1.0.0' },
        },
      };
    case 'tools/list':
      return { jsonrpc: '2.0', id: msg.id, result: { tools: [TOOL] } };
    case 'tools/call': {
      const value = { text: String(msg.params?.arguments?.text ?? '') };
      return {
        jsonrpc: '2.0',
        id: msg.id,
        result: { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value },
      };
    }
    case 'ping':
      return { jsonrpc: '2.0', id: msg.id, result: {} };
    default:
      return { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } };
  }
}

const mode = process.argv[2] ?? 'stdio';
if (mode === 'stdio') {
  let buf = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buf += chunk;
    let out = '';
    let nl = buf.indexOf('\n');
    while (nl !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim()) {
        const reply = answer(JSON.parse(line));
        if (reply) out += `${JSON.stringify(reply)}\n`;
      }
      nl = buf.indexOf('\n');
    }
    if (out) process.stdout.write(out);
  });
  process.stdin.on('end', () => process.exit(0));
} else {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let reply;
      try {
        reply = answer(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reply = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
      }
      if (!reply) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
    process.stdout.write(`listening http://127.0.0.1:${server.address().port}/mcp\n`);
  });
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
