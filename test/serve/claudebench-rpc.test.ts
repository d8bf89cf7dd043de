// ClaudeBench's JSON-RPC endpoint (src/serve/claudebench/) over real HTTP: JSON-RPC 2.0's errors (parse error,
// invalid request, method not found, invalid params naming the field as the caller sent it), batches and
// notifications, and the pipeline every call goes through — tokens, roles, rate limits and the audit trail — and the
// endpoint off (404 saying how to turn it on) until `[compat] claudebench_rpc = true`, applied live.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/policy/tokens.ts';
import { type HttpHandle, serveHttp } from '../../src/serve/http.ts';
import { type TestHub, testHub } from '../helpers/hub.ts';
import { until } from '../helpers/until.ts';

let hub: TestHub;
let http: HttpHandle;

const TOKENS = { agent: 'sb_agent-secret', ops: 'sb_ops-secret' };

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-cb-rpc-'));
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(
    join(dir, '.switchboard', 'config.toml'),
    [
      '[compat]',
      'claudebench_rpc = true',
      '[system]',
      'test_tools = true',
      '[policy.capabilities."task.delete"]',
      'rate_limit = { limit = 1, window_ms = 600000 }',
    ].join('\n'),
  );
  hub = await testHub({ cwd: dir });
  await hub.services.store.tokens.create({
    name: 'agent',
    hash: hashToken(TOKENS.agent),
    roles: ['agent'],
    expiresAt: null,
  });
  await hub.services.store.tokens.create({
    name: 'ops',
    hash: hashToken(TOKENS.ops),
    roles: ['admin'],
    expiresAt: null,
  });
  http = await serveHttp(hub, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await http?.close();
  await hub?.close();
});

