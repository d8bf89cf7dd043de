// CPU-profiles a server under the benchmark's load: `node --cpu-prof` on the server child during the stdio
// 64-in-flight run and the HTTP stateless (2026-07-28) and session (2025-11-25) runs; prints self time by
// package / file / function for the load window only (startup excluded).
// Usage: `node bench/profile.mjs [--target switchboard|bare] [--only stdio|cold|http] [--interval µs]` (after a build);
// `--resummarise <dir>` re-reads the profiles of an earlier run; `--root <dir>` profiles another build (experiments --keep).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { render, summarise } from './lib/cpuprofile.mjs';
import { captureSdkToolCall, loadTest, startHttpChild } from './lib/http.mjs';
import { ROOT, serverDefs, tempProject } from './lib/servers.mjs';
import { sleep } from './lib/stats.mjs';
import { StdioDriver } from './lib/stdio-driver.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? dflt : argv[i + 1];
};
const target = opt('target', 'switchboard');
const resummarise = opt('resummarise', undefined);
const only = opt('only', 'all');
const interval = Number(opt('interval', '200'));
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const outDir = resummarise ?? join(ROOT, 'bench/results/profiles', `${stamp}-${target}`);
mkdirSync(outDir, { recursive: true });

/** CLOCK_MONOTONIC in µs — the clock V8 stamps profile samples with. */
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

// Functions whose inclusive time answers "where does the time go" (names as they appear in the bundles).
const INCLUSIVE = [
  'buildMcpServer',
  'buildServer',
  'Server',
  'McpServer',
  'registerTool',
  'setRequestHandler',
  'call',
  'execute',
  'validate',
  'validateInput',
  'safeParse',
  'toCallToolResult',
  'publish',
  'append',
  'trim',
  'isLegacyRequest',
  'classifyRequest',
  'handleRequest',
  'fetch',
  'toWebRequest',
  'writeMessage',
  'send',
  'serializeMessage',
  'deserializeMessage',
  'parseJSONRPCMessage',
  'stringify',
  'parse',
  'readBody',
  'route',
  '_onrequest',
  '_onresponse',
  'connect',
  'randomUUID',
  'toJSONSchema',
];

// Functions whose callers are broken down (who validates, who allocates abort signals, who writes).
const CALLERS = [
  'resolve',
  'compileSourceTextModule',
  'waitForWorker',
  'SdkError',
  'makeTransferable',
  '_Request',
  'safeParse',
  'parse',
  'createAbortSignal',
  'writeUtf8String',
  'writev',
  'writeBuffer',
  'stringify',
  'append',
  'AbortController',
  'randomUUID',
  'Request',
  'Response',
];

const project = tempProject();
const defs = serverDefs(project, ['--cpu-prof', `--cpu-prof-interval=${interval}`], opt('root', ROOT));
const def = defs[target];
const report = [];
/** @type {{ file: string, from: number, to: number, title: string }[]} */
let jobs = [];

