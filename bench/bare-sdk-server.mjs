// The comparison baseline: a bare MCP SDK v2 server with one `echo` tool, written the way the SDK docs
// show it. Usage: `node bench/bare-sdk-server.mjs stdio` or `node bench/bare-sdk-server.mjs http [port]`.
// Over HTTP it mirrors src/serve/mcp-http.ts so the comparison is fair: node:http, the body read and
// parsed once, the SDK's `classifyInboundRequest` routing 2025 traffic to a sessionful
// NodeStreamableHTTPServerTransport and 2026-07-28 traffic to `createMcpHandler(factory, { legacy: 'reject' })`
// through `toNodeHandler` (one McpServer per request).
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { classifyInboundRequest, createMcpHandler, isInitializeRequest, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

const MAX_BODY = 4 * 1024 * 1024;

// Schemas are built once, outside the factory: a Zod 4 object compiles its fast path on first use, so a
// schema made per request would charge the bare server a compile on every stateless HTTP call.
const echoInput = z.object({ text: z.string().describe('What to echo') });
const echoOutput = z.object({ text: z.string() });
const echoConfig = {
  description: 'Echo the text back.',
  inputSchema: echoInput,
  outputSchema: echoOutput,
  annotations: { readOnlyHint: true },
};
const echo = async ({ text }) => {
  const value = { text };
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
};

/** One server instance with the echo tool (same shape as Switchboard's: input and output schema, structuredContent). */
function buildServer() {
  const server = new McpServer({ name: 'bare-sdk-echo', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', echoConfig, echo);
  return server;
}

const mode = process.argv[2] ?? 'stdio';

if (mode === 'stdio') {
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  serveStdio(() => buildServer());
} else if (mode === 'http') {
  const port = Number(process.argv[3] ?? 0);
  const modern = toNodeHandler(
    createMcpHandler(() => buildServer(), { legacy: 'reject', maxRequestBodySize: MAX_BODY }),
  );
  const sessions = new Map();
  const header = (req, name) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };

  const reply = (res, status, code, message) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
  };

  async function legacy(req, res, body) {
    const sid = req.headers['mcp-session-id'];
    if (sid) {
      const transport = sessions.get(sid);
      if (!transport) return reply(res, 404, -32001, 'Session not found');
      return transport.handleRequest(req, res, body);
    }
    if (req.method === 'POST' && isInitializeRequest(body)) {
      const server = buildServer();
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await server.connect(transport);
      return transport.handleRequest(req, res, body);
    }
    return reply(res, 400, -32000, 'Bad Request: no valid session');
  }

  const server = createServer(async (req, res) => {
    try {
      if (!req.url?.startsWith('/mcp')) return reply(res, 404, -32601, 'Not found');
      let body;
      if (req.method === 'POST') {
        const chunks = [];
        for await (const c of req) chunks.push(c);
        const buf = Buffer.concat(chunks);
        try {
          body = buf.length ? JSON.parse(buf.toString('utf8')) : undefined;
        } catch {
          return reply(res, 400, -32700, 'Parse error');
        }
        // The SDK's own classifier on the parsed body and the three MCP headers (what createMcpHandler runs).
        const inbound =
          body === undefined
            ? { kind: 'legacy' }
            : classifyInboundRequest({
                httpMethod: 'POST',
                protocolVersionHeader: header(req, 'mcp-protocol-version'),
                mcpMethodHeader: header(req, 'mcp-method'),
                mcpNameHeader: header(req, 'mcp-name'),
                body,
              });
        if (inbound.kind === 'legacy') return legacy(req, res, body);
        return modern(req, res, body);
      }
      return legacy(req, res, body);
    } catch (err) {
      if (!res.headersSent) reply(res, 500, -32603, String(err?.message ?? err));
      else res.end();
    }
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, '127.0.0.1', () => {
    process.stdout.write(`listening http://127.0.0.1:${server.address().port}/mcp\n`);
  });
  const stop = () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  process.stderr.write(`usage: bare-sdk-server.mjs stdio | http [port]\n`);
  process.exit(2);
}
