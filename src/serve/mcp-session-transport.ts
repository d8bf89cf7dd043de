// The transport of one 2025 Streamable HTTP session. The SDK's web-standard transport does the session's HTTP —
// initialize, GET streams, resumption, DELETE, every error answer — reached from node:http through the same
// adapter the SDK's Node transport uses (@hono/node-server). Every POST is handed to the edge first (mcp-edge.ts):
// a plain `tools/call` is answered there, on a response stream this class writes itself in the SDK's format (SSE,
// a priming event, every event stored for Last-Event-ID resumption). What such a call sends its client —
// sampling, elicitation, logs — is related to its id, and `send` routes it onto that stream.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestId,
  type Server,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  type TransportSendOptions,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { Principal } from '../core/context.ts';
import type { Hub } from '../hub.ts';
import { ProtocolErrorCode } from './jsonrpc-errors.ts';
import { CallStream } from './mcp-call-stream.ts';
import { ConnectionEdge, header, type Reply, traceFromHeaders } from './mcp-edge.ts';
import { createSessionEventStore } from './mcp-event-store.ts';
import { callOnSession } from './mcp-tasks-2025.ts';
import { jsonRpcResultText } from './tool-result.ts';

export interface SessionTransportOptions {
  /** The session id, fixed in advance (the shared record is written before the client sees it). */
  id: string;
  hub: Hub;
  principal: Principal;
  /** The session's protocol server (connected to this transport by the caller). */
  server: Server;
  /** How long a client waits before reconnecting to a closed stream (the SSE `retry` field). */
  retryMs: number;
  onsessioninitialized: (sessionId: string) => void;
  /** Runs before any server-to-client request leaves (scale-out claims it, so the answer finds its way back). */
  beforeRequest?: (request: JSONRPCRequest) => Promise<void>;
}

export class SessionTransport implements Transport {
  private readonly events = createSessionEventStore();
  private readonly web: WebStandardStreamableHTTPServerTransport;
  private readonly edge: ConnectionEdge;
  /** Response streams this transport writes itself (the edge's calls), by call id. */
  private readonly streams = new Map<RequestId, CallStream>();
  private supported: string[] = SUPPORTED_PROTOCOL_VERSIONS;
  private deliver?: Transport['onmessage'];
  private closeHandler?: () => void;

