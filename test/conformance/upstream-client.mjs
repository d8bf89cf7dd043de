// The client under test for `conformance client`: Switchboard's upstream layer. The suite starts a scenario server
// and runs `node upstream-client.mjs <server-url>` with MCP_CONFORMANCE_SCENARIO set; this program starts a hub
// (from dist/) whose only upstream server is that URL, then does what the scenario expects through the hub's own
// pipeline — so the checks judge the code that proxies users' servers, not a separate client.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { createHub } from '../../dist/index.js';

const BIN = resolve(import.meta.dirname, '../../bin/switchboard.js');

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize';
const dir = mkdtempSync(join(tmpdir(), 'switchboard-conformance-client-'));
mkdirSync(join(dir, '.switchboard'));
const isAuth = scenario.startsWith('auth/');
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
// An auth scenario's server is OAuth-protected: the entry gets [servers.oauth] — a pre-registered client when the
// scenario hands one over (its secret through a variable, as users keep theirs), and a client ID metadata document
// URL the authorization server may use instead of registration.
const oauth = !isAuth
  ? ''
  : `\n[servers.oauth]\nclient_metadata_url = "https://conformance-test.local/client-metadata.json"\n` +
    (context.client_id ? `client_id = "${context.client_id}"\n` : '') +
    (context.client_secret ? 'client_secret = "${CONFORMANCE_CLIENT_SECRET}"\n' : '');
writeFileSync(
  join(dir, '.switchboard', 'config.toml'),
  `[[servers]]\nname = "scenario"\nurl = "${url}"\nstartup_timeout_ms = 10000\ntimeout_ms = 20000\n${oauth}`,
);
const env = {
  ...process.env,
  SWITCHBOARD_HOME: join(dir, 'home'),
  ...(context.client_secret ? { CONFORMANCE_CLIENT_SECRET: context.client_secret } : {}),
};
// Logs to stderr only: the suite shows them when a scenario fails.
const logger = pino({ level: process.env.SWITCHBOARD_LOG_LEVEL ?? 'warn' }, pino.destination(2));
const hub = await createHub({ cwd: dir, logger, env });

/**
 * `switchboard mcp login scenario` as a person runs it, with the browser played by fetch: the authorization URL it
 * prints is followed through the server's redirects to the command's loopback listener. Resolves with its exit code.
 */
function mcpLogin() {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, '--cwd', dir, 'mcp', 'login', 'scenario', '--no-browser'], {
      env,
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let err = '';
    let followed = false;
    child.stderr.on('data', (d) => {
      err += d;
      process.stderr.write(d);
      const m = /^\s+(https?:\/\/\S+)$/m.exec(err);
      if (m && !followed) {
        followed = true;
        follow(new URL(m[1])).catch((e) => console.error(`following the authorization URL failed: ${e.message}`));
      }
    });
    child.once('exit', (code) => done(code ?? 1));
  });
}

async function follow(url) {
  for (let hop = 0; hop < 10; hop++) {
    const res = await fetch(url, { redirect: 'manual' });
    await res.body?.cancel().catch(() => {});
    const location = res.headers.get('location');
    if (!location) return;
    url = new URL(location, url);
  }
}

const upstream = () =>
  hub.sources
    .get('upstream')
    ?.manager()
    ?.views()
    .find((v) => v.name === 'scenario');
async function until(check, ms, what) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end)
      throw new Error(`timed out waiting for ${what} (status ${upstream()?.status}: ${upstream()?.error})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const principal = { id: 'conformance', roles: ['*'] };
// A person who accepts every form without editing it: the hub must fill in the schema's defaults (SEP-1034).
const client = { elicit: async () => ({ action: 'accept', content: {} }) };
const call = (name, input = {}) => hub.pipeline.call({ principal, name, input, transport: 'internal', client });

let exitCode = 0;
try {
  await hub.ready();
  const tools = hub.services.registry.list().filter((e) => e.capability.source === 'upstream:scenario');
  const fail = (message) => {
    console.error(message);
    exitCode = 1;
  };
  if (scenario === 'initialize') {
    // Connecting (initialize + initialized) and listing is the whole scenario.
  } else if (scenario === 'tools_call') {
    const out = await call('scenario__add_numbers', { a: 5, b: 3 });
    if (!out.ok) fail(`add_numbers failed: ${out.error.message}`);
  } else if (scenario === 'elicitation-sep1034-client-defaults') {
    const out = await call('scenario__test_client_elicitation_defaults');
    if (!out.ok) fail(`elicitation call failed: ${out.error.message}`);
  } else if (scenario === 'sse-retry') {
    const out = await call('scenario__test_reconnection');
    if (!out.ok) fail(`reconnection call failed: ${out.error.message}`);
  } else if (isAuth) {
    // Log in when the hub says so, call the scenario's tool, and log in again once for a wider scope (step-up).
    // A login that grants too little for listing leaves the server login_required with a wider scope: log in
    // again, at most twice (the scope-retry-limit scenario refuses forever).
    const settled = () => !['connecting', 'failed'].includes(upstream()?.status);
    await until(settled, 15_000, 'the first connection attempt');
    for (let logins = 0; upstream()?.status === 'login_required' && exitCode === 0; logins++) {
      if (logins === 3) {
        fail(`still login_required after 3 logins: ${upstream()?.error}`);
        break;
      }
      const code = await mcpLogin();
      if (code !== 0) {
        fail(`mcp login exited with ${code}`);
        break;
      }
      // The hub notices the new login (it reads the store every 2 s), connects, and settles again.
      await until(() => upstream()?.status !== 'login_required', 15_000, 'the hub to pick up the login');
      await until(settled, 15_000, 'the connection after login');
    }
    const tool = hub.services.registry.list().find((e) => e.capability.source === 'upstream:scenario')?.capability.name;
    if (!tool && exitCode === 0) fail('the upstream listed no tools after the login');
    for (let round = 0; tool && exitCode === 0; round++) {
      const out = await call(tool, {});
      if (out.ok) break;
      if (out.error.code !== 'FORBIDDEN' || round >= 1) {
        fail(`${tool} failed: ${out.error.message}`);
        break;
      }
      const code = await mcpLogin();
      if (code !== 0) fail(`mcp login for the wider scope exited with ${code}`);
      // The hub re-reads the login every few seconds; the call is retried once after that.
      await new Promise((r) => setTimeout(r, 5_500));
    }
  } else {
    fail(`unknown scenario ${scenario}`);
  }
  if (tools.length === 0 && scenario !== 'initialize' && !isAuth) fail('the upstream listed no tools');
} finally {
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
