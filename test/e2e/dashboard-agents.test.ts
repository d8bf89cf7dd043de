// The dashboard's Agents and Scripts views in headless Chromium: an agent turn against the fake Anthropic API whose
// transcript streams in while the turn runs, a running turn cancelled from the page, and a script run's stack and
// steps. Screenshots go to docs/screenshots/ when SWITCHBOARD_SCREENSHOTS=1.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, logIn, openPage, screenshot, show, whenLive } from '../helpers/browser.ts';
import { type HttpServerProcess, runCli, startHttpServer, tempProject } from '../helpers/cli.ts';
import { type FakeAnthropic, startFakeAnthropic } from '../helpers/fake-anthropic.ts';

const dir = tempProject();
let server: HttpServerProcess;
let browser: Browser;
let api: FakeAnthropic;
let admin: string;
let page: Page;
const pageErrors: string[] = [];
/** The second model call of the 'watched' turn waits for this: the test looks at the page mid-turn. */
let release: () => void = () => {};
const held = new Promise<void>((r) => {
  release = r;
});

const post = (name: string, body: unknown) =>
  fetch(`${server.url}/v1/tools/${name}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (r) => {
    const data = await r.json();
    if (!r.ok) throw new Error(`${name}: ${JSON.stringify(data)}`);
    return data;
  });

beforeAll(async () => {
  api = await startFakeAnthropic({
    respond: async (req) => {
      const first = JSON.stringify(req.body.messages[0].content);
      if (first.includes('never ends')) return { content: [{ type: 'text', text: 'too late' }], delayMs: 60_000 };
      if (req.body.messages.length === 1)
        return {
          content: [
            { type: 'text', text: 'Checking the board.' },
            { type: 'tool_use', id: 'toolu_1', name: 'task__list', input: {} },
          ],
        };
      await held;
      return 'The board is empty.';
    },
  });
  mkdirSync(join(dir, '.switchboard/agents/helper'), { recursive: true });
  writeFileSync(
    join(dir, '.switchboard/agents/helper/agent.json'),
    JSON.stringify({ name: 'helper', description: 'Helps', provider: 'anthropic' }),
  );
  const out = await runCli(dir, ['token', 'create', 'ops', '--roles', 'admin,agent', '--json']);
  admin = JSON.parse(out.stdout).token;
  [server, browser] = await Promise.all([
    startHttpServer(dir, [], { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'test-key' }),
    launchBrowser(),
  ]);
  page = await openPage(browser, pageErrors);
  await logIn(page, server.url, admin);
  await whenLive(page);
});
afterAll(async () => {
  release();
  await browser?.close();
  await server?.stop();
  await api?.close();
});

describe('the Agents view', () => {
  it("streams a running turn's transcript, then shows how it ended", async () => {
    await post('agent.start', {
      session_name: 'watched',
      agent_name: 'helper',
      prompt: 'Look at the board',
      async: true,
    });
    await show(page, 'agents/watched');
    await page.waitForSelector('.panel[data-session="watched"] .badge.s-running');
    // Mid-turn: the model's first answer and its tool call are on the page while the turn still runs.
    await page.waitForFunction(() => document.querySelector('.transcript')?.textContent?.includes('tool task__list'));
    await page.waitForFunction(() => document.querySelector('.transcript')?.textContent?.includes('tool result'));
    expect(await page.$('.panel[data-session="watched"] .badge.s-running')).not.toBeNull();
    await screenshot(page, 'agents-running');
    release();
    await page.waitForFunction(() => document.querySelector('.transcript')?.textContent?.includes('turn completed'));
    await page.waitForSelector('.panel[data-session="watched"] .badge.s-completed');
    expect(await page.$eval('.transcript', (e) => e.textContent)).toContain('The board is empty.');
    await page.waitForFunction(() =>
      document.querySelector('.sessions [data-session="watched"]')?.textContent?.includes('completed'),
    );
    await screenshot(page, 'agents');
  });

  it('cancels a running turn from the page', async () => {
    await post('agent.start', { session_name: 'stuck', agent_name: 'helper', prompt: 'never ends', async: true });
    await show(page, 'agents/stuck');
    await page.waitForSelector('.panel[data-session="stuck"] button.cancel');
    await page.click('.panel[data-session="stuck"] button.cancel');
    await page.waitForSelector('.panel[data-session="stuck"] .badge.s-cancelled');
    expect(await page.$('.panel[data-session="stuck"] button.cancel')).toBeNull();
  });
});

describe('the Scripts view', () => {
  it("shows a run's stack, the LLM step it waits on, and the steps executed with their output", async () => {
    await show(page, 'scripts');
    const started = await post('script.start', { name: 'test:nested' });
    const runId = started.structuredContent.run_id;
    await page.waitForSelector(`.runs [data-run="${runId}"]`);
    await page.click(`.runs [data-run="${runId}"]`);
    await page.waitForSelector(`.panel[data-run="${runId}"] .stack [data-frame]`);
    const frames = await page.$$eval(`.panel[data-run="${runId}"] [data-frame]`, (l) =>
      l.map((e) => e.getAttribute('data-frame')),
    );
    expect(frames).toEqual(['test:nested[1]', 'test:random[2]']);
    expect(await page.$eval('.waiting', (e) => e.textContent)).toContain('doubled');
    const steps = await page.$eval('.steps', (e) => e.textContent ?? '');
    expect(steps).toContain('echo nested: start');
    expect(steps).toContain('nested: start');
    await screenshot(page, 'scripts');
    // The agent answers the LLM step: the run moves on, live.
    await post('script.continue_compiled_script', { run_id: runId, outputs: { parity: 'even' } });
    await page.waitForFunction(
      (id) => !document.querySelector(`.panel[data-run="${id}"] [data-frame="test:random[2]"]`),
      {},
      runId,
    );
    expect(pageErrors).toEqual([]);
  });

  it('says which run or session is unknown', async () => {
    await expect(post('script.runs', { run_id: 'run-nope' })).rejects.toThrow("No script run 'run-nope'");
    await expect(post('session.transcript', { session_name: 'nope' })).rejects.toThrow('nope');
  });
});
