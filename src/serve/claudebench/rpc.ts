// ClaudeBench's JSON-RPC endpoint (POST /rpc, and its POST /rpc/batch) as a compatibility adapter: its clients — its
// Claude Code hook relay, its scripts — work unchanged, with its method names, parameter names and answer shapes,
// over Switchboard's own capabilities. Every capability call goes through runCall, the pipeline entry REST uses
// (roles, limits, breakers, audit); the adapter only translates. Off unless `[compat] claudebench_rpc = true`.
// Errors follow JSON-RPC 2.0, with ClaudeBench's own codes for what it names (rate limit, circuit, unauthorized).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Cancellation } from '../../core/cancellation.ts';
import { listedTools } from '../../core/catalog/exposure.ts';
import type { Principal } from '../../core/context.ts';
import type { ErrorInfo } from '../../core/errors.ts';
import { describeIssues } from '../../core/pipeline.ts';
import type { TraceContext } from '../../core/trace-context.ts';
import type { Hub } from '../../hub.ts';
import { ClaudeBenchErrorCode, ProtocolErrorCode } from '../jsonrpc-errors.ts';
import { runCall, traceFromHeaders } from '../mcp-edge.ts';
import { sendJson } from '../rest.ts';
import type { Route } from '../route-table.ts';
import { rawContent } from '../tool-result.ts';
import { type ListTools, type Method, type Native, NativeFailure, ParamsError } from './method.ts';
import { OTHER_METHODS, REFUSED } from './other-methods.ts';
import { TASK_METHODS } from './task-methods.ts';

/** Every ClaudeBench method served here, by its name. */
export const METHODS: Record<string, Method> = { ...TASK_METHODS, ...OTHER_METHODS };
export { REFUSED };

/** The config key that turns the endpoint on, as a person writes it. */
export const CLAUDEBENCH_RPC_SETTING = '[compat] claudebench_rpc = true';

/** ClaudeBench's own codes (its errorCodes), for the refusals it has names for. */

const ENVELOPE_KEYS = new Set(['jsonrpc', 'method', 'params', 'id', 'metadata']);

type Id = string | number | null;
type RpcError = { code: number; message: string; data?: unknown };
type Response = { jsonrpc: '2.0'; result: unknown; id: Id } | { jsonrpc: '2.0'; error: RpcError; id: Id };

const isPlain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const failure = (id: Id, error: RpcError): Response => ({ jsonrpc: '2.0', error, id });

/** What one HTTP request to the endpoint carries besides its body. */
export interface RpcRequest {
  res: ServerResponse;
  principal: Principal;
  trace?: TraceContext;
}

/**
 * The endpoint's routes (/rpc, and /rpc/batch as ClaudeBench has it), for http.ts's table: `readJson` reads the body
 * the way the MCP routes do, or answers the request itself (too large, not JSON) and gives undefined.
 */
export function claudeBenchRoutes(
  hub: Hub,
  readJson: (req: IncomingMessage, res: ServerResponse) => Promise<{ body: unknown } | undefined>,
): Route[] {
  return ['/rpc', '/rpc/batch'].map((path) => ({
    method: 'ALL',
    path,
    jsonRpc: true,
    async handle({ req, res, principal }) {
      if (!claudeBenchRpcOn(hub)) return answerOff(res, `${req.method} ${path}`);
      if (req.method !== 'POST')
        return sendJson(
          res,
          405,
          failure(null, {
            code: ProtocolErrorCode.InvalidRequest,
            message: `Use POST ${path} with a JSON-RPC 2.0 request as the body.`,
          }),
          { allow: 'POST' },
        );
      const read = await readJson(req, res);
      if (!read) return;
      const trace = traceFromHeaders(req.headers);
      return answerRpc(hub, read.body, { res, principal, ...(trace ? { trace } : {}) }, path === '/rpc/batch');
    },
  }));
}

/** Whether the endpoint is on (read per request: a config change applies to the next one). */
export function claudeBenchRpcOn(hub: Hub): boolean {
  return hub.config.get().compat.claudebench_rpc;
}

