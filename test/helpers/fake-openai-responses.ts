// Test helper: a fake OpenAI Responses API (`POST /v1/responses`, streamed as server-sent events) on 127.0.0.1 with
// scripted replies — what Codex speaks (`wire_api = "responses"`). It records every request, so a test sees the tools
// the client offered the model and the tool results it sent back.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { recordJsonRequest } from './fake-api.ts';
import type { RecordedChatRequest } from './fake-openai.ts';

/**
 * A scripted reply: a plain string is the assistant's message; `call` is one function call. Codex offers an MCP
 * server's tools as a `namespace` tool (`mcp__SERVER`) whose functions keep their own names, and a call names both.
 */
export type FakeResponsesReply =
  | string
  | { call: { name: string; namespace?: string; arguments: Record<string, unknown>; callId?: string } };

export type ResponsesResponder = (req: RecordedChatRequest, index: number) => FakeResponsesReply;

export interface FakeResponses {
  /** Base URL including `/v1` (a Codex provider's `base_url`). */
  url: string;
  requests: RecordedChatRequest[];
  /** The `POST /v1/responses` requests. */
  responses(): RecordedChatRequest[];
  close(): Promise<void>;
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_fake${Date.now().toString(36)}${(counter++).toString(36)}`;

function outputItem(reply: FakeResponsesReply): Record<string, unknown> {
  if (typeof reply === 'string')
    return {
      type: 'message',
      id: nextId('msg'),
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: reply, annotations: [] }],
    };
  const { name, namespace, arguments: args, callId } = reply.call;
  return {
    type: 'function_call',
    id: nextId('fc'),
    call_id: callId ?? nextId('call'),
    ...(namespace ? { namespace } : {}),
    name,
    arguments: JSON.stringify(args),
    status: 'completed',
  };
}

/**
 * Start a fake Responses API on 127.0.0.1 (a free port). Every request is answered as a stream (Codex always
 * streams): `response.created`, the reply's one output item, `response.completed`.
 *
 * @example
 * const api = await startFakeResponses({ respond: (req) => (hasToolOutput(req) ? 'Done.' : { call: { name: 'x', arguments: {} } }) });
 */
export async function startFakeResponses(opts: { respond: ResponsesResponder }): Promise<FakeResponses> {
  const requests: RecordedChatRequest[] = [];
  let index = 0;
  const server: Server = createServer(async (req, res) => {
    const record = await recordJsonRequest(req, res, requests, '/v1/responses');
    if (!record) return;
    const body = record.body;
    const item = outputItem(opts.respond(record, index++));
    const id = nextId('resp');
    const model = String(body?.model ?? 'gpt-fake');
    const usage = {
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 5,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 15,
    };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (event: Record<string, unknown> & { type: string }) =>
      res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    send({ type: 'response.created', response: { id, object: 'response', model, status: 'in_progress', output: [] } });
    send({ type: 'response.output_item.done', output_index: 0, item });
    send({
      type: 'response.completed',
      response: { id, object: 'response', model, status: 'completed', output: [item], usage },
    });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    responses: () => requests.filter((r) => r.method === 'POST' && r.path === '/v1/responses'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
