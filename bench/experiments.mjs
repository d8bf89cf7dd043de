// Measures candidate optimisations of src/ without touching src/: each experiment copies src/ to a temp
// folder, applies a small patch (or a config change), builds it with the project's own build script, and
// runs the same loads as the benchmark (stdio 64 in flight, HTTP stateless and session) against it, next to
// an unpatched copy built the same way. Rounds alternate the order to spread drift. Prints a table.
// Usage: `node bench/experiments.mjs [--only a,b] [--rounds 2] [--cold-only] [--keep] [--dry-run]`. Never part of `npm test`.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { captureSdkToolCall, loadTest, startHttpChild } from './lib/http.mjs';
import { cpuMs, memMb } from './lib/proc.mjs';
import { ROOT, switchboardEnv, tempProject } from './lib/servers.mjs';
import { quantile, sleep } from './lib/stats.mjs';
import { StdioDriver } from './lib/stdio-driver.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? dflt : argv[i + 1];
};
const ROUNDS = Number(opt('rounds', '2'));
const HTTP_S = Number(opt('http-seconds', '5'));
const COLD_ONLY = argv.includes('--cold-only');
const COLD_RUNS = Number(opt('cold-runs', '7'));

/** Replace `from` (string or RegExp) in a file's text, or fail naming the anchor (src/ moved on). */
function edit(text, from, to, file) {
  const found = typeof from === 'string' ? text.includes(from) : from.test(text);
  if (!found)
    throw new Error(
      `not applicable to the current ${file} (already applied, or the code moved): ${String(from).slice(0, 60)}`,
    );
  return text.replace(from, to);
}

// ── The candidate optimisations ─────────────────────────────────────────────────────────────────────

/** Upper bound of the event-log cost: the hub's per-call SQLite append switched off by config. */
const noEventLog = { config: '[events]\nretain = 0\n' };

/** Coalesce stdio writes: all responses finished in one turn of the event loop go out in one write(2). */
const coalesceStdout = {
  'src/serve/mcp-stdio.ts': (t, f) => {
    t = edit(
      t,
      "import { serveStdio } from '@modelcontextprotocol/server/stdio';",
      `import { EventEmitter } from 'node:events';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';

/** stdout that joins every message written in one event-loop turn into one write (one syscall). */
class CoalescingStdout extends EventEmitter {
  private parts: string[] = [];
  private scheduled = false;
  private blocked = false;
  constructor(private readonly out: NodeJS.WriteStream) {
    super();
    out.on('error', (e) => this.emit('error', e));
    out.on('drain', () => {
      this.blocked = false;
      this.emit('drain');
    });
  }
  write(chunk: string): boolean {
    this.parts.push(chunk);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
    return !this.blocked;
  }
  private flush = () => {
    this.scheduled = false;
    const data = this.parts.length === 1 ? this.parts[0] : this.parts.join('');
    this.parts = [];
    if (!this.out.write(data)) this.blocked = true;
  };
}`,
      f,
    );
    return edit(
      t,
      "{ onerror: (err) => hub.services.logger.warn({ err: err.message }, 'stdio transport error') },",
      "{ transport: new StdioServerTransport(process.stdin, new CoalescingStdout(process.stdout) as any), onerror: (err) => hub.services.logger.warn({ err: err.message }, 'stdio transport error') },",
      f,
    );
  },
};

/** The event log appended in one SQLite transaction per event-loop turn instead of one implicit transaction per call. */
const batchedEventLog = {
  'src/store/sqlite/events.ts': (t, f) => {
    t = edit(
      t,
      "this.insert = db.prepare('INSERT INTO events (type, data) VALUES (?, ?)');",
      `this.insert = db.prepare('INSERT INTO events (type, data) VALUES (?, ?)');
    (this as any).batch = [];
    (this as any).flushBatch = db.transaction((rows: [string, string][]) => {
      for (const r of rows) this.insert.run(r[0], r[1]);
    });`,
      f,
    );
    return edit(
      t,
      "this.insert.run(event.type, toJson(event, 'event'));",
      `const self = this as any;
    self.batch.push([event.type, toJson(event, 'event')]);
    if (self.batch.length === 1)
      setImmediate(() => {
        const rows = self.batch;
        self.batch = [];
        try {
          self.flushBatch(rows);
        } catch {}
      });`,
      f,
    );
  },
};