/** The answer while the endpoint is off: absent, saying how to turn it on. `route`: e.g. `POST /rpc`. */
export function answerOff(res: ServerResponse, route: string): void {
  sendJson(res, 404, {
    jsonrpc: '2.0',
    error: {
      code: ProtocolErrorCode.MethodNotFound,
      message: `No route ${route}: ClaudeBench's JSON-RPC endpoint is off. Turn it on with \`${CLAUDEBENCH_RPC_SETTING}\` in .switchboard/config.toml (docs/coming-from-claudebench.md).`,
    },
    id: null,
  });
}

/**
 * Answer a parsed body: one request, or a batch (an array, JSON-RPC 2.0; `batchOnly` for ClaudeBench's /rpc/batch,
 * which takes only arrays). Requests of a batch run one after another. Notifications (no id) get no answer: 204 when
 * nothing is left to answer.
 */
export async function answerRpc(hub: Hub, body: unknown, request: RpcRequest, batchOnly = false): Promise<void> {
  const { res } = request;
  const cancellation = new Cancellation();
  // A client that goes away cancels what it asked for.
  const onClose = () => {
    if (!res.writableEnded) cancellation.abort();
  };
  res.on('close', onClose);
  let answer: Response | Response[] | undefined;
  try {
    if (!Array.isArray(body)) {
      answer = batchOnly
        ? failure(null, { code: ProtocolErrorCode.InvalidRequest, message: 'A batch is a JSON array of requests.' })
        : await answerOne(hub, body, request, cancellation);
    } else if (body.length === 0) {
      answer = failure(null, {
        code: ProtocolErrorCode.InvalidRequest,
        message: 'An empty batch: send at least one request.',
      });
    } else {
      const answers: Response[] = [];
      for (const item of body) {
        const one = await answerOne(hub, item, request, cancellation);
        if (one) answers.push(one);
      }
      answer = answers.length ? answers : undefined;
    }
  } finally {
    res.off('close', onClose);
  }
  if (res.destroyed) return;
  if (answer === undefined) {
    res.writeHead(204).end();
    return;
  }
  sendJson(res, 200, answer);
}

/** One request's answer; undefined for a notification. */
async function answerOne(
  hub: Hub,
  message: unknown,
  request: RpcRequest,
  cancellation: Cancellation,
): Promise<Response | undefined> {
  if (!isPlain(message))
    return failure(null, {
      code: ProtocolErrorCode.InvalidRequest,
      message: 'A request is a JSON object: { "jsonrpc": "2.0", "method": …, "params": {…}, "id": … }.',
    });
  const rawId = message.id;
  const idOk = rawId === undefined || rawId === null || typeof rawId === 'string' || typeof rawId === 'number';
  const id: Id = idOk ? ((rawId ?? null) as Id) : null;
  const invalid = (text: string) => failure(id, { code: ProtocolErrorCode.InvalidRequest, message: text });
  if (!idOk) return invalid('id must be a string, a number or null.');
  if (message.jsonrpc !== '2.0') return invalid(`jsonrpc must be "2.0", got ${JSON.stringify(message.jsonrpc)}.`);
  if (typeof message.method !== 'string' || !message.method)
    return invalid('method must be a non-empty string, e.g. "task.create".');
  const extra = Object.keys(message).filter((k) => !ENVELOPE_KEYS.has(k));
  if (extra.length)
    return invalid(`Unknown member(s) ${extra.join(', ')}: a request has jsonrpc, method, params, id and metadata.`);
  const notification = !('id' in message);
  const answer = await dispatch(hub, message.method, message.params, id, request, cancellation);
  return notification ? undefined : answer;
}

