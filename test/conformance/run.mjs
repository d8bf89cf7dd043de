// Runs the official MCP conformance suites against `switchboard serve --http` with the fixture handlers of
// test/conformance/handlers loaded the way users load theirs. Expects a built dist/ (`npm test` builds first).
//
//   node test/conformance/run.mjs            every leg
//   node test/conformance/run.mjs 0.1.16     only the legs whose name contains the argument
//
// Each leg runs `npx -y -p node@22 -p @modelcontextprotocol/conformance@VERSION conformance server ...` (the suite
// needs Node 22; `-p node@22` provides it without making Node a dependency) with an expected-failures baseline.
// A baseline turns WARNINGs into failures and makes stale entries fail too, so the legs are strict.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { watchServer } from '../helpers/banner.mjs';
import { dropPrefix, roundRobinProxy } from '../helpers/round-robin-proxy.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
const HERE = join(ROOT, 'test/conformance');
const BIN = join(ROOT, 'bin/switchboard.js');
const STARTUP_MS = 30_000;
/** Upper bound for one leg, including a first-time `npx` download of the suite and Node 22. */
const LEG_MS = 10 * 60_000;

const LEGS = [
  {
    name: 'conformance 0.1.16',
    pkg: '@modelcontextprotocol/conformance@0.1.16',
    // Every scenario (active + pending), all on the 2025-11-25 wire with sessions.
    args: ['--suite', 'all'],
    baseline: 'expected-failures.0.1.16.yaml',
  },
  {
    name: 'conformance 0.1.16 on two instances (Redis, round-robin, no affinity)',
    pkg: '@modelcontextprotocol/conformance@0.1.16',
    // The same 2025 session scenarios through a proxy that alternates every request between two instances on
    // one Redis: sessions are taken over, sampling and elicitation answers are routed (docs/scale-out.md).
    args: ['--suite', 'all'],
    baseline: 'expected-failures.0.1.16.yaml',
    pair: true,
  },
  {
    name: 'conformance 0.2.0-alpha.12 --requirements 2026-07-28',
    pkg: '@modelcontextprotocol/conformance@0.2.0-alpha.12',
    // The frozen, scored requirement list of revision 2026-07-28, on the stateless 2026-07-28 wire.
    args: ['--requirements', '2026-07-28'],
    baseline: 'expected-failures.2026-07-28.yaml',
    // The run also executes unscored scenarios (pending ones, the tasks extension); report the scored ones apart.
    scoredBy: ['list', '--requirements', '2026-07-28'],
  },
  {
    name: 'conformance 0.2.0-alpha.12 --suite all',
    pkg: '@modelcontextprotocol/conformance@0.2.0-alpha.12',
    // All 65 scenarios: 2025-era ones on the 2025-11-25 session wire (with wire-schema validation), 2026 ones
    // stateless, plus pending scenarios and extensions.
    args: ['--suite', 'all'],
    baseline: 'expected-failures.0.2.0-alpha.12.yaml',
  },
  {
    name: 'conformance 0.2.0-alpha.12 tasks-* on two instances (Redis, round-robin, no affinity)',
    pkg: '@modelcontextprotocol/conformance@0.2.0-alpha.12',
    // The tasks extension through the alternating proxy: a task made on one instance is polled, answered and
    // cancelled through the other (docs/tasks.md). One scenario at a time, each held to every check passing.
    scenarios: [
      'tasks-lifecycle',
      'tasks-capability-negotiation',
      'tasks-wire-fields',
      'tasks-request-state-removal',
      'tasks-mrtr-input',
      'tasks-request-headers',
      'tasks-dispatch-and-envelope',
      'tasks-status-notifications',
      'tasks-required-task-error',
      'tasks-mrtr-composition',
    ],
    pair: true,
  },
];

/**
 * Client legs: the suite plays a server and judges Switchboard's upstream layer as the client, through
 * upstream-client.mjs. It runs under this Node (the suite's own Node 22 cannot load our native SQLite build).
 */
