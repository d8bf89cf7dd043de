// The dashboard as a new user first sees it (issue 29): a plain `chromium --headless --screenshot` of /ui shows the
// page with its data, not "Loading…" — the page arrives holding the first views' answers, for a caller that needs no
// token, and nothing for one that would need one; and the Tasks board's counts follow a task that arrives live.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, openPage, whenLive } from '../helpers/browser.ts';
import { createToken, type HttpServerProcess, startHttpServer, tempProject } from '../helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'switchboard-shots-'));
let server: HttpServerProcess;

beforeAll(async () => {
  server = await startHttpServer(tempProject());
});
afterAll(async () => {
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** The official SDK client over Streamable HTTP (no token: none exists). */
async function mcpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'first-look', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

/**
 * `chromium --headless --screenshot` of `url`, as a person takes one: no script, no waiting for anything but the
 * page's load. `--dump-dom` in the same run gives the document at the moment of the screenshot.
 */
function plainScreenshot(url: string, name: string): Promise<{ png: Buffer; dom: string }> {
  const png = join(scratch, `${name}.png`);
  const args = [
    '--headless',
    '--no-sandbox', // CI runs as root, where Chromium's sandbox cannot start
    '--disable-gpu',
    `--user-data-dir=${join(scratch, `profile-${name}`)}`,
    '--window-size=1280,800',
    `--screenshot=${png}`,
    '--dump-dom',
    url,
  ];
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM, args, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      if (err) reject(err);
      else resolve({ png: readFileSync(png), dom: stdout });
    });
  });
}

/** A PNG's width and height, from its header. */
const pngSize = (png: Buffer) => [png.readUInt32BE(16), png.readUInt32BE(20)];

describe('a plain headless screenshot', () => {
  it('of /ui shows the overview with its data, and of /ui#/tasks the board with the task on it', async () => {
    const client = await mcpClient(server.url);
    await client.callTool({ name: 'task__create', arguments: { text: 'Write the release notes' } });
    await client.close();

    const overview = await plainScreenshot(`${server.url}/ui`, 'overview');
    expect(pngSize(overview.png)).toEqual([1280, 800]);
    expect(overview.dom).not.toContain('Loading…');
    expect(overview.dom).toContain('<main id="view" data-view="overview">');
    expect(overview.dom).toMatch(/<h2>Health <span class="badge s-\w+">/);
    expect(overview.dom).toContain('<dd data-count="pending">1</dd>');
    expect(overview.dom).toContain('No agent instances registered.');

    const tasks = await plainScreenshot(`${server.url}/ui#/tasks`, 'tasks');
    expect(tasks.dom).not.toContain('Loading…');
    const pending = /<section class="column" data-status="pending">.*?<\/section>/s.exec(tasks.dom)?.[0] ?? '';
    expect(pending).toContain('Write the release notes');
    expect(pending).toMatch(/<span class="muted">1<\/span>/);
  });
});

describe('what the page holds', () => {
  it('holds nothing for a caller that needs a token: the login form shows at once', async () => {
    const dir = tempProject();
    await createToken(dir, 'ops', 'admin');
    const guarded = await startHttpServer(dir);
    try {
      const page = await fetch(`${guarded.url}/ui`);
      expect(page.headers.get('cache-control')).toBe('no-cache');
      const html = await page.text();
      expect(html).toContain('<script type="application/json" id="page-state">{"session":null,"answers":[]}</script>');
      const shot = await plainScreenshot(`${guarded.url}/ui`, 'login');
      expect(shot.dom).toContain('id="token"');
      expect(shot.dom).not.toContain('Loading…');
    } finally {
      await guarded.stop();
    }
  });

  it('holds the first answers only for a page request without credentials, as data no text can break out of', async () => {
    const sneaky = '</script><script>document.title = "owned"</script>';
    const client = await mcpClient(server.url);
    await client.callTool({ name: 'task__create', arguments: { text: sneaky, priority: 100 } });
    await client.close();
    const page = await fetch(`${server.url}/ui`);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).not.toContain(sneaky);
    const state = JSON.parse(/<script type="application\/json" id="page-state">(.*?)<\/script>/s.exec(html)?.[1] ?? '');
    expect(state.session).toMatchObject({ principal: 'anonymous', admin: true });
    expect(state.answers.map((a: { path: string }) => a.path)).toContain('/v1/tools/system.get_state');
    expect(JSON.stringify(state.answers)).toContain(JSON.stringify(sneaky));
    // A request that brings its own credentials gets the page as it is: the page, holding no token, asks itself.
    const withToken = await (await fetch(`${server.url}/ui`, { headers: { authorization: 'Bearer sb_x' } })).text();
    expect(withToken).not.toContain('page-state');
  });
});

describe('the Tasks board', () => {
  let browser: Browser;
  const pageErrors: string[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    expect(pageErrors).toEqual([]);
  });

  it('counts a task that arrives live in the same moment it shows it, in every column', async () => {
    const page = await openPage(browser, pageErrors);
    await page.goto(`${server.url}/ui#/tasks`);
    await whenLive(page);
    // Every change of the board is checked as it happens: a column may never show more rows than its count.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { behind: string[] }).behind = seen;
      const check = () => {
        for (const column of document.querySelectorAll<HTMLElement>('.column')) {
          const rows = column.querySelectorAll('[data-task]').length;
          const count = Number(column.querySelector('h2 .muted')?.textContent || 0);
          if (rows > count) seen.push(`${column.dataset.status}: ${rows} rows under count ${count}`);
        }
      };
      new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const client = await mcpClient(server.url);
    const created = await client.callTool({ name: 'task__create', arguments: { text: 'Arrives live' } });
    const id = (created.structuredContent as { id: string }).id;
    await page.waitForSelector(`.column[data-status="pending"] [data-task="${id}"]`, { timeout: 5_000 });
    await client.callTool({ name: 'system__register', arguments: { instanceId: 'agent-9', roles: ['agent'] } });
    await client.callTool({ name: 'task__assign', arguments: { id, instanceId: 'agent-9' } });
    await page.waitForSelector(`.column[data-status="assigned"] [data-task="${id}"]`, { timeout: 5_000 });
    await client.close();
    expect(await page.evaluate(() => (window as unknown as { behind: string[] }).behind)).toEqual([]);
    // Settled, each column counts exactly its rows (a fresh board: every task fits on the first page).
    const columns = await page.$$eval('.column', (all) =>
      all.map((c) => [c.querySelectorAll('[data-task]').length, Number(c.querySelector('h2 .muted')?.textContent)]),
    );
    for (const [rows, count] of columns) expect(count).toBe(rows);
    expect(columns.map(([rows]) => rows).reduce((a, b) => a + b)).toBeGreaterThanOrEqual(1);
  });
});
