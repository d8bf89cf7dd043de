// MCP over stdio: one connection per process; stdout carries only protocol, logs go to stderr.
// The caller's roles come from `[stdio] roles` (default: all).
import type { JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Hub } from '../hub.ts';
import { type Exposure, makePrincipal } from '../policy/principal.ts';
import { FastCalls, type FastReply } from './fast-call.ts';
import { buildMcpServer, forwardListChanges } from './mcp-server.ts';
import { BatchingStdioTransport } from './stdio-transport.ts';

export interface StdioHandle {
  close(): Promise<void>;
  /** Resolves when the client closes stdin. */
  closed: Promise<void>;
}

export function serveMcpStdio(hub: Hub, opts: { exposure?: Exposure } = {}): StdioHandle {
  // Whoever started this process over stdio already runs as the local user; `[stdio] roles` narrows what they see.
  const principal = makePrincipal(hub.config.get(), opts.exposure, {
    id: 'stdio',
    roles: hub.config.get().stdio.roles,
    kind: 'stdio',
  });
  const unsubscribers: (() => void)[] = [];
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => {
    resolveClosed = r;
  });
  const transport = new BatchingStdioTransport(hub.config.get().stdio.max_message_bytes);
  let current: Server | undefined;
  // The fast branch: plain tools/call of an initialized session, through the same adapter and encoder as the SDK's.
  const fast = new FastCalls(hub, principal, 'stdio');
  const reply: FastReply = {
    result: (id, json) => transport.sendResult(id, json),
    error: (id, message) => void transport.send({ jsonrpc: '2.0', id, error: { code: -32603, message } }),
    toSdk: (message) => transport.onmessage?.(message as JSONRPCMessage),
  };
  transport.fast = {
    take: (message) => fast.take(current, message, () => reply),
    observe: (message) => fast.observe(message),
  };
  const handle = serveStdio(
    () => {
      const server = buildMcpServer(hub, { principal, transport: 'stdio' });
      current = server;
      // Tell the client when tools, resources or prompts change (sources load in the background).
      unsubscribers.push(forwardListChanges(hub, server));
      const prevClose = server.onclose;
      server.onclose = () => {
        prevClose?.();
        fast.closeAll();
        resolveClosed();
      };
      return server;
    },
    { transport, onerror: (err) => hub.services.logger.warn({ err: err.message }, 'stdio transport error') },
  );
  process.stdin.once('end', () => resolveClosed());
  return {
    closed,
    async close() {
      for (const u of unsubscribers) u();
      await handle.close();
    },
  };
}