const CLIENT_PKG = '@modelcontextprotocol/conformance@0.1.16';
const CLIENT_SCENARIOS = ['initialize', 'tools_call', 'elicitation-sep1034-client-defaults', 'sse-retry'];
for (const scenario of CLIENT_SCENARIOS)
  LEGS.push({
    name: `conformance 0.1.16 client ${scenario}`,
    pkg: CLIENT_PKG,
    client: scenario,
  });

// The client auth legs: the 14 scenarios of the suite's auth suite (`conformance client --suite auth`), judged
// against Switchboard's upstream login — the driver runs `switchboard mcp login` and follows the URL it prints.
// One scenario per leg, in turn: the suite's own `--suite auth` starts all 14 at once, each with a hub and the CLI,
// which on two cores runs past any sensible timeout.
const AUTH_SCENARIOS = [
  'metadata-default',
  'metadata-var1',
  'metadata-var2',
  'metadata-var3',
  'basic-cimd',
  'scope-from-www-authenticate',
  'scope-from-scopes-supported',
  'scope-omitted-when-undefined',
  'scope-step-up',
  'scope-retry-limit',
  'token-endpoint-auth-basic',
  'token-endpoint-auth-post',
  'token-endpoint-auth-none',
  'pre-registration',
];
for (const scenario of AUTH_SCENARIOS)
  LEGS.push({
    name: `conformance 0.2.0-alpha.12 client auth/${scenario}`,
    pkg: '@modelcontextprotocol/conformance@0.2.0-alpha.12',
    client: `auth/${scenario}`,
    args: ['--scenario', `auth/${scenario}`, '--timeout', '120000'],
    baseline: 'expected-failures.client-auth.yaml',
  });

/** Start the server and resolve with its base URL once the banner names it. */
function startServer(dir) {
  const child = spawn(
    process.execPath,
    [BIN, '--cwd', dir, 'serve', '--http', '--port', '0', '--handlers', join(HERE, 'handlers')],
    {
      env: { ...process.env, SWITCHBOARD_HOME: join(dir, 'home'), SWITCHBOARD_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const { ready, stderr } = watchServer(child, STARTUP_MS);
  return { child, ready, stderr };
}

/**
 * Two instances on one Redis (a random key prefix, deleted afterwards) behind a round-robin proxy; resolves with
 * the proxy's base URL. Needs Redis at 127.0.0.1:6379 (or SWITCHBOARD_TEST_REDIS), like the scale-out tests.
 */
async function startPair(base) {
  const pairDir = join(base, 'pair');
  mkdirSync(join(pairDir, '.switchboard'), { recursive: true });
  const prefix = `sbtest:conformance-${randomUUID().slice(0, 8)}:`;
  const url = process.env.SWITCHBOARD_TEST_REDIS ?? 'redis://127.0.0.1:6379';
  writeFileSync(
    join(pairDir, '.switchboard/config.toml'),
    `[store]\nkind = "redis"\nurl = "${url}"\nprefix = "${prefix}"\n`,
  );
  const servers = [startServer(pairDir), startServer(pairDir)];
  const proxy = await roundRobinProxy(await Promise.all(servers.map((s) => s.ready)));
  return {
    url: proxy.url,
    async stop() {
      await proxy.close();
      await Promise.all(servers.map((s) => stopServer(s.child)));
      await dropPrefix(url, prefix);
    },
  };
}

async function stopServer(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** `npx -y -p node@22 -p <pkg> conformance <args>` in its own process group, so a timeout kills the whole tree. */
function conformance(pkg, args) {
  return new Promise((resolveRun) => {
    const child = spawn('npx', ['-y', '-p', 'node@22', '-p', pkg, 'conformance', ...args], {
      cwd: tmpdir(),
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
    }, LEG_MS);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code: timedOut ? 124 : code, timedOut, text: stripVTControlCharacters(output) });
    });
  });
}

