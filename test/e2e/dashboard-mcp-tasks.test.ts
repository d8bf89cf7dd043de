// The dashboard's long calls in headless Chromium: tool calls a 2026-07-28 client made into MCP tasks (a sub-agent
// turn against the fake Anthropic API, a script run) appear live on the Agents and Scripts views and in the Long
// calls view, with their status moving as the work ends and a link to the session or run each belongs to; a
// non-admin sees only its own. Screenshot (SWITCHBOARD_SCREENSHOTS=1): docs/screenshots/long-calls.png.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASKS_EXTENSION } from '../../src/core/mcp-tasks-extension.ts';
import { launchBrowser, logIn, openPage, screenshot, show, whenLive } from '../helpers/browser.ts';
import { type HttpServerProcess, runCli, startHttpServer, tempProject } from '../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';
import { gate } from '../helpers/gate.ts';
import { rpc2026 } from '../helpers/rpc2026.ts';
import { projectScripts } from '../sources/scripts/helpers.ts';

const dir = tempProject();
let server: HttpServerProcess;
let browser: Browser;
let api: FakeAnthropic;
const tokens: Record<'ops' | 'alice', string> = { ops: '', alice: '' };
let page: Page;
const pageErrors: string[] = [];
/** The model answers the agent's turn once this opens: the test looks at the page while the task works. */
const model = gate();

/** A tools/call from a client that declared the tasks extension, as `who`: the id of the task it became. */
async function startTask(who: keyof typeof tokens, name: string, args: Record<string, unknown>): Promise<string> {
  const { message } = await rpc2026(
    server.url,
    'tools/call',
    { name, arguments: args },
    { authorization: `Bearer ${tokens[who]}` },
    { extensions: { [TASKS_EXTENSION]: {} } },
  );
  expect(message.result, JSON.stringify(message)).toMatchObject({ resultType: 'task', status: 'working' });
  return message.result.taskId;
}

const row = (id: string) => `.long-calls [data-mcp-task="${id}"]`;

beforeAll(async () => {
  api = await startFakeAnthropic({
    respond: async () => {
      await model.opened;
      return 'Pondered it.';
    },
  });
  mkdirSync(join(dir, '.switchboard/agents/helper'), { recursive: true });
  writeFileSync(
    join(dir, '.switchboard/agents/helper/agent.json'),
    JSON.stringify({ name: 'helper', description: 'Helps', provider: 'anthropic' }),
  );
  projectScripts(dir, {
    'nl/build.md': '---\ndescription: builds for a while\n---\n# Build\n',
    'compiled/build.mjs': `import { auto } from 'switchboard';\nexport default function* () {\n  yield auto('sleep 1; echo built');\n}\n`,
  });
  for (const [name, roles] of [
    ['ops', 'admin,agent'],
    ['alice', 'agent'],
  ] as const) {
    const out = await runCli(dir, ['token', 'create', name, '--roles', roles, '--json']);
    tokens[name] = JSON.parse(out.stdout).token;
  }
  [server, browser] = await Promise.all([
    startHttpServer(dir, [], { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' }),
    launchBrowser(),
  ]);
  page = await openPage(browser, pageErrors);
  await logIn(page, server.url, tokens.ops);
  await whenLive(page);
});
afterAll(async () => {
  model.open();
  await browser?.close();
  await server?.stop();
  await api?.close();
});

describe('long calls (MCP tasks) on the dashboard', () => {
  const made: Record<string, string> = {};

  it('shows an agent__start task on the Agents view as it works and when it ends, linked to its session', async () => {
    await show(page, 'agents');
    await page.waitForSelector('.long-calls');
    made.agent = await startTask('ops', 'agent__start', {
      session_name: 'pondering',
      agent_name: 'helper',
      prompt: 'Ponder the board',
    });
    // Live: the task was made after the view loaded.
    await page.waitForSelector(`${row(made.agent)} .badge.s-working`);
    const link = await page.$eval(`${row(made.agent)} a[data-subject]`, (a) => ({
      href: a.getAttribute('href'),
      text: a.textContent?.replace(/\s+/g, ' ').trim(),
    }));
    expect(link).toEqual({ href: '#/agents/pondering', text: 'session pondering' });
    expect(await page.$eval(row(made.agent), (r) => r.textContent)).toContain('agent__start');
    model.open();
    await page.waitForSelector(`${row(made.agent)} .badge.s-completed`);
    await page.click(`${row(made.agent)} a[data-subject]`);
    await page.waitForSelector('.panel[data-session="pondering"] .badge.s-completed');
  });

  it('shows a script__start task on the Scripts view, linked to its run once the call ends', async () => {
    await show(page, 'scripts');
    await page.waitForSelector('.long-calls');
    made.script = await startTask('ops', 'script__start', { name: 'build' });
    await page.waitForSelector(`${row(made.script)} .badge.s-working`);
    // The run is named by the call's answer: the link comes with the completed status.
    await page.waitForSelector(`${row(made.script)} .badge.s-completed`);
    const href = await page.$eval(`${row(made.script)} a[data-subject="script_run"]`, (a) => a.getAttribute('href'));
    const runId = decodeURIComponent(String(href).replace('#/scripts/', ''));
    expect(runId).toMatch(/^[A-Za-z0-9_-]+$/);
    // Only the Scripts view's tools: the agent's task is not here.
    expect(await page.$(row(made.agent))).toBeNull();
    await page.click(`${row(made.script)} a[data-subject]`);
    // The run's panel first shows itself, then its steps once they are read.
    await page.waitForSelector(`.panel[data-run="${runId}"] .steps`);
    expect(await page.$eval(`.panel[data-run="${runId}"] .steps`, (e) => e.textContent)).toContain('built');
  });

  it('lists every long call in its own view, filtered by status; a non-admin sees only its own', async () => {
    await show(page, 'long-calls');
    await page.waitForSelector(`[data-mcp-task="${made.script}"]`);
    const shown = await page.$$eval('table.mcp-tasks [data-mcp-task]', (rows) =>
      rows.map((r) => [r.getAttribute('data-mcp-task'), r.getAttribute('data-status')]),
    );
    expect(shown).toEqual([
      [made.script, 'completed'],
      [made.agent, 'completed'],
    ]);
    await screenshot(page, 'long-calls');
    await page.select('select[name="status"]', 'working');
    await page.waitForFunction(() => !document.querySelector('table.mcp-tasks'));
    expect(await page.$eval('main#view', (m) => m.textContent)).toContain('No MCP tasks');
    await page.select('select[name="status"]', 'completed');
    await page.waitForSelector(`[data-mcp-task="${made.agent}"]`);

    const hers = await browser.newPage();
    hers.on('pageerror', (err) => pageErrors.push(String(err)));
    await logIn(hers, server.url, tokens.alice);
    await whenLive(hers);
    await show(hers, 'long-calls');
    await hers.waitForFunction(() => document.querySelector('main#view')?.textContent?.includes('No MCP tasks'));
    made.hers = await startTask('alice', 'script__start', { name: 'build' });
    await hers.waitForSelector(`[data-mcp-task="${made.hers}"] .badge.s-working`);
    expect(await hers.$$eval('[data-mcp-task]', (rows) => rows.map((r) => r.getAttribute('data-mcp-task')))).toEqual([
      made.hers,
    ]);
    // The admin's view gets hers live too.
    await page.select('select[name="status"]', '');
    await page.waitForSelector(`[data-mcp-task="${made.hers}"]`);
    await hers.close();
    expect(pageErrors).toEqual([]);
  });
});
