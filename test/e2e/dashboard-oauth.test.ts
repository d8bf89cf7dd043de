// The dashboard's OAuth sign-in in a real browser (headless Chromium): a real authorization server (oidc-provider,
// test/helpers/oidc-issuer.ts, which signs alice in and consents without a page) and a real `switchboard serve
// --http` with [auth.oauth]. The page runs the authorization-code flow with PKCE, the issuer sends the browser back
// to /ui/, and the page is signed in as oauth:alice. Without dashboard_client_id the form names the key to set.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openPage } from '../helpers/browser.ts';
import { type HttpServerProcess, startHttpServer, tempProject } from '../helpers/cli.ts';
import { startIssuer, type TestIssuer } from '../helpers/oidc-issuer.ts';

let issuer: TestIssuer;
let hub: HttpServerProcess;
let noClientHub: HttpServerProcess;
let browser: Browser;
const pageErrors: string[] = [];

function project(clientId?: string): string {
  const dir = tempProject();
  mkdirSync(join(dir, '.switchboard'));
  writeFileSync(
    join(dir, '.switchboard/config.toml'),
    [
      '[auth.oauth]',
      `issuer = "${issuer.issuer}"`,
      ...(clientId ? [`dashboard_client_id = "${clientId}"`] : []),
      '[auth.oauth.roles]',
      '"switchboard:admin" = ["admin", "agent"]',
      '',
    ].join('\n'),
  );
  return dir;
}

beforeAll(async () => {
  issuer = await startIssuer();
  [hub, noClientHub, browser] = await Promise.all([
    startHttpServer(project('dashboard')),
    startHttpServer(project()),
    launchBrowser(),
  ]);
  // The dashboard registered at the issuer as a public client, sent back to <hub>/ui/.
  issuer.addPublicClient('dashboard', `${hub.url}/ui/`);
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([hub?.stop(), noClientHub?.stop()]);
  await issuer?.stop();
});

describe('dashboard OAuth sign-in', () => {
  it('lets the issuer in through the CSP for the token request only when the sign-in is configured', async () => {
    const csp = (await fetch(`${hub.url}/ui`)).headers.get('content-security-policy');
    expect(csp).toContain(`connect-src 'self' ${issuer.issuer};`);
    expect((await fetch(`${noClientHub.url}/ui`)).headers.get('content-security-policy')).toContain(
      "connect-src 'self';",
    );
    const options = await (await fetch(`${hub.url}/v1/ui/sign-in`)).json();
    expect(options.oauth).toMatchObject({
      issuer: issuer.issuer,
      client_id: 'dashboard',
      authorization_endpoint: `${issuer.issuer}/auth`,
      token_endpoint: `${issuer.issuer}/token`,
      resource: hub.url,
      scope: 'switchboard:admin',
      redirect_uri: `${hub.url}/ui/`,
    });
  });

  it('signs in with the issuer (code flow with PKCE) and lands on the overview as oauth:alice', async () => {
    const page = await openPage(browser, pageErrors);
    const asked: URL[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(`${issuer.issuer}/auth`)) asked.push(new URL(r.url()));
    });
    await page.goto(`${hub.url}/ui`);
    const button = await page.waitForSelector('#oauth-sign-in');
    expect(await button?.evaluate((b) => b.textContent)).toBe(`Sign in with ${issuer.issuer}`);
    await button?.click();
    await page.waitForSelector('header .who');
    expect(await page.$eval('header .who', (e) => e.textContent?.trim())).toMatch(/^oauth:alice admin$/);
    await page.waitForSelector('main#view[data-view="overview"]');
    // The code and state are gone from the address; the authorization request had what the flow needs.
    expect(new URL(page.url()).search).toBe('');
    const auth = asked[0];
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256');
    expect(auth.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(auth.searchParams.get('resource')).toBe(hub.url);
    expect(auth.searchParams.get('redirect_uri')).toBe(`${hub.url}/ui/`);
    // The access token is what the page's API calls carry: a JWT the hub checks, not a Switchboard token.
    const stored = await page.evaluate(() => sessionStorage.getItem('switchboard.token'));
    expect(stored?.split('.')).toHaveLength(3);
    const session = await (
      await fetch(`${hub.url}/v1/ui/session`, { headers: { authorization: `Bearer ${stored}` } })
    ).json();
    expect(session).toMatchObject({ principal: 'oauth:alice', kind: 'oauth', admin: true });
    // A tampered state is refused, and the page is back at the login form saying why.
    await page.evaluate(() => sessionStorage.clear());
    await page.goto(`${hub.url}/ui/?code=forged&state=forged`);
    await page.waitForSelector('.login .error');
    expect(await page.$eval('.login .error', (e) => e.textContent)).toContain('does not match a sign-in started');
    expect(pageErrors).toEqual([]);
    await page.close();
  });

  it('without dashboard_client_id shows no sign-in button and names the key to set', async () => {
    const page = await openPage(browser, pageErrors);
    await page.goto(`${noClientHub.url}/ui`);
    const note = await page.waitForSelector('#oauth-missing');
    const text = await note?.evaluate((e) => e.textContent?.replace(/\s+/g, ' '));
    expect(text).toContain('[auth.oauth] dashboard_client_id');
    expect(text).toContain(`redirect URI ${noClientHub.url}/ui/`);
    expect(await page.$('#oauth-sign-in')).toBeNull();
    expect(await page.$('#token')).not.toBeNull();
    expect(pageErrors).toEqual([]);
    await page.close();
  });
});