function runLeg(leg, url) {
  if (leg.pair && !pair) throw new Error('the two-instance pair is not running');
  if (leg.pair) url = pair.url;
  if (leg.client)
    return conformance(leg.pkg, [
      'client',
      '--command',
      `${process.execPath} ${join(HERE, 'upstream-client.mjs')}`,
      ...(leg.args ?? ['--scenario', leg.client]),
      ...(leg.baseline ? ['--expected-failures', join(HERE, leg.baseline)] : []),
    ]);
  if (leg.scenarios) return eachScenario(leg, url);
  return conformance(leg.pkg, [
    'server',
    '--url',
    `${url}/mcp`,
    ...leg.args,
    '--expected-failures',
    join(HERE, leg.baseline),
  ]);
}

/**
 * A leg of named scenarios, run one after another: each must pass every check, warnings included (a single
 * scenario's run prints one `Passed: x/y, n failed, w warnings` line). Answers as `conformance` does, with the
 * leg's summary made from the scenarios' lines.
 */
async function eachScenario(leg, url) {
  const runs = [];
  for (const name of leg.scenarios) {
    const run = await conformance(leg.pkg, ['server', '--url', `${url}/mcp`, '--scenario', name]);
    const line = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(run.text);
    const [passed, failed, warnings] = line ? [1, 3, 4].map((i) => Number(line[i])) : [0, 1, 0];
    runs.push({ name, run, passed, failed: failed + warnings, ok: run.code === 0 && failed + warnings === 0 });
  }
  const bad = runs.filter((r) => !r.ok);
  return {
    code: bad.length ? 1 : 0,
    timedOut: runs.some((r) => r.run.timedOut),
    text: [
      ...runs.map((r) => `=== ${r.name} ===\n${r.run.text}`),
      ...runs.map((r) => `${r.ok ? '✓' : '✗'} ${r.name}: ${r.passed} passed, ${r.failed} failed or warned`),
    ].join('\n'),
    summary: {
      scenarios: runs.map(({ name, ok, passed, failed }) => ({ name, ok, passed, failed })),
      expected: [],
      passed: runs.reduce((n, r) => n + r.passed, 0),
      failed: runs.reduce((n, r) => n + r.failed, 0),
    },
  };
}

/** Server scenario names from `conformance list --requirements REV`. */
async function scoredScenarios(leg) {
  const run = await conformance(leg.pkg, leg.scoredBy);
  const block = /Server scenarios[^\n]*\n((?:\s+- \S+\n?)+)/.exec(run.text);
  if (run.code !== 0 || !block) throw new Error(`could not list the scored scenarios:\n${run.text}`);
  return new Set([...block[1].matchAll(/- (\S+)/g)].map((m) => m[1]));
}

/** Scenario and check counts from the suite's SUMMARY block (a client leg prints one `Passed: x/y` line). */
function summarize(text) {
  const client = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(text);
  if (!text.includes('SUMMARY ===') && client)
    return {
      scenarios: [
        { ok: /OVERALL: PASSED/.test(text), name: 'client', passed: Number(client[1]), failed: Number(client[3]) },
      ],
      expected: [],
      passed: Number(client[1]),
      failed: Number(client[3]) + Number(client[4]),
    };
  // `=== SUMMARY ===` (server suites) or `=== SUITE SUMMARY ===` (a client suite).
  const summary = text.slice(text.lastIndexOf('SUMMARY ==='));
  const scenarios = [...summary.matchAll(/^([✓✗])\s+(\S+):\s+(\d+) passed, (\d+) failed/gmu)].map((m) => ({
    ok: m[1] === '✓',
    name: m[2],
    passed: Number(m[3]),
    failed: Number(m[4]),
  }));
  const total = /Total: (\d+) passed, (\d+) failed/.exec(summary);
  const expectedBlock = /Expected failures \(in baseline\):\n((?:\s+~ \S+\n?)+)/.exec(summary);
  const expected = expectedBlock ? [...expectedBlock[1].matchAll(/~ (\S+)/g)].map((m) => m[1]) : [];
  return {
    scenarios,
    expected,
    passed: total ? Number(total[1]) : undefined,
    failed: total ? Number(total[2]) : undefined,
  };
}

