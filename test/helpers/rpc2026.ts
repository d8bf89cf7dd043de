// Test helper: one raw 2026-07-28 Streamable HTTP request, with the headers and `_meta` envelope a modern client
// sends, for tests that need to see the exact JSON-RPC answer (from a JSON body or an SSE stream).

/**
 * POST `method` with `params` to `${base}/mcp`; answers the HTTP status and the JSON-RPC response to it. The client
 * declares `capabilities` (default: elicitation).
 */
export async function rpc2026(
  base: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  capabilities: Record<string, unknown> = { elicitation: {} },
): Promise<{ status: number; message: any }> {
  const name = (params.name ?? params.uri ?? params.taskId) as string | undefined;
  const res = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': capabilities,
        },
      },
    }),
  });
  const messages = await jsonRpcMessagesOf(res);
  return { status: res.status, message: messages.find((m) => m.id === 7) };
}

/** The JSON-RPC messages of an MCP HTTP response: its JSON body, or each `data:` line of its SSE stream. */
export async function jsonRpcMessagesOf(res: Response): Promise<any[]> {
  const body = await res.text();
  return res.headers.get('content-type')?.includes('text/event-stream')
    ? body
        .split('\n')
        .filter((l) => l.startsWith('data:') && l.length > 6)
        .map((l) => JSON.parse(l.slice(5)))
    : [JSON.parse(body)];
}