/**
 * Keep the hot path synchronous: the AbortController (and its link to the caller's signal) is created only
 * when the handler reads ctx.signal, and the timer and Promise.race only when the handler returns a promise.
 */
const lazyExecute = {
  'src/core/pipeline.ts': (t, f) => {
    t = edit(
      t,
      /const execute: Middleware = async \(state\) => \{([\s\S]*?)const controller = new AbortController\(\);/,
      `const execute: Middleware = async (state) => {$1let controllerInst: AbortController | undefined;
  const controller = {
    get signal() {
      return lazyController().signal;
    },
    abort: (reason?: unknown) => lazyController().abort(reason),
  };
  const lazyController = () => {
    if (!controllerInst) {
      controllerInst = new AbortController();
      state.req.signal?.addEventListener('abort', onAbort, { once: true });
    }
    return controllerInst;
  };`,
      f,
    );
    t = edit(
      t,
      /(if \(outer\.aborted\)[\s\S]*?;\n)\s*outer\.addEventListener\('abort', onAbort, \{ once: true \}\);/,
      '$1',
      f,
    );
    t = edit(
      t,
      /arm\(\);\s*const ctx = state\.ctx;\s*ctx\.signal = controller\.signal;/,
      `const ctx = state.ctx;
  Object.defineProperty(ctx, 'signal', { get: () => controller.signal, configurable: true, enumerable: true });`,
      f,
    );
    return edit(
      t,
      /const aborted = new Promise<never>\(\(_, reject\) => \{[\s\S]*?const value = await Promise\.race\(\[Promise\.resolve\(capability\.handle\(state\.input, ctx\)\), aborted\]\);/,
      `const pending = capability.handle(state.input, ctx);
    let value: unknown;
    if (pending && typeof (pending as Promise<unknown>).then === 'function') {
      arm();
      const aborted = new Promise<never>((_, reject) => {
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
      });
      aborted.catch(() => {});
      value = await Promise.race([pending, aborted]);
    } else value = pending;`,
      f,
    );
  },
};

/** Load only what `serve` needs: CLI-only commands (SDK client, tables) and the HTTP stack behind dynamic imports. */
const lazyCli = {
  // Every command module except serve (and the shared output helpers) behind a dynamic import.
  'src/cli/main.ts': (t, f) => {
    let n = 0;
    const out = t.replace(/^import \{ ([^}]+) \} from '\.\/([a-z-]+)\.ts';$/gm, (line, names, mod) => {
      if (mod === 'serve' || mod === 'output') return line;
      n++;
      return names
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
        .map((x) => `const ${x} = (...a: any[]) => import('./${mod}.ts').then((m) => (m.${x} as any)(...a));`)
        .join('\n');
    });
    if (!n) throw new Error(`not applicable to the current ${f}: no command imports found`);
    return out;
  },
  'src/cli/serve.ts': (t, f) => {
    t = edit(
      t,
      "import { serveHttp } from '../serve/http.ts';",
      "const serveHttp = (...a: any[]) => import('../serve/http.ts').then((m) => (m.serveHttp as any)(...a));",
      f,
    );
    t = edit(t, "import { serveMcpStdio } from '../serve/mcp-stdio.ts';", '', f);
    return edit(t, /=\s*serveMcpStdio\(/, "= (await import('../serve/mcp-stdio.ts')).serveMcpStdio(", f);
  },
};

/** Minified bundles: less JavaScript for V8 to scan and compile at start (names kept for profiles). */
const minify = {
  'scripts/build.mjs': (t, f) =>
    edit(t, "logLevel: 'warning',", "logLevel: 'warning',\n  minify: true,\n  keepNames: true,", f),
};

/**
 * No ESM loader-hook worker: on Node 20 \`module.register\` starts a worker thread (a second V8 isolate) before the
 * first handler loads. Here the bench handler resolves 'switchboard' to this very copy without it, so the
 * experiment simply skips the hook — what the product would do when natural resolution already finds the
 * running copy.
 */
const noHookWorker = {
  'src/sources/handlers/load.ts': (t, f) =>
    edit(t, /function installSelfResolve\(\): void \{\n/, 'function installSelfResolve(): void {\n  return;\n', f),
};

/** The batched event-log flush on a timer (timers phase of the next loop turn) instead of setImmediate, so it runs after a setImmediate stdout flush. */
const logFlushTimer = {
  'src/hub.ts': (t, f) => edit(t, 'setImmediate(flushEvents)', 'setTimeout(flushEvents, 1)', f),
};

const EXPERIMENTS = {
  baseline: {},
  'no-event-log': noEventLog,
  'no-audit': { config: '[audit]\nenabled = false\n' },
  'no-audit+no-event-log': { config: '[audit]\nenabled = false\n\n[events]\nretain = 0\n' },
  'batched-event-log': batchedEventLog,
  'coalesce-stdout': coalesceStdout,
  'lazy-execute': lazyExecute,
  'lazy-cli': lazyCli,
  'semi-space 2 MB': { nodeFlags: ['--max-semi-space-size=2'] },
  minify,
  'no-hook-worker': noHookWorker,
  'cold three': { ...lazyCli, ...minify, ...noHookWorker },
  'all five': { ...batchedEventLog, ...coalesceStdout, ...lazyExecute, ...lazyCli, ...noHookWorker },
  'coalesce + log timer': { ...coalesceStdout, ...logFlushTimer },
  'remaining four': { ...coalesceStdout, ...lazyExecute, ...lazyCli, ...noHookWorker },
};

// ── Build a patched copy ────────────────────────────────────────────────────────────────────────────

function buildCopy(name, exp) {
  const dir = mkdtempSync(join(tmpdir(), `switchboard-exp-${name}-`));
  for (const p of ['src', 'scripts', 'bin', 'package.json']) cpSync(join(ROOT, p), join(dir, p), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  mkdirSync(join(dir, 'bench/handlers'), { recursive: true });
  // The handler imports 'switchboard', which must resolve to this copy's build (package self-reference).
  cpSync(join(ROOT, 'bench/handlers/echo.mjs'), join(dir, 'bench/handlers/echo.mjs'));
  for (const [file, patch] of Object.entries(exp)) {
    if (file === 'config' || file === 'nodeFlags') continue;
    const path = join(dir, file);
    writeFileSync(path, patch(readFileSync(path, 'utf8'), file));
  }
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  return dir;
}

// ── The loads ───────────────────────────────────────────────────────────────────────────────────────

/** Spawn + SDK client connect + one tools/call, as in the benchmark; wall ms. */
async function coldStart(command, args, env, cwd) {
  const t0 = performance.now();
  const client = new Client({ name: 'switchboard-bench', version: '1.0.0' });
  try {
    const transport = new StdioClientTransport({ command, args, env, cwd, stderr: 'pipe' });
    await client.connect(transport);
    const r = await client.callTool({ name: 'echo', arguments: { text: 'cold' } });
    if (r.isError) throw new Error(JSON.stringify(r));
    return { ms: performance.now() - t0, cpu: cpuMs(transport.pid) };
  } finally {
    await client.close().catch(() => {});
  }
}

async function measure(dir, exp) {
  const project = tempProject();
  if (exp.config) {
    mkdirSync(join(project, '.switchboard'), { recursive: true });
    writeFileSync(join(project, '.switchboard/config.toml'), exp.config);
  }
  const env = switchboardEnv(project);
  const bin = join(dir, 'bin/switchboard.js');
  const handlers = join(dir, 'bench/handlers');
  const out = {};
  try {
    const flags = exp.nodeFlags ?? [];
    const stdioArgs = [...flags, bin, '--cwd', project, 'serve', '--handlers', handlers];
    await coldStart(process.execPath, stdioArgs, env, dir);
    const colds = [];
    for (let i = 0; i < COLD_RUNS; i++) colds.push(await coldStart(process.execPath, stdioArgs, env, dir));
    out.cold = quantile(
      colds.map((c) => c.ms),
      0.5,
    );
    out.coldCpu = quantile(
      colds.map((c) => c.cpu),
      0.5,
    );
    const d = new StdioDriver({ command: process.execPath, args: stdioArgs, env, cwd: dir, tool: 'echo' });
    if (COLD_ONLY) {
      try {
        await d.initialize();
        await sleep(200);
        out.idleRss = memMb(d.pid).rss;
      } finally {
        await d.close();
      }
      return out;
    }
    try {
      await d.initialize();
      await sleep(200);
      out.idleRss = memMb(d.pid).rss;
      await d.sequential(1000, 20_000);
      await d.concurrent(5000, 64, 30_000);
      await sleep(200);
      out.warmRss = memMb(d.pid).rss;
      let c0 = cpuMs(d.pid);
      const lat = await d.sequential(3000, 30_000);
      out.seqP50 = quantile(lat, 0.5) * 1000;
      out.seqCpu = ((cpuMs(d.pid) - c0) * 1000) / lat.length;
      c0 = cpuMs(d.pid);
      const t = await d.concurrent(20_000, 64, 60_000);
      out.tput = (t.done / t.ms) * 1000;
      out.tputCpu = ((cpuMs(d.pid) - c0) * 1000) / t.done;
      out.rss = memMb(d.pid).rss;
      out.bad = d.bad;
    } finally {
      await d.close();
    }
    const srv = await startHttpChild(
      process.execPath,
      [
        ...flags,
        bin,
        '--cwd',
        project,
        'serve',
        '--http',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--handlers',
        handlers,
      ],
      env,
      dir,
    );
    try {
      const stateless = await captureSdkToolCall(srv.url, 'echo', 'stateless');
      const session = await captureSdkToolCall(srv.url, 'echo', 'session');
      await loadTest(srv.url, stateless, { connections: 64, seconds: 2 });
      for (const [k, cap] of [
        ['stateless', stateless],
        ['session', session],
      ]) {
        const c0 = cpuMs(srv.pid);
        const r = await loadTest(srv.url, cap, { connections: 64, seconds: HTTP_S });
        out[k] = r.rps;
        out[`${k}Cpu`] = ((cpuMs(srv.pid) - c0) * 1000) / Math.max(1, r.ok);
        out.bad += r.bad + r.non2xx + r.errors + r.timeouts;
      }
      await stateless.close();
      await session.close();
    } finally {
      await srv.stop();
    }
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
  return out;
}

// ── Run ─────────────────────────────────────────────────────────────────────────────────────────────

const names = opt('only', Object.keys(EXPERIMENTS).join(',')).split(',');
if (argv.includes('--dry-run')) {
  // Show each patch as a diff against the current src/ and stop.
  for (const name of names) {
    for (const [file, patch] of Object.entries(EXPERIMENTS[name] ?? {})) {
      if (file === 'config' || file === 'nodeFlags') continue;
      const dir = mkdtempSync(join(tmpdir(), 'switchboard-exp-dry-'));
      try {
        writeFileSync(join(dir, 'patched.ts'), patch(readFileSync(join(ROOT, file), 'utf8'), file));
        try {
          execFileSync('diff', ['-u', join(ROOT, file), join(dir, 'patched.ts')], { stdio: 'inherit' });
        } catch {}
      } catch (err) {
        console.log(`${name}: ${err.message}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  process.exit(0);
}
if (!names.includes('baseline')) names.unshift('baseline');
const dirs = {};
const skipped = {};
for (const name of names) {
  try {
    dirs[name] = buildCopy(name, EXPERIMENTS[name]);
  } catch (err) {
    skipped[name] = err.message.split('\n')[0];
    process.stderr.write(`skip ${name}: ${skipped[name]}\n`);
  }
}
const runnable = names.filter((n) => dirs[n]);
const samples = Object.fromEntries(runnable.map((n) => [n, []]));
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? runnable : [...runnable].reverse();
    for (const name of order) {
      const r = await measure(dirs[name], EXPERIMENTS[name]);
      samples[name].push(r);
      const f = (v, d = 0) => (v === undefined ? '—' : v.toFixed(d));
      process.stderr.write(
        `round ${round + 1} ${name}: cold ${f(r.cold)} ms (${f(r.coldCpu)} ms cpu), idle rss ${f(r.idleRss, 1)} MB, stdio ${f(r.tput)}/s (${f(r.tputCpu)} µs cpu), ` +
          `seq p50 ${f(r.seqP50)} µs (${f(r.seqCpu)} µs cpu); http stateless ${f(r.stateless)}/s (${f(r.statelessCpu)} µs), session ${f(r.session)}/s (${f(r.sessionCpu)} µs); bad ${r.bad ?? 0}\n`,
      );
      await sleep(300);
    }
  }
} finally {
  if (argv.includes('--keep')) for (const [n, d] of Object.entries(dirs)) process.stderr.write(`kept ${n}: ${d}\n`);
  else for (const d of Object.values(dirs)) rmSync(d, { recursive: true, force: true });
}

const mean = (name, k) => samples[name].reduce((s, r) => s + r[k], 0) / samples[name].length;
const base = (k) => mean('baseline', k);
const pct = (v, b) => {
  const d = ((v - b) / b) * 100;
  return `${d >= 0 ? '+' : ''}${d.toFixed(0)}%`;
};
const cols = [
  ['cold start ms', 'cold', false, 0],
  ['cold start server CPU ms', 'coldCpu', false, 0],
  ['idle RSS MB', 'idleRss', false, 1],
  ['warm RSS MB', 'warmRss', false, 1],
  ['stdio calls/s', 'tput', true, 0],
  ['stdio µs cpu/call', 'tputCpu', false, 0],
  ['stdio seq p50 µs', 'seqP50', false, 0],
  ['stdio seq µs cpu/call', 'seqCpu', false, 0],
  ['HTTP stateless req/s', 'stateless', true, 0],
  ['stateless µs cpu/req', 'statelessCpu', false, 0],
  ['HTTP session req/s', 'session', true, 0],
  ['session µs cpu/req', 'sessionCpu', false, 0],
];
const lines = [
  `| experiment | ${cols.map((c) => c[0]).join(' | ')} | bad answers |`,
  `|---|${cols.map(() => '---:').join('|')}|---:|`,
];
for (const name of runnable) {
  const cells = cols.map(([, k, , dg]) => {
    const v = mean(name, k);
    if (Number.isNaN(v)) return '—';
    return name === 'baseline' ? v.toFixed(dg) : `${v.toFixed(dg)} (${pct(v, base(k))})`;
  });
  lines.push(`| ${name} | ${cells.join(' | ')} | ${samples[name].reduce((s, r) => s + (r.bad ?? 0), 0)} |`);
}
for (const [name, why] of Object.entries(skipped)) lines.push(`| ${name} | skipped: ${why} |`);
console.log(
  `\nMeans of ${ROUNDS} rounds (HTTP ${HTTP_S} s per mode, 64 connections; stdio 20000 calls at 64 in flight):\n\n${lines.join('\n')}`,
);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(
  join(ROOT, 'bench/results/experiments.json'),
  `${JSON.stringify({ date: new Date().toISOString(), rounds: ROUNDS, samples, skipped }, null, 2)}\n`,
);