const filter = process.argv[2];
const legs = LEGS.filter((l) => !filter || l.name.includes(filter));
const dir = mkdtempSync(join(tmpdir(), 'switchboard-conformance-'));
const server = startServer(dir);
/** Started for the first leg that needs two instances. */
let pair;
let failures = 0;
let legsPassed = 0;
/** Run one leg and print its verdict line (and, when it fails, the tail of its output). */
async function runAndReport(leg, i, url) {
  const logFile = join(dir, `leg-${i + 1}.log`);
  const started = Date.now();
  const run = await runLeg(leg, url);
  writeFileSync(logFile, run.text);
  const s = run.summary ?? summarize(run.text);
  let scored = '';
  if (leg.scoredBy) {
    const names = await scoredScenarios(leg);
    const mine = s.scenarios.filter((x) => names.has(x.name));
    const green = mine.filter((x) => x.ok).length;
    const checks = mine.reduce((n, x) => n + x.passed, 0);
    const bad = mine.reduce((n, x) => n + x.failed, 0);
    scored = `; scored: ${green}/${names.size} scenarios pass, ${checks} passed, ${bad} failed`;
    if (mine.length !== names.size) scored += ` (only ${mine.length} of them ran)`;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  // A single client scenario has no baseline: every check must pass. A leg with a baseline has the suite's verdict.
  const ok =
    run.code === 0 && s.passed !== undefined && (!leg.client || leg.baseline || (s.failed === 0 && s.passed > 0));
  const verdict = ok ? 'OK' : run.timedOut ? 'TIMED OUT' : `FAILED (exit ${run.code})`;
  // One write per leg, so the lines of legs that run at the same time do not interleave.
  let report = `${leg.name}: ${s.passed ?? '?'} passed, ${s.failed ?? '?'} failed (checks in ${s.scenarios.length} scenarios${scored}; expected failures: ${s.expected.length ? s.expected.join(', ') : 'none'}; ${seconds} s) — ${verdict}`;
  if (ok) legsPassed++;
  else {
    failures++;
    // The tail names unexpected failures, warnings and stale baseline entries.
    report += `\n${run.text.split('\n').slice(-60).join('\n')}\n(full output: ${logFile})`;
  }
  console.log(report);
}

/**
 * Client legs start their own servers (the suite's) and Switchboard processes, so two run at a time: on two cores
 * that halves their ~3 minutes without crowding them (all 14 auth scenarios at once ran past any timeout). Server
 * legs share the one Switchboard under test and run alone, in order.
 */
const CLIENT_LEGS_AT_ONCE = 2;

try {
  const url = await server.ready;
  const indexed = legs.map((leg, i) => ({ leg, i }));
  for (const { leg, i } of indexed.filter((x) => !x.leg.client)) {
    if (leg.pair && !pair) pair = await startPair(dir);
    await runAndReport(leg, i, url);
  }
  const queue = indexed.filter((x) => x.leg.client);
  await Promise.all(
    Array.from({ length: CLIENT_LEGS_AT_ONCE }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await runAndReport(next.leg, next.i, url);
    }),
  );
} catch (err) {
  failures++;
  console.error(`conformance: ${err.message}`);
} finally {
  await stopServer(server.child);
  await pair?.stop();
}
if (failures === 0 && !process.env.KEEP) rmSync(dir, { recursive: true, force: true });
// One closing line in the plain form CI reads: legs that passed against their baseline, legs that did not.
console.log(`conformance: ${legsPassed} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