/** The newest main-thread profile in a folder (worker threads, e.g. a logger's, write their own files). */
function newestProfile(dir) {
  // Node names them CPU.<date>.<time>.<pid>.<threadId>.<seq>.cpuprofile; the main thread is threadId 0.
  const files = readdirSync(dir).filter((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
  if (!files.length) throw new Error(`no .cpuprofile written in ${dir}`);
  return join(dir, files.sort().at(-1));
}

/** Run the loads against a profiled server child and record each load window. */
async function profileRuns() {
  try {
    if (only === 'all' || only === 'stdio') {
      const dir = join(outDir, 'stdio');
      mkdirSync(dir, { recursive: true });
      const [command, args] = def.stdio;
      const d = new StdioDriver({
        command,
        args: [`--cpu-prof-dir=${dir}`, ...args],
        env: def.env,
        cwd: ROOT,
        tool: def.tool,
      });
      await d.initialize();
      await d.concurrent(5000, 64, 30_000);
      const from = nowUs();
      const t = await d.concurrent(40_000, 64, 60_000);
      const to = nowUs();
      await d.close();
      if (d.bad) throw new Error(`stdio: ${d.bad} wrong answers: ${d.firstBad}`);
      jobs.push({
        file: newestProfile(dir),
        from,
        to,
        title: `${target} — stdio, ${t.done} calls at 64 in flight (${((t.done / t.ms) * 1000).toFixed(0)} calls/s under the profiler)`,
      });
    }
    if (only === 'all' || only === 'cold') {
      // Cold start: spawn + SDK client connect + one tools/call, profiled from spawn to the answer.
      const dir = join(outDir, 'cold');
      mkdirSync(dir, { recursive: true });
      const [command, args] = def.stdio;
      const cold = async () => {
        const from = nowUs();
        const transport = new StdioClientTransport({
          command,
          args: [`--cpu-prof-dir=${dir}`, ...args],
          env: def.env,
          cwd: ROOT,
          stderr: 'pipe',
        });
        const client = new Client({ name: 'switchboard-bench', version: '1.0.0' });
        await client.connect(transport);
        const result = await client.callTool({ name: def.tool, arguments: { text: 'cold' } });
        const to = nowUs();
        if (result.isError) throw new Error(`cold call failed: ${JSON.stringify(result)}`);
        await client.close();
        return { from, to };
      };
      await cold(); // warms the page cache and creates state.db, as in the benchmark
      for (let i = 0; i < 50 && !readdirSync(dir).some((f) => f.endsWith('.cpuprofile')); i++) await sleep(100);
      await sleep(300);
      for (const f of readdirSync(dir)) rmSync(join(dir, f));
      const w = await cold();
      for (let i = 0; i < 50 && !readdirSync(dir).some((f) => f.endsWith('.cpuprofile')); i++) await sleep(100);
      jobs.push({
        file: newestProfile(dir),
        from: w.from,
        to: w.to,
        title: `${target} — cold start to first answer (${((w.to - w.from) / 1000).toFixed(0)} ms wall under the profiler)`,
      });
    }
    if (only === 'all' || only === 'http') {
      const dir = join(outDir, 'http');
      mkdirSync(dir, { recursive: true });
      const [command, args] = def.http;
      const srv = await startHttpChild(command, [`--cpu-prof-dir=${dir}`, ...args], def.env, ROOT);
      const windows = [];
      try {
        const stateless = await captureSdkToolCall(srv.url, def.tool, 'stateless');
        const session = await captureSdkToolCall(srv.url, def.tool, 'session');
        await loadTest(srv.url, stateless, { connections: 64, seconds: 2 });
        for (const [name, capture] of [
          ['stateless 2026-07-28', stateless],
          ['session 2025-11-25', session],
        ]) {
          const from = nowUs();
          const res = await loadTest(srv.url, capture, { connections: 64, seconds: 8 });
          const to = nowUs();
          if (res.bad || res.non2xx || res.errors)
            throw new Error(
              `HTTP ${name}: ${res.bad} bad, ${res.non2xx} non-2xx, ${res.errors} errors: ${res.firstBad}`,
            );
          windows.push({ name, from, to, rps: res.rps });
          await sleep(200);
        }
        await stateless.close();
        await session.close();
      } finally {
        await srv.stop();
      }
      const file = newestProfile(dir);
      for (const w of windows) {
        jobs.push({
          file,
          from: w.from,
          to: w.to,
          title: `${target} — HTTP ${w.name}, 64 connections (${w.rps.toFixed(0)} req/s under the profiler)`,
        });
      }
    }
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

if (resummarise) jobs = JSON.parse(readFileSync(join(outDir, 'jobs.json'), 'utf8'));
else await profileRuns();

writeFileSync(join(outDir, 'jobs.json'), `${JSON.stringify(jobs, null, 2)}\n`);
for (const job of jobs) {
  const s = summarise(job.file, { root: ROOT, fromUs: job.from, toUs: job.to, inclusive: INCLUSIVE, callers: CALLERS });
  report.push(render(job.title, s, 30));
}
const text = report.join('\n\n');
writeFileSync(join(outDir, 'summary.txt'), `${text}\n`);
console.log(text);
console.error(`\nprofiles and summary in ${outDir}`);