/** POST a body to /rpc (or `path`) as `token`; the HTTP status and the parsed answer (undefined when empty). */
async function post(body: unknown, opts: { token?: string | null; path?: string; raw?: boolean } = {}) {
  const token = opts.token === undefined ? TOKENS.agent : opts.token;
  const res = await fetch(`${http.url}${opts.path ?? '/rpc'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: opts.raw ? (body as string) : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, answer: text ? JSON.parse(text) : undefined };
}

const call = (method: string, params?: unknown, id: unknown = 1) =>
  post({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }), id });

describe('JSON-RPC 2.0 errors', () => {
  it('a body that is not JSON is a parse error (-32700)', async () => {
    const { status, answer } = await post('{"jsonrpc": "2.0",', { raw: true });
    expect(status).toBe(400);
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    expect(answer.error.message).toContain('not valid JSON');
  });

  it('a malformed request is an invalid request (-32600) saying what is wrong', async () => {
    const cases: [unknown, string][] = [
      ['hello', 'A request is a JSON object'],
      [{ method: 'task.list', id: 1 }, 'jsonrpc must be "2.0", got undefined'],
      [{ jsonrpc: '2.0', id: 1 }, 'method must be a non-empty string'],
      [{ jsonrpc: '2.0', method: 'task.list', id: { n: 1 } }, 'id must be a string, a number or null'],
      [{ jsonrpc: '2.0', method: 'task.list', id: 1, extra: true }, 'Unknown member(s) extra'],
    ];
    for (const [body, text] of cases) {
      const { status, answer } = await post(body);
      expect(status, text).toBe(200);
      expect(answer.error.code, text).toBe(-32600);
      expect(answer.error.message).toContain(text);
    }
    // The id is echoed when it could be read.
    expect((await post({ method: 'task.list', id: 7 })).answer.id).toBe(7);
  });

  it('an unknown method is -32601 listing the methods served; a ClaudeBench method with no equivalent says why', async () => {
    const unknown = (await call('task.frobnicate', {})).answer;
    expect(unknown.error.code).toBe(-32601);
    expect(unknown.error.message).toContain('Method not found: task.frobnicate.');
    expect(unknown.error.message).toContain('task.claim');
    const refused = (await call('system.unregister', { instanceId: 'w', sessionId: 's', timestamp: 1 })).answer;
    expect(refused.error).toMatchObject({ code: -32601, data: { method: 'system.unregister' } });
    expect(refused.error.message).toContain('system.unregister has no equivalent in Switchboard');
    expect(refused.error.message).toContain('instance_ttl_ms');
  });

  it('invalid params are -32602 naming the field as the caller sent it', async () => {
    const issues = async (method: string, params: unknown) => {
      const { answer } = await call(method, params);
      expect(answer.error?.code, `${method} ${JSON.stringify(answer)}`).toBe(-32602);
      return { message: answer.error.message as string, paths: answer.error.data.issues.map((i: any) => i.path) };
    };
    expect((await issues('task.list', [1, 2])).message).toContain('params must be an object of named params');
    // A Switchboard spelling is not ClaudeBench's: the unknown key is named.
    const id = await issues('task.assign', { id: 't-1', instanceId: 'w' });
    expect(id.paths).toEqual(['taskId', '(root)']);
    expect(id.message).toContain('Unrecognized key: "id"');
    // Switchboard's own check (a task id is at most 64 characters) reports ClaudeBench's field name.
    const long = await issues('task.assign', { taskId: 'x'.repeat(65), instanceId: 'w' });
    expect(long.paths).toEqual(['taskId']);
    expect(long.message).toMatch(/^Invalid params for task.assign: taskId: /);
    expect((await issues('task.update', { id: 't-1', updates: {} })).paths).toEqual(['updates']);
    expect((await issues('task.complete', { result: 'x' })).message).toContain(
      "id: Either 'id' or 'taskId' must be provided",
    );
    expect((await issues('mcp.tool.execute', { tool: 'task.create', params: { priority: 5 } })).paths).toEqual([
      'params.text',
    ]);
  });

  it('a notification gets no answer (204), a batch one answer per request with an id, in order', async () => {
    const note = await post({ jsonrpc: '2.0', method: 'system.health' });
    expect(note.status).toBe(204);
    expect(note.answer).toBeUndefined();
    const batch = await post([
      { jsonrpc: '2.0', method: 'task.create', params: { text: 'one' }, id: 'a' },
      { jsonrpc: '2.0', method: 'task.create', params: { text: 'two' } },
      { jsonrpc: '2.0', method: 'nope', id: 'b' },
      42,
    ]);
    expect(batch.status).toBe(200);
    expect(batch.answer.map((a: any) => [a.id, a.result?.text ?? a.error.code])).toEqual([
      ['a', 'one'],
      ['b', -32601],
      [null, -32600],
    ]);
    expect((await post([])).answer.error).toMatchObject({ code: -32600, message: expect.stringContaining('empty') });
    // ClaudeBench's /rpc/batch takes arrays only.
    expect(
      (await post({ jsonrpc: '2.0', method: 'system.health', id: 1 }, { path: '/rpc/batch' })).answer.error.code,
    ).toBe(-32600);
    const twice = await post([{ jsonrpc: '2.0', method: 'system.health', id: 1 }], { path: '/rpc/batch' });
    expect(twice.answer[0].result.status).toBe('healthy');
  });

  it('GET /rpc is refused with 405 and Allow: POST', async () => {
    const res = await fetch(`${http.url}/rpc`, { headers: { authorization: `Bearer ${TOKENS.agent}` } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect((await res.json()).error.message).toContain('Use POST /rpc');
  });
});

describe('the pipeline behind every method', () => {
  it('needs a token once one exists, answered in JSON-RPC shape', async () => {
    const { status, answer } = await post({ jsonrpc: '2.0', method: 'system.health', id: 1 }, { token: null });
    expect(status).toBe(401);
    expect(answer).toMatchObject({ jsonrpc: '2.0', error: { message: expect.stringContaining('Authorization') } });
  });

  it("applies the caller's roles: an admin-only tool is hidden from an agent and answered for an admin", async () => {
    const params = { shouldFail: false };
    const agent = (await call('test.circuit', params)).answer;
    expect(agent.error).toMatchObject({ code: -32603, data: { code: 'NOT_FOUND' } });
    expect(agent.error.message).toContain("Unknown tool 'test.circuit'");
    const ops = (await post({ jsonrpc: '2.0', method: 'test.circuit', params, id: 1 }, { token: TOKENS.ops })).answer;
    expect(ops.error).toBeUndefined();
  });

  it("applies rate limits (ClaudeBench's -32000) and records each call in the audit trail as its caller", async () => {
    const created = (await call('task.create', { text: 'to delete' })).answer.result;
    expect((await call('task.delete', { id: created.id })).answer.result).toMatchObject({
      id: created.id,
      deleted: true,
    });
    const limited = (await call('task.delete', { id: created.id })).answer;
    expect(limited.error).toMatchObject({ code: -32000, data: { code: 'RATE_LIMITED' } });
    expect(limited.error.message).toMatch(/^Rate limit exceeded: /);
    const records = await until(async () => {
      const found = await hub.services.store.audit.query({ capability: 'task.delete', limit: 10 });
      return found.length === 2 && found;
    });
    expect(records.map((r) => [r.principal, r.transport, r.outcome, r.errorCode])).toEqual([
      ['agent', 'rest', 'error', 'RATE_LIMITED'],
      ['agent', 'rest', 'ok', null],
    ]);
  });
});

describe('off until turned on', () => {
  it('is absent (404) saying which line turns it on, and answers as soon as the line is set', async () => {
    await hub.config.patch({ compat: { claudebench_rpc: false } });
    try {
      const { status, answer } = await call('system.health', {});
      expect(status).toBe(404);
      expect(answer.error.message).toContain('No route POST /rpc');
      expect(answer.error.message).toContain('[compat] claudebench_rpc = true');
    } finally {
      await hub.config.patch({ compat: { claudebench_rpc: true } });
    }
    expect((await call('system.health', {})).answer.result.status).toBe('healthy');
  });
});