  constructor(private readonly opts: SessionTransportOptions) {
    this.web = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => opts.id,
      // Resumable streams: priming events, Last-Event-ID replay, and handlers may close a stream (SEP-1699).
      eventStore: this.events,
      retryInterval: opts.retryMs,
      onsessioninitialized: opts.onsessioninitialized,
    });
    this.edge = new ConnectionEdge(opts.hub, opts.principal, 'http', opts.id, callOnSession);
    this.web.onclose = () => {
      this.edge.closeAll();
      for (const stream of this.streams.values()) stream.end();
      this.streams.clear();
      this.closeHandler?.();
    };
  }

  get sessionId(): string | undefined {
    return this.web.sessionId;
  }

  get onclose(): (() => void) | undefined {
    return this.closeHandler;
  }
  set onclose(handler: (() => void) | undefined) {
    this.closeHandler = handler;
  }

  get onerror(): ((error: Error) => void) | undefined {
    return this.web.onerror;
  }
  set onerror(handler: ((error: Error) => void) | undefined) {
    this.web.onerror = handler;
  }

  /** Set by the protocol server on connect; every message it is given is then seen by the edge too. */
  get onmessage(): Transport['onmessage'] {
    return this.deliver ? this.receive : undefined;
  }
  set onmessage(handler: Transport['onmessage']) {
    this.deliver = handler;
    this.web.onmessage = handler ? this.receive : undefined;
  }

  private readonly receive = (message: JSONRPCMessage, extra?: MessageExtraInfo): void => {
    this.deliver?.(message, extra);
    this.edge.observe(message);
    // The SDK aborts a cancelled call and sends no response, but its transport ends a POST's stream only once
    // every request on it has one: close the stream of a cancelled request here (the client asked for nothing more).
    if ('method' in message && message.method === 'notifications/cancelled') {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') this.cancelled(requestId);
    }
  };

  setSupportedProtocolVersions(versions: string[]): void {
    this.supported = versions;
    this.web.setSupportedProtocolVersions(versions);
  }

  async start(): Promise<void> {
    await this.web.start();
  }

  async close(): Promise<void> {
    await this.web.close();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isRequest = 'method' in message;
    if (isRequest && 'id' in message && this.opts.beforeRequest)
      await this.opts.beforeRequest(message as JSONRPCRequest).catch(() => {});
    // A response carries its call's id; a request or notification of a call names it as the related request.
    const callId = isRequest ? options?.relatedRequestId : (message as { id?: RequestId }).id;
    const stream = callId === undefined ? undefined : this.streams.get(callId);
    if (stream) stream.send(message);
    else await this.web.send(message, options);
  }

  /** End the response stream of request `id` now; the client resumes it with Last-Event-ID (SEP-1699). */
  closeSSEStream(id: RequestId): void {
    const stream = this.streams.get(id);
    if (stream) stream.disconnect();
    else this.web.closeSSEStream(id);
  }

  /** Answer a request to this session's /mcp (its session id, principal and roles already checked). */
  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (req.method === 'POST' ? this.takeCall(req, res, body) : req.method === 'GET' && this.resume(req, res)) return;
    await getRequestListener((request) => this.web.handleRequest(request, { parsedBody: body }), {
      overrideGlobalObjects: false,
    })(req, res);
  }

  /**
   * Restore a session opened elsewhere (another instance, or this one before a restart): replay the client's
   * initialize, which sets its capabilities in the protocol server and marks the transport initialized.
   */
  async replayInitialize(initialize: unknown): Promise<void> {
    const replay = await this.web.handleRequest(
      new Request('http://switchboard.internal/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initialize),
      }),
    );
    await replay.text();
  }

  /**
   * Hand a POST to the edge when its headers are exactly what the SDK would accept. Anything it would answer with
   * an error (Accept, Content-Type, an unsupported protocol version) goes to it.
   */
  private takeCall(req: IncomingMessage, res: ServerResponse, body: unknown): boolean {
    const accept = header(req, 'accept') ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
    if (header(req, 'content-type') !== 'application/json') return false;
    const version = header(req, 'mcp-protocol-version');
    if (version !== undefined && !this.supported.includes(version)) return false;
    return this.edge.take(
      this.opts.server,
      body,
      (id) => this.openStream(id, res, version ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION),
      traceFromHeaders(req.headers),
    );
  }

  /** The response stream of a call the edge answers, and the reply that writes to it. */
  private openStream(id: RequestId, res: ServerResponse, clientVersion: string): Reply {
    // As the SDK: a priming event (and so resumption and closeStream) only for clients that handle its empty data.
    const resumable = this.supported.includes(clientVersion) && clientVersion >= '2025-11-25';
    const stream = new CallStream(this.events, randomUUID(), this.sseHeaders(), () => this.streams.delete(id));
    this.streams.set(id, stream);
    stream.open(res, resumable ? this.opts.retryMs : undefined);
    return {
      result: (callId, json) => stream.finish(jsonRpcResultText(callId, json)),
      error: (callId, message, code = ProtocolErrorCode.InternalError) =>
        stream.finish(JSON.stringify({ jsonrpc: '2.0', id: callId, error: { code, message } })),
      ...(resumable ? { closeStream: () => this.closeSSEStream(id) } : {}),
    };
  }

  /** A GET with Last-Event-ID that resumes an edge call still running; others are the SDK's to replay. */
  private resume(req: IncomingMessage, res: ServerResponse): boolean {
    const lastEventId = header(req, 'last-event-id');
    if (!lastEventId || !header(req, 'accept')?.includes('text/event-stream')) return false;
    const version = header(req, 'mcp-protocol-version');
    if (version !== undefined && !this.supported.includes(version)) return false;
    const streamId = this.events.streamOf(lastEventId);
    for (const stream of this.streams.values())
      if (stream.streamId === streamId) return stream.resume(res, lastEventId);
    return false;
  }

  /** An edge call the client cancelled gets no answer: its stream ends. Others are the SDK's. */
  private cancelled(id: RequestId): void {
    const stream = this.streams.get(id);
    if (stream) {
      stream.end();
      this.streams.delete(id);
    } else this.web.closeSSEStream(id);
  }

  private sseHeaders(): OutgoingHttpHeaders {
    return {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'mcp-session-id': this.opts.id,
    };
  }
}
