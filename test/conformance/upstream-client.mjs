// The client under test for `conformance client`: Switchboard's upstream layer. The suite starts a scenario server
// and runs `node upstream-client.mjs <server-url>` with MCP_CONFORMANCE_SCENARIO set; this program starts a hub
// (from dist/) whose only upstream server is that URL, then does what the scenario expects through the hub's own
// pipeline — so the checks judge the code that proxies users' servers, not a separate client.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createHub } from '../../dist/index.js';

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? 'initialize';
const dir = mkdtempSync(join(tmpdir(), 'switchboard-conformance-client-'));
mkdirSync(join(dir, '.switchboard'));
writeFileSync(
  join(dir, '.switchboard', 'config.toml'),
  `[[servers]]\nname = "scenario"\nurl = "${url}"\nstartup_timeout_ms = 10000\ntimeout_ms = 20000\n`,
);
// Logs to stderr only: the suite shows them when a scenario fails.
const logger = pino({ level: process.env.SWITCHBOARD_LOG_LEVEL ?? 'warn' }, pino.destination(2));
const hub = await createHub({ cwd: dir, logger, env: { ...process.env, SWITCHBOARD_HOME: join(dir, 'home') } });
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
  } else {
    fail(`unknown scenario ${scenario}`);
  }
  if (tools.length === 0 && scenario !== 'initialize') fail('the upstream listed no tools');
} finally {
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