async function dispatch(
  hub: Hub,
  name: string,
  params: unknown,
  id: Id,
  request: RpcRequest,
  cancellation: Cancellation,
): Promise<Response> {
  const m = METHODS[name];
  if (!m) {
    const why = REFUSED[name];
    return failure(id, {
      code: ProtocolErrorCode.MethodNotFound,
      message: why
        ? `${name} has no equivalent in Switchboard: ${why}`
        : `Method not found: ${name}. This endpoint serves ClaudeBench's methods (${Object.keys(METHODS).join(', ')}).`,
      data: { method: name, ...(why ? { reason: why } : {}) },
    });
  }
  if (params !== undefined && !isPlain(params))
    return failure(id, {
      code: ProtocolErrorCode.InvalidParams,
      message: `Invalid params for ${name}: params must be an object of named params.`,
      data: { issues: [{ path: 'params', message: 'must be an object' }] },
    });
  const parsed = m.params.safeParse(params ?? {});
  if (!parsed.success) return invalidParams(id, name, describeIssues(parsed.error.issues).issues);
  const native: Native = async (capability, input) => {
    const outcome = await runCall(
      hub,
      { name: capability, arguments: input, ...(id === null ? {} : { id }) },
      {
        principal: request.principal,
        transport: 'rest',
        cancellation,
        ...(request.trace ? { trace: request.trace } : {}),
      },
    );
    if (!outcome.ok) throw new NativeFailure(outcome.error);
    return outcome.raw ? rawContent(outcome.raw) : outcome.value;
  };
  const tools: ListTools = async () => {
    await hub.catalogReady();
    return listedTools(hub.services.registry, hub.config.get(), request.principal).map((e) => e.tool);
  };
  try {
    return { jsonrpc: '2.0', result: (await m.run(parsed.data, native, tools)) ?? null, id };
  } catch (err) {
    if (err instanceof ParamsError) return invalidParams(id, name, [{ path: err.field, message: err.message }]);
    if (err instanceof NativeFailure) return failure(id, nativeError(name, m, err.info));
    hub.services.logger.error({ err, method: name }, 'ClaudeBench JSON-RPC method failed');
    return failure(id, {
      code: ProtocolErrorCode.InternalError,
      message: `Internal error in ${name}: ${(err as Error).message}`,
    });
  }
}

function invalidParams(id: Id, name: string, issues: { path: string; message: string }[]): Response {
  return failure(id, {
    code: ProtocolErrorCode.InvalidParams,
    message: `Invalid params for ${name}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    data: { issues },
  });
}

/** A Switchboard refusal in JSON-RPC terms, its fields named as the caller sent them. */
function nativeError(name: string, m: Method, info: ErrorInfo): RpcError {
  const data = { code: info.code, ...(info.details ? { details: info.details } : {}) };
  switch (info.code) {
    case 'INVALID_INPUT': {
      const issues = (info.details?.issues as { path: string; message: string }[] | undefined)?.map((i) => ({
        path: renamed(m, i.path),
        message: i.message,
      }));
      if (!issues)
        return { code: ProtocolErrorCode.InvalidParams, message: `Invalid params for ${name}: ${info.message}`, data };
      return {
        code: ProtocolErrorCode.InvalidParams,
        message: `Invalid params for ${name}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
        data: { code: info.code, issues },
      };
    }
    case 'RATE_LIMITED':
      return { code: ClaudeBenchErrorCode.RateLimited, message: `Rate limit exceeded: ${info.message}`, data };
    case 'UNAVAILABLE':
      return { code: ClaudeBenchErrorCode.CircuitOpen, message: info.message, data };
    case 'UNAUTHORIZED':
    case 'FORBIDDEN':
      return { code: ClaudeBenchErrorCode.Unauthorized, message: info.message, data };
    default:
      return { code: ProtocolErrorCode.InternalError, message: info.message, data };
  }
}

/** A Switchboard field path as the method's caller named it: its first segment through the method's `fields`. */
function renamed(m: Method, path: string): string {
  const fields = m.fields;
  if (!fields) return path;
  if (typeof fields === 'function') return fields(path);
  const [head, ...rest] = path.split('.');
  const to = fields[head as string];
  return to === undefined ? path : [to, ...rest].join('.');
}
