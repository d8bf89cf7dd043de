// End-to-end: the REST face of `serve --http` — tools, OpenAPI, status codes from the error table, SSE events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServerProcess, startHttpServer, tempProject } from '../helpers/cli.ts';
import { eventAfter } from '../helpers/sse.ts';

let server: HttpServerProcess;
beforeAll(async () => {
  server = await startHttpServer(tempProject());
});
afterAll(async () => {
  await server?.stop();
});

const call = (name: string, body?: unknown, raw?: string) =>
  fetch(`${server.url}/v1/tools/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });

describe('REST', () => {
  it('lists tools with their schemas', async () => {
    const res = await fetch(`${server.url}/v1/tools`);
    expect(res.status).toBe(200);
    const { tools } = await res.json();
    const create = tools.find((t: { name: string }) => t.name === 'task__create');
    expect(create).toMatchObject({
      capability: 'task.create',
      path: '/v1/tools/task__create',
      inputSchema: { type: 'object' },
    });
  });

  it('calls a tool with the body as input and answers its output as JSON', async () => {
    const res = await call('task__create', { text: 'rest task', priority: 10 });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ text: 'rest task', priority: 10, status: 'pending' });
  });

  it('accepts the capability name as well as the tool name', async () => {
    const res = await call('fixture.echo', { text: 'dot' });
    expect(await res.json()).toEqual({ text: 'dot' });
  });

  it('maps outcomes to status codes: 400 invalid input, 404 unknown, 409 conflict, 504 timeout', async () => {
    const invalid = await call('task__create', { text: '' });
    expect(invalid.status).toBe(400);
    const body = await invalid.json();
    expect(body.error.code).toBe('INVALID_INPUT');
    expect(body.error.details.issues[0].path).toBe('text');

    const unknown = await call('nope__missing', {});
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe('NOT_FOUND');

    const conflict = await call('fixture__boom', {});
    expect(conflict.status).toBe(409);

    const timeout = await call('fixture__slow', { ms: 10_000 });
    expect(timeout.status).toBe(504);
    expect((await timeout.json()).error.code).toBe('TIMEOUT');
  });

  it('takes the Idempotency-Key header: a retry answers the first task instead of creating another', async () => {
    const post = (text: string) =>
      fetch(`${server.url}/v1/tools/task__create`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'rest-retry-1' },
        body: JSON.stringify({ text }),
      });
    const first = await (await post('rest idempotent')).json();
    const again = await post('rest idempotent');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(first);
    const listed = await (await call('task__list', { limit: 500 })).json();
    expect(listed.tasks.filter((t: { text: string }) => t.text === 'rest idempotent')).toHaveLength(1);
    const reused = await post('something else');
    expect(reused.status).toBe(409);
    expect((await reused.json()).error.message).toContain("Idempotency key 'rest-retry-1' was already used");
  });

  it('answers malformed JSON and non-object bodies with 400', async () => {
    const malformed = await call('fixture__echo', undefined, '{"text":');
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.message).toMatch(/not valid JSON/);
    const array = await call('fixture__echo', [1, 2]);
    expect(array.status).toBe(400);
    expect((await array.json()).error.message).toMatch(/JSON object/);
  });

  it('answers a tool name that is not valid percent-encoding with 400', async () => {
    const res = await call('%E0%A4%A', {});
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(/not valid percent-encoding/);
  });

  it('answers GET on a tool path with 405 and unknown routes with 404', async () => {
    expect((await fetch(`${server.url}/v1/tools/task__create`)).status).toBe(405);
    expect((await fetch(`${server.url}/nowhere`)).status).toBe(404);
  });

  it('publishes an OpenAPI document generated from the same schemas', async () => {
    const text = await (await fetch(`${server.url}/v1/openapi.json`)).text();
    // Pretty-printed for people who open it (`curl … | head` in the README's tour shows its start).
    expect(text.split('\n').slice(0, 2)).toEqual(['{', '  "openapi": "3.1.0",']);
    const doc = JSON.parse(text);
    expect(doc.openapi).toBe('3.1.0');
    const op = doc.paths['/v1/tools/task__create'].post;
    expect(op.requestBody.content['application/json'].schema.properties.text).toMatchObject({
      type: 'string',
      maxLength: 500,
    });
    expect(op.responses['400']).toBeDefined();
  });

  it('streams call events over SSE', async () => {
    const { event, text } = await eventAfter(
      `${server.url}/v1/events`,
      () => call('fixture__echo', { text: 'event me', password: 'hunter2' }),
      (e) => e.type === 'call' && e.output?.text === 'event me',
    );
    expect(event).toMatchObject({
      type: 'call',
      name: 'fixture.echo',
      transport: 'rest',
      output: { text: 'event me' },
    });
    expect(event.input).toEqual({ text: 'event me', password: '[redacted]' });
    expect(text).not.toContain('hunter2');
  });
});
