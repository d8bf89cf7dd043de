// MCP over stdio: one connection per process; stdout carries only protocol, logs go to stderr.
// The caller's roles come from `[stdio] roles` (default: all).
import type { JSONRPCMessage, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { Cancellation } from '../core/cancellation.ts';
import type { ClientChannel, McpCallInfo } from '../core/context.ts';
import type { Hub } from '../hub.ts';
import { type Exposure, makePrincipal } from '../policy/principal.ts';
import { type FastCallContext, fastCallOf, runFastCall } from './fast-call.ts';
import { buildMcpServer, callToolResultJson, forwardListChanges } from './mcp-server.ts';
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
  // What every fast call of the session shares, made once its client has initialized.
  let session: { server: Server; mcp: McpCallInfo; client: ClientChannel; log: FastCallContext['log'] } | undefined;
  const sessionOf = (server: Server, caps: Record<string, unknown>) => {
    if (session?.server === server && session.mcp.clientCapabilities === caps) return session;
    const client: ClientChannel = {};
    if (caps.sampling) client.sample = (params) => server.createMessage(params as any);
    if (caps.elicitation) client.elicit = (params) => server.elicitInput(params as any);
    session = {
      server,
      mcp: { era: 'legacy', protocolVersion: server.getNegotiatedProtocolVersion(), clientCapabilities: caps },
      client,
      log: (level, data) => server.sendLoggingMessage({ level, data }).catch(() => {}),
    };
    return session;
  };
  // Fast-path calls in flight, so a client's notifications/cancelled can reach them.
  const inFlight = new Map<string | number, { cancellation: Cancellation; cancelled: boolean }>();
  transport.intercept = (message) => {
    const server = current;
    // Only once a 2025-era session is initialized; everything else (handshake, 2026 envelopes) is the SDK's.
    const caps = server?.getClientCapabilities();
    if (!server || !caps) return false;
    const m = message as { method?: unknown; params?: { requestId?: unknown } };
    const cancelled =
      m?.method === 'notifications/cancelled' ? inFlight.get(m.params?.requestId as string | number) : undefined;
    if (cancelled) {
      cancelled.cancelled = true;
      cancelled.cancellation.abort();
      return true;
    }
    const call = fastCallOf(hub, principal, message, 'legacy');
    if (!call) return false;
    const cancellation = new Cancellation();
    const flight = { cancellation, cancelled: false };
    inFlight.set(call.id, flight);
    const { mcp, client, log } = sessionOf(server, caps as Record<string, unknown>);
    const fail = (err: unknown) =>
      void transport.send({ jsonrpc: '2.0', id: call.id, error: { code: -32603, message: (err as Error).message } });
    runFastCall(hub, call, { principal, transport: 'stdio', era: 'legacy', cancellation, client, mcp, log }).then(
      (outcome) => {
        inFlight.delete(call.id);
        if (flight.cancelled) return; // A request the client cancelled gets no answer (a timed-out one does).
        try {
          if (outcome === undefined) transport.onmessage?.(message as JSONRPCMessage);
          else transport.sendResult(call.id, callToolResultJson(outcome));
        } catch (err) {
          fail(err); // A result JSON cannot encode (a BigInt, a cycle).
        }
      },
      (err) => {
        inFlight.delete(call.id);
        fail(err);
      },
    );
    return true;
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
