// MCP over stdio: one connection per process; stdout carries only protocol, logs go to stderr.
// The caller's roles come from `[stdio] roles` (default: all).
//
// The connection comes first and the hub second (issue 17; docs/decisions.md, "Initialize before the hub"): the
// handshake is answered by the SDK alone, and the hub — configuration, store, handler modules, sources — starts
// once that answer is out. Every other request waits for it in buildMcpServer's handlers.
import type { JSONRPCMessage, RequestId, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Logger } from 'pino';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../config/schema.ts';
import type { Hub } from '../hub.ts';
import { type CallerLimit, limitToCaller } from '../policy/caller-limit.ts';
import { type Exposure, makePrincipal } from '../policy/principal.ts';
import { selectProfile } from '../policy/profile-select.ts';
import { ProtocolErrorCode } from './jsonrpc-errors.ts';
import { ConnectionEdge, type Reply, taskParamOf } from './mcp-edge.ts';
import { buildMcpServer, forwardListChanges, type Serving } from './mcp-server.ts';
import { closeTasks } from './mcp-task-table.ts';
import { callOnSession } from './mcp-tasks-2025.ts';
import { BatchingStdioTransport } from './stdio-transport.ts';

export interface StdioHandle {
  /** Close the connection, then the hub if it has started (one still starting is not waited for). */
  close(): Promise<void>;
  /**
   * Resolves when the client closes stdin. Rejects with the hub's own error when it failed to start: the connection
   * stays open until the client closes it, answering every request with that failure.
   */
  closed: Promise<void>;
  /**
   * Start the hub now instead of after the handshake (stdin is a terminal: no client to answer first). Resolves once
   * it serves; rejects with the hub's own error.
   */
  start(): Promise<void>;
}

export interface StdioOptions {
  exposure?: Exposure;
  /** SWITCHBOARD_CALLER_LIMIT: what the caller of the agent's turn that started this process may call, at most. */
  callerLimit?: CallerLimit;
  /** `serve --profile NAME` (or SWITCHBOARD_PROFILE): the profile this connection runs under, and how it was named. */
  profile?: { name: string; via: string };
  /** The process logger (the hub's too): transport errors may come before the hub. */
  logger: Logger;
}

/** Serve MCP on stdin/stdout; `startHub` is called once, when the handshake has been answered or a request needs it. */
export function serveMcpStdio(startHub: () => Promise<Hub>, opts: StdioOptions): StdioHandle {
  const unsubscribers: (() => void)[] = [];
  let failure: Error | undefined;
  let settleClosed!: (err?: Error) => void;
  const closed = new Promise<void>((resolve, reject) => {
    settleClosed = (err) => (err ? reject(err) : resolve());
  });
  /** The connection ended (the client closed stdin, or `close`): `closed` settles, with the hub's failure if any. */
  const ended = () => settleClosed(failure);
  // The handshake is read with the default limit; the configured one applies once the hub has read the config.
  const transport = new BatchingStdioTransport(DEFAULT_MAX_MESSAGE_BYTES);
  let current: Server | undefined;
  let edge: ConnectionEdge | undefined;
  let started: Serving | undefined;
  // Every line goes to the edge first (plain tools/call of an initialized connection), then to the SDK. The edge
  // serves once the hub is up; a `logging/setLevel` the SDK answered before that still applies to its calls.
  let levelBeforeHub: unknown;
  const reply: Reply = {
    result: (id, json) => transport.sendResult(id, json),
    error: (id, message, code = ProtocolErrorCode.InternalError) =>
      void transport.send({ jsonrpc: '2.0', id, error: { code, message } }),
  };
  // A task-augmented call that comes before the hub is up waits for it: only the edge can answer it with a task.
  const early: unknown[] = [];
  transport.edge = {
    take: (message) => {
      if (edge) return edge.take(current, message, () => reply);
      if (!taskParamOf(message)) return false;
      early.push(message);
      void serve();
      return true;
    },
    observe: (message) => {
      if (edge) edge.observe(message);
      else if ((message as { method?: unknown }).method === 'logging/setLevel') levelBeforeHub = message;
    },
  };

  const ready = (hub: Hub): Serving => {
    const config = hub.config.get();
    transport.setMaxMessageBytes(config.stdio.max_message_bytes);
    // Whoever started this process over stdio already runs as the local user; `[stdio] roles` narrows what they see.
    const stdio = limitToCaller(
      makePrincipal(config, opts.exposure, { id: 'stdio', roles: config.stdio.roles, kind: 'stdio' }),
      opts.callerLimit,
    );
    let principal: typeof stdio;
    try {
      principal = selectProfile(config, stdio, opts.profile ? { requested: opts.profile } : {});
    } catch (err) {
      // An unknown profile fails the start like a broken configuration: nothing is served under the wrong tool set.
      void hub.close().catch(() => {});
      throw err;
    }
    edge = new ConnectionEdge(hub, principal, 'stdio', undefined, callOnSession);
    if (levelBeforeHub) edge.observe(levelBeforeHub);
    // What the edge does not take after all (an unknown tool) is the SDK's, which says what is wrong.
    for (const message of early.splice(0))
      if (!edge.take(current, message, () => reply)) transport.onmessage?.(message as JSONRPCMessage);
    started = { hub, principal };
    if (current) unsubscribers.push(forwardListChanges(hub, current));
    return started;
  };

  const failed = (err: Error): never => {
    // Every request — those waiting now and every later one — is answered with the failure until the client closes
    // stdin; then `closed` rejects and `serve` exits non-zero with the error on stderr. Exiting at once would leave a
    // client whose next request is on its way with only "connection closed" to show (issue 29).
    failure = err;
    for (const message of early.splice(0)) reply.error((message as { id: RequestId }).id, err.message);
    if (current?.getClientVersion()) {
      // Said at once where an agent keeps a server's stderr, and to the client, which may show server logs.
      const why = `Switchboard could not start; every request is answered with this until the client disconnects: ${err.message}`;
      opts.logger.error(why);
      current?.sendLoggingMessage({ level: 'error', logger: 'switchboard', data: why }).catch(() => {});
    }
    throw new Error(`Switchboard could not start, so it cannot answer this request: ${err.message}`);
  };

  let serving: Promise<Serving> | undefined;
  /**
   * The hub, started once — in the turn after the one that asked, so what that turn answers without it (the
   * handshake of a client that sent more behind it) goes out first.
   */
  const serve = (): Promise<Serving> => {
    if (!serving) {
      serving = transport.afterThisTurn().then(startHub).then(ready).catch(failed);
      serving.catch(() => {}); // Answered to each waiting request, and through `closed`.
    }
    return serving;
  };
  transport.onfirstwrite = () => void serve();

  const connection = serveStdio(
    () => {
      const server = buildMcpServer(serve, { transport: 'stdio' });
      current = server;
      // Tell the client when tools, resources or prompts change (sources load in the background).
      if (started) unsubscribers.push(forwardListChanges(started.hub, server));
      const prevClose = server.onclose;
      server.onclose = () => {
        prevClose?.();
        edge?.closeAll();
        ended();
      };
      return server;
    },
    { transport, onerror: (err) => opts.logger.warn({ err: err.message }, 'stdio transport error') },
  );
  process.stdin.once('end', ended);
  const handle: StdioHandle = {
    closed,
    start: () =>
      serve().then(
        () => {},
        () => Promise.reject(failure),
      ),
    async close() {
      for (const u of unsubscribers) u();
      if (started) await closeTasks(started.hub);
      await connection.close();
      await started?.hub.close();
    },
  };
  return handle;
}
