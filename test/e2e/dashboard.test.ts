// The dashboard in a real browser (headless Chromium): serving /ui, the token login, live updates from the bus
// within a second, the overview and the task board, and what a non-admin token does not see. Screenshots of each
// page go to docs/screenshots/ when SWITCHBOARD_SCREENSHOTS=1.
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProjectStore } from '../../src/hub.ts';
import { auditRecord } from '../helpers/audit.ts';
import { launchBrowser, logIn, openPage, screenshot, show, whenLive } from '../helpers/browser.ts';
import { type HttpServerProcess, ROOT, runCli, startHttpServer, tempProject } from '../helpers/cli.ts';
import { eventAfter } from '../helpers/sse.ts';
import { until } from '../helpers/until.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

const dir = tempProject();
let server: HttpServerProcess;
let browser: Browser;
let admin: string;
let agent: string;
const pageErrors: string[] = [];

async function createToken(name: string, roles: string): Promise<string> {
  const out = await runCli(dir, ['token', 'create', name, '--roles', roles, '--json']);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout).token;
}

/** The official SDK client over Streamable HTTP with a token. */
async function mcpClient(token: string): Promise<Client> {
  const client = new Client({ name: 'dashboard-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

beforeAll(async () => {
  // Chromium starts on the other core while the records are written.
  const launching = launchBrowser().then((b) => {
    browser = b;
  });
  mkdirSync(join(dir, '.switchboard'));
  const fixture = join(ROOT, 'test/fixtures/upstream/fixture-server.mjs');
  writeFileSync(
    join(dir, '.switchboard/config.toml'),
    `[system]\ninstance_ttl_ms = 3600000\n\n[[servers]]\nname = "fx"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(fixture)}]\nenv = { FIXTURE_NAME = "fx" }\n`,
  );
  [admin, agent] = await Promise.all([createToken('ops', 'admin,agent'), createToken('worker', 'agent')]);
  // 100,000 audit records for the paging test, written before the server opens the store.
  const store = await openProjectStore(dir);
  for (let batch = 0; batch < 20; batch++)
    await store.audit.appendMany(
      Array.from({ length: 5000 }, (_, i) => auditRecord(batch * 5000 + i, { principal: `bulk-${i % 10}` })),
    );
  // One call that continued a caller's W3C trace: its row shows the trace id.
  await store.audit.append(auditRecord(100_000, { principal: 'traced', traceId: TRACE_ID }));
  await store.close();
  [server] = await Promise.all([startHttpServer(dir), launching]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('serving /ui', () => {
  it('serves the page and hashed assets with their types, caching and compression, under the Host guard', async () => {
    const page = await fetch(`${server.url}/ui`, { headers: { 'accept-encoding': 'br' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    const js = /src="(\/ui\/assets\/app-[\w]+\.js)"/.exec(html)?.[1];
    const css = /href="(\/ui\/assets\/app-[\w]+\.css)"/.exec(html)?.[1];
    expect(js && css).toBeTruthy();
    const asset = await fetch(`${server.url}${js}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('content-encoding')).toBe('gzip');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${server.url}${css}`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    // Deep links are the page too (the app routes in the browser); unknown assets are not.
    expect((await fetch(`${server.url}/ui/tasks`)).headers.get('content-type')).toContain('text/html');
    expect((await fetch(`${server.url}/ui/assets/nope.js`)).status).toBe(404);
    expect((await fetch(`${server.url}/ui/assets/..%2fpackage.json`)).status).toBe(404);
    // The DNS-rebinding guard covers the dashboard like every route (fetch cannot set Host: node:http can).
    const rebound = await new Promise<number>((resolve, reject) => {
      const url = new URL(server.url);
      request({ host: url.hostname, port: url.port, path: '/ui', headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(rebound).toBe(403);
    const foreign = await fetch(`${server.url}/v1/ui/session`, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
  });

  it('opens the event stream only with a fresh single-use ticket, never with the token in the URL', async () => {
    expect((await fetch(`${server.url}/v1/ui/events`)).status).toBe(401);
    const noId = await fetch(`${server.url}/v1/ui/task-history`, { headers: { authorization: `Bearer ${admin}` } });
    expect(noId.status).toBe(400);
    expect((await noId.json()).error.message).toContain('?id=');
    expect((await fetch(`${server.url}/v1/ui/events?ticket=${admin}`)).status).toBe(401);
    expect((await fetch(`${server.url}/v1/ui/ticket`, { method: 'POST' })).status).toBe(401);
    const issued = await fetch(`${server.url}/v1/ui/ticket`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
    });
    const { ticket } = await issued.json();
    const controller = new AbortController();
    const stream = await fetch(`${server.url}/v1/ui/events?ticket=${ticket}`, { signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    controller.abort();
    expect((await fetch(`${server.url}/v1/ui/events?ticket=${ticket}`)).status).toBe(401);
  });
});

describe('the dashboard in Chromium', () => {
  let page: Page;
  beforeAll(async () => {
    page = await openPage(browser, pageErrors);
  });
  afterAll(() => expect(pageErrors).toEqual([]));

  it('refuses a wrong token and logs in with a right one', async () => {
    await page.goto(`${server.url}/ui`);
    await page.waitForSelector('#token');
    await screenshot(page, 'login');
    await page.type('#token', 'sb_not_a_token');
    await page.click('form button[type=submit]');
    await page.waitForSelector('.login .error');
    expect(await page.$eval('.login .error', (e) => e.textContent)).toContain('invalid');
    await page.$eval('#token', (e) => {
      (e as HTMLInputElement).value = '';
    });
    await logIn(page, server.url, admin);
    expect(await page.$eval('header .who', (e) => e.textContent)).toContain('ops');
    await whenLive(page);
  });

  it('shows the overview: health, task counts, instances and the call charts', async () => {
    const client = await mcpClient(agent);
    await client.callTool({ name: 'system__register', arguments: { instanceId: 'agent-7', roles: ['agent'] } });
    await show(page, 'overview');
    await page.waitForFunction(() => document.body.textContent?.includes('agent-7'));
    await page.waitForSelector('.card .badge.s-healthy');
    expect(await page.$$eval('.chart canvas', (c) => c.length)).toBeGreaterThanOrEqual(3);
    await client.close();
    await screenshot(page, 'overview');
  });

  it('shows a task created over MCP on the board live, then its detail with history and result', async () => {
    await show(page, 'tasks');
    await page.waitForSelector('.column[data-status="pending"] h2');
    const client = await mcpClient(agent);
    const created = await client.callTool({ name: 'task__create', arguments: { text: 'Write the release notes' } });
    const id = (created.structuredContent as { id: string }).id;
    // Live: the page is never reloaded, so only its event stream can bring the task (the timeout bounds a failure).
    await page.waitForSelector(`.column[data-status="pending"] [data-task="${id}"]`, { timeout: 5_000 });
    // Claimed and completed by the agent: it moves across the board, live.
    await client.callTool({ name: 'task__claim', arguments: { instanceId: 'agent-7' } });
    await client.callTool({ name: 'task__start', arguments: { id } });
    await page.waitForSelector(`.column[data-status="in_progress"] [data-task="${id}"]`, { timeout: 5_000 });
    await screenshot(page, 'tasks');
    await client.callTool({ name: 'task__complete', arguments: { id, result: { notes: 'v1.2 notes written' } } });
    await page.waitForSelector(`.column[data-status="completed"] [data-task="${id}"]`, { timeout: 5_000 });
    await page.click(`[data-task="${id}"] a`);
    await page.waitForSelector(`article.detail[data-task="${id}"]`);
    await page.waitForFunction(() => document.querySelectorAll('.history li').length >= 3);
    const text = await page.$eval('article.detail', (e) => e.textContent ?? '');
    expect(text).toContain('v1.2 notes written');
    expect(text).toContain('create');
    expect(text).toContain('complete');
    await screenshot(page, 'task-detail');
    await client.close();
  });

  it('lists the catalog by source, searches it, shows a schema, and calls a tool from the generated form', async () => {
    await show(page, 'catalog');
    await page.waitForSelector('.group a[data-tool="task__create"]');
    await page.type('input.search', 'release notes');
    await page.waitForFunction(() => !document.querySelector('.group a[data-tool="system__health"]'));
    await page.$eval('input.search', (e) => {
      (e as HTMLInputElement).value = '';
    });
    await page.type('input.search', 'task__create');
    await page.click('.group a[data-tool="task__create"]');
    await page.waitForSelector('form.tool-form[data-tool="task__create"]');
    expect(await page.$eval('.panel[data-tool="task__create"]', (e) => e.textContent)).toContain('"priority"');
    await page.type('form.tool-form input[name="text"]', 'Made from the dashboard');
    await page.click('form.tool-form button[type=submit]');
    await page.waitForFunction(() =>
      document.querySelector('.result')?.textContent?.includes('Made from the dashboard'),
    );
    expect(await page.$eval('.result', (e) => e.textContent)).toContain('"status": "pending"');
    await screenshot(page, 'catalog');
  });

  it('pages and filters 100,000 audit records on the server, a page at a time', async () => {
    await show(page, 'audit');
    await page.waitForSelector('table.audit tbody tr');
    await page.type('.audit-filters input[name="principal"]', 'bulk-3');
    await page.click('.audit-filters button[type=submit]');
    await page.waitForFunction(() =>
      [...document.querySelectorAll('table.audit tbody tr')].every((r) => r.textContent?.includes('bulk-3')),
    );
    // On the server: the page holds one page of 50 rows, and the next page asks for older ones (no clock needed).
    const first = await page.$$eval('table.audit tbody tr', (rows) => rows.map((r) => r.getAttribute('data-seq')));
    expect(first).toHaveLength(50);
    await page.click('.pager button.next');
    await page.waitForFunction(
      (seq) => !document.querySelector(`table.audit tbody tr[data-seq="${seq}"]`),
      {},
      first[0],
    );
    const second = await page.$$eval('table.audit tbody tr', (rows) =>
      rows.map((r) => Number(r.getAttribute('data-seq'))),
    );
    expect(second).toHaveLength(50);
    expect(Math.max(...second)).toBeLessThan(Math.min(...first.map(Number)));
    // The live events below the table: a call shows up as it happens.
    await fetch(`${server.url}/v1/tools/system.health`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent}` },
    });
    await page.waitForSelector('table.events tr[data-event="call"]');
    await screenshot(page, 'audit');
    // A traced call's row names its trace; the others have none.
    await page.$eval('.audit-filters input[name="principal"]', (input) => {
      (input as HTMLInputElement).value = '';
    });
    await page.type('.audit-filters input[name="principal"]', 'traced');
    await page.click('.audit-filters button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('table.audit tbody tr').length === 1);
    expect(await page.$eval('table.audit tbody tr code.trace', (c) => c.textContent)).toBe(TRACE_ID);
  });

  it('restarts, disables and enables an upstream server, and creates and revokes a token', async () => {
    await show(page, 'servers');
    const row = 'table.servers tr[data-server="fx"]';
    await page.waitForSelector(`${row} .badge.s-connected`);
    const [disable] = await page.$$(`${row} button.danger`);
    await disable.click();
    await page.waitForSelector(`${row} .badge.s-disabled`);
    await page.click(`${row} button`);
    await page.waitForSelector(`${row} .badge.s-connected`);
    // Bad input names what is wrong.
    const servers = (body: unknown) =>
      fetch(`${server.url}/v1/tools/system.servers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, error: (await r.json()).error }));
    expect(await servers({ action: 'restart' })).toMatchObject({
      status: 400,
      error: { message: expect.stringContaining("needs the server's name") },
    });
    expect(await servers({ action: 'disable', name: 'nope' })).toMatchObject({
      status: 404,
      error: { message: "No upstream server 'nope'. Configured: fx." },
    });
    await page.type('.token-form input[name="name"]', 'temp');
    await page.type('.token-form input[name="roles"]', 'agent');
    await page.click('.token-form button[type=submit]');
    await page.waitForSelector('.new-token code');
    const secret = await page.$eval('.new-token code', (e) => e.textContent ?? '');
    expect(secret).toMatch(/^sb_/);
    const whoami = () => fetch(`${server.url}/v1/ui/session`, { headers: { authorization: `Bearer ${secret}` } });
    // The hub rereads the token set when it changed, at most every 100 ms.
    await until(async () => (await whoami()).status === 200, { what: 'the new token to be accepted' });
    await screenshot(page, 'servers');
    page.once('dialog', (d) => void d.accept());
    await page.click('tr[data-token="temp"] button.revoke');
    await page.waitForFunction(() => !document.querySelector('tr[data-token="temp"]'));
    await until(async () => (await whoami()).status === 401, { what: 'the revoked token to be refused' });
  });

  it('fits a phone-width screen: the menu folds away, the board becomes one column', async () => {
    await page.setViewport({ width: 390, height: 844 });
    await show(page, 'tasks');
    expect(await page.$eval('nav', (e) => getComputedStyle(e).display)).toBe('none');
    await page.click('header .menu');
    expect(await page.$eval('nav', (e) => getComputedStyle(e).display)).toBe('flex');
    await page.click('header .menu');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'tasks-phone');
    await page.setViewport({ width: 1280, height: 800 });
  });
});

describe('a token without admin', () => {
  it('sees no admin views or actions', async () => {
    const page = await openPage(browser, pageErrors);
    await logIn(page, server.url, agent);
    const views = await page.$$eval('nav a', (as) => as.map((a) => a.getAttribute('data-view')));
    expect(views).not.toContain('audit');
    expect(views).not.toContain('servers');
    expect(await page.$eval('header .who', (e) => e.textContent)).not.toContain('admin');
    await show(page, 'tasks');
    await page.evaluate(() => {
      location.hash = '#/servers';
    });
    // An admin view named in the URL falls back to the overview.
    await page.waitForSelector('main#view[data-view="overview"]');
    // The catalog shows schemas, but no form to call a tool.
    await show(page, 'catalog/task__list');
    await page.waitForSelector('.panel[data-tool="task__list"]');
    expect(await page.$('form.tool-form')).toBeNull();
    expect(await page.$('.group a[data-tool="system__tokens"]')).toBeNull();
    await page.close();
  });

  it("gets its own calls on the stream, not another principal's", async () => {
    const ticket = await fetch(`${server.url}/v1/ui/ticket`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent}` },
    }).then((r) => r.json());
    const callAs = (token: string, name: string) =>
      fetch(`${server.url}/v1/tools/${name}`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const { event } = await eventAfter(
      `${server.url}/v1/ui/events?ticket=${ticket.ticket}`,
      async () => {
        await callAs(admin, 'system.health');
        await callAs(agent, 'task.list');
      },
      (e) => e.type === 'call',
    );
    expect(event).toMatchObject({ principal: 'worker', name: 'task.list' });
  });
});
