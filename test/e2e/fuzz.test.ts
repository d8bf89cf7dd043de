// Fuzz: a few thousand seeded random, mutated and garbage messages per transport against the built CLI: stdio, and
// over HTTP a 2025 session, 2026-07-28 stateless requests, REST /v1/tools/* and raw HTTP garbage (odd request
// targets, methods and headers, oversized bodies). Invalid JSON, wrong types, deep nesting, huge ids and strings,
// prototype-pollution keys in params, arguments and _meta. The server must never die, must answer every request it
// can parse exactly once, must never write a non-JSON line to stdout, answer 5xx or show a stack trace, must refuse
// an oversized body with 413, must keep its memory bounded and its prototypes clean, and must still answer a valid
// call correctly afterwards on each transport. Replay a failing run with FUZZ_SEED=<seed> (printed at the start);
// FUZZ_STDIO_COUNT and FUZZ_HTTP_COUNT (per HTTP face) change the counts. Each test prints its time.
//
// "Can parse" is the SDK's own judgement (test/fuzz/oracle.ts). What it does with the rest, pinned here as found:
// - lines on stdio that name no usable id are answered with a null id: -32700 when they are not JSON or nest deeper
//   than 64 levels, -32600 when they are JSON but no JSON-RPC message (responses from the client excepted);
// - JSON-RPC-shaped requests the SDK's schema refuses (an extra member, a fractional or unsafe-integer id, array
//   params, a malformed _meta) are answered -32600 with their id: by Switchboard's stdio transport on stdio (the
//   SDK's own drops them), and 400 / -32600 over HTTP;
// - batch arrays are refused whole on stdio (-32600, id null), answered request by request in a 2025 HTTP session,
//   and refused with 400 / -32600 on 2026-07-28 (no batches with requests).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LEGACY_VERSION, MessageGenerator, MODERN_VERSION, type Obj, pollute } from '../fuzz/messages.ts';
import {
  cpuSeconds,
  encodeHeaderValue,
  heapProbeEnv,
  httpObligations,
  type Id,
  idKey,
  memoryAfterGc,
  rawHttp,
  rssMb,
  rssSampler,
  STACK_TRACE,
  sseMessages,
  stdioObligations,
} from '../fuzz/oracle.ts';
import { fuzzSeed, Rng } from '../fuzz/rng.ts';
import { BIN, childEnv, FIXTURE_HANDLERS, startHttpServer, tempProject } from '../helpers/cli.ts';
import { rpc2026 } from '../helpers/rpc2026.ts';

const SEED = fuzzSeed();
/** Messages on stdio, and requests on each HTTP face (2025 session, 2026-07-28 stateless, REST). */
const STDIO_COUNT = Number(process.env.FUZZ_STDIO_COUNT ?? 2_000);
const PER_FACE = Number(process.env.FUZZ_HTTP_COUNT ?? 2_000);
/** Raw HTTP garbage besides the faces: odd targets, methods, headers, bodies. */
const RAW_COUNT = Math.ceil(PER_FACE / 4);
/** The fuzzed HTTP server's `[server] max_body_bytes`: small, so oversized bodies cost little to send. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Requests in flight at once: enough to overlap work, few enough never to flood the server. */
const STDIO_WINDOW = 32;
const HTTP_CONCURRENCY = 12;
/** A request unanswered this long counts as hung. */
const HANG_MS = 15_000;
/**
 * Memory bounds at the end of a run. RSS against the RSS after initialize, and absolute: the server idles at
 * ~260 MB RSS with a handler directory loaded (~85 MB without), so the cap leaves room above that, and RSS keeps
 * freed allocator pages, so it plateaus rather than returns. The leak signal is the heap after a full GC.
 */
const RSS_GROWTH = 2.5;
const RSS_CAP_MB = 512;
const HEAP_GROWTH = 2;
/** Largest generated string: well inside the HTTP body limit above and the stdio line limit. */
const HUGE_STRING = 64_000;
/** Deepest generated nesting: past the HTTP depth limit (64) and past where recursive code would blow its stack. */
const MAX_GARBAGE_DEPTH = 20_000;

console.log(`fuzz seed ${SEED} (replay with FUZZ_SEED=${SEED})`);
const fuzzStarted = Date.now();
afterAll(() => console.log(`fuzz total ${((Date.now() - fuzzStarted) / 1000).toFixed(1)} s`));

/** The valid call each transport must still answer correctly after the fuzz (a polluted prototype changes it). */
const AFTER_FUZZ = { name: 'task__create', arguments: { text: 'after the fuzz' } };
/** Its result, as far as pollution could change it: the defaults, untouched. */
const AFTER_FUZZ_RESULT = { text: 'after the fuzz', priority: 50, status: 'pending' };

/** Collects problems by category, keeping a few examples of each. */
class Problems {
  private readonly byKind = new Map<string, { count: number; examples: string[] }>();
  add(kind: string, example: string): void {
    const entry = this.byKind.get(kind) ?? { count: 0, examples: [] };
    entry.count++;
    if (entry.examples.length < 5) entry.examples.push(example.length > 600 ? `${example.slice(0, 600)}…` : example);
    this.byKind.set(kind, entry);
  }
  list(): string[] {
    return [...this.byKind].map(([kind, { count, examples }]) => `${kind} ×${count}:\n    ${examples.join('\n    ')}`);
  }
}

const tally = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
const top = (map: Map<string, number>, n = 12) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
/** A string as one URL path segment (lone surrogates become U+FFFD first, as on any UTF-8 wire). */
const pathSegment = (s: string) => encodeURIComponent(Buffer.from(s, 'utf8').toString('utf8'));
const short = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

/**
 * CPU seconds the server and this test process spent: on a machine shared with other work the wall time says how
 * busy the machine was, these say what the fuzz itself costs.
 */
function cpuReport(serverCpu: number, since: NodeJS.CpuUsage): { serverCpuS: number; testCpuS: number } {
  const used = process.cpuUsage(since);
  return { serverCpuS: serverCpu, testCpuS: Math.round((used.user + used.system) / 1e4) / 100 };
}

/**
 * Sort stderr lines: errors (pino level 50+, except the fixture module broken on purpose; anything that is neither
 * a log entry nor a Node process warning) fail the run; Node process warnings are reported.
 */
function stderrFindings(text: string): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let entry: { level?: number; file?: string } | undefined;
    try {
      entry = JSON.parse(line);
    } catch {}
    if (entry) {
      if ((entry.level ?? 0) >= 50 && !entry.file?.endsWith('broken.ts')) errors.push(line);
    } else if (/^\(node:\d+\) \w*Warning|^\(Use `node --trace-warnings/.test(line)) warnings.push(line);
    else errors.push(line);
  }
  return { errors, warnings };
}

describe('fuzz', () => {
  it(`stdio: ${STDIO_COUNT} random and mutated messages; the server stays up, answers every parsable request once and stays bounded`, async () => {
    const started = Date.now();
    const clientCpu = process.cpuUsage();
    const problems = new Problems();
    const dir = tempProject();
    const heapFile = join(dir, 'heap.json');
    const child: ChildProcessWithoutNullStreams = spawn(
      process.execPath,
      [BIN, '--cwd', dir, 'serve', '--handlers', FIXTURE_HANDLERS],
      { env: childEnv(dir, heapProbeEnv(heapFile)), stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const exited = once(child, 'exit');
    // Judge stderr line by line as it comes (it can run to megabytes): keep the errors and a tail.
    let stderr = '';
    let stderrBytes = 0;
    let stderrPartial = '';
    const stderrErrors: string[] = [];
    const stderrWarnings = new Map<string, number>();
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      stderrBytes += Buffer.byteLength(d);
      stderr = (stderr + d).slice(-20_000);
      const lines = (stderrPartial + d).split('\n');
      stderrPartial = lines.pop()!;
      const found = stderrFindings(lines.join('\n'));
      stderrErrors.push(...found.errors);
      for (const w of found.warnings) tally(stderrWarnings, w.replace(/^\(node:\d+\) /, ''));
    });
    child.stdin.on('error', (err) => problems.add('stdin write error', err.message));

    const answers = new Map<string, number>();
    const pending = new Map<string, number>();
    const cancelled = new Set<string>();
    const mentioned = new Set<string>();
    const shapedOnly = new Set<string>();
    const kinds = new Map<string, number>();
    let serverRequests = 0;
    let notifications = 0;
    let nullIdErrors = 0;
    let wake: (() => void) | undefined;

    const write = async (text: string) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (!child.stdin.write(`${text}\n`)) await Promise.race([once(child.stdin, 'drain'), exited]);
    };
    let afterFuzz: any;
    const onLine = (line: string) => {
      if (STACK_TRACE.test(line)) problems.add('stack trace in an answer', short(line, 400));
      let msg: any;
      try {
        msg = JSON.parse(line);
      } catch {
        problems.add('non-JSON line on stdout', short(line));
        return;
      }
      if (msg === null || typeof msg !== 'object' || Array.isArray(msg) || msg.jsonrpc !== '2.0') {
        problems.add('stdout line that is not a JSON-RPC message', short(line));
        return;
      }
      if (typeof msg.method === 'string' && 'id' in msg) {
        // A server-to-client request (a re-initialize may have declared sampling): refuse it like a plain client.
        serverRequests++;
        void write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'not supported' } }));
        return;
      }
      if (typeof msg.method === 'string') {
        notifications++;
        return;
      }
      if ('result' in msg || 'error' in msg) {
        if (msg.id === null || msg.id === undefined) {
          nullIdErrors++;
          return;
        }
        const key = idKey(msg.id);
        tally(answers, key);
        if (key === idKey('after-fuzz')) afterFuzz = msg;
        if (!mentioned.has(key)) problems.add('response to an id never sent', short(line));
        pending.delete(key);
        wake?.();
        return;
      }
      problems.add('unclassifiable stdout message', short(line));
    };
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        onLine(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
      }
    });

    const expire = () => {
      const now = Date.now();
      for (const [key, sentAt] of pending) {
        if (now - sentAt < HANG_MS) break;
        problems.add('request never answered (hung)', key);
        pending.delete(key);
      }
    };
    const waitBelow = async (n: number, deadline = Number.POSITIVE_INFINITY) => {
      while (pending.size >= n && Date.now() < deadline && child.exitCode === null) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
        expire();
      }
    };
    const request = async (id: Id, method: string, params?: object) => {
      const key = idKey(id);
      mentioned.add(key);
      pending.set(key, Date.now());
      await write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }));
    };

    // A proper opening, then the memory baseline.
    await request('init', 'initialize', {
      protocolVersion: LEGACY_VERSION,
      capabilities: {},
      clientInfo: { name: 'fuzz', version: '1.0.0' },
    });
    await waitBelow(1, Date.now() + 20_000);
    expect(answers.get(idKey('init')), `initialize answered; stderr: ${stderr}`).toBe(1);
    await write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    await request('warm', 'tools/list');
    await waitBelow(1, Date.now() + 10_000);
    const rssBaseline = rssMb(child.pid!);
    const heapBaseline = await memoryAfterGc(child.pid!, heapFile);
    const sampler = rssSampler(child.pid!);

    const rng = new Rng(SEED);
    const gen = new MessageGenerator(rng.fork(), {
      era: 'legacy',
      hugeString: HUGE_STRING,
      maxGarbageDepth: MAX_GARBAGE_DEPTH,
      lineDelimited: true,
    });
    let required = 0;
    for (let i = 0; i < STDIO_COUNT && child.exitCode === null; i++) {
      const message = gen.next();
      tally(kinds, message.kind.replace(/\(.*$/, '').split(':')[0]);
      const owed = stdioObligations(message.text);
      for (const id of owed.mentioned) mentioned.add(idKey(id));
      for (const id of owed.shapedOnly) shapedOnly.add(idKey(id));
      for (const id of owed.required) {
        const key = idKey(id);
        if (pending.has(key) || answers.has(key)) problems.add('generator reused an id', key);
        pending.set(key, Date.now());
        required++;
      }
      await write(message.text);
      // Now and then cancel a request in flight: it may then go unanswered, but never be answered twice.
      if (rng.chance(0.01) && pending.size > 0) {
        const key = [...pending.keys()][rng.int(pending.size)];
        pending.delete(key);
        cancelled.add(key);
        await write(
          JSON.stringify({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: JSON.parse(key), reason: 'fuzz' },
          }),
        );
      }
      await waitBelow(STDIO_WINDOW);
    }
    await waitBelow(1, Date.now() + HANG_MS);
    expire();
    for (const key of pending.keys()) problems.add('request never answered', key);
    pending.clear();

    // Still alive, still answering correctly, memory bounded.
    await request('final-ping', 'ping');
    await request('after-fuzz', 'tools/call', AFTER_FUZZ);
    await waitBelow(1, Date.now() + 10_000);
    const alive = child.exitCode === null && child.signalCode === null;
    const rssEnd = alive ? rssMb(child.pid!) : Number.NaN;
    const serverCpu = alive ? cpuSeconds(child.pid!) : Number.NaN;
    const heapEnd = alive ? await memoryAfterGc(child.pid!, heapFile) : undefined;
    sampler.stop();

    for (const [key, n] of answers) if (n > 1) problems.add('request answered more than once', `${key} ×${n}`);
    for (const line of stderrErrors) problems.add('error on stderr', short(line, 1000));
    const shapedAnswered = [...shapedOnly].filter((k) => answers.has(k)).length;
    if (shapedAnswered !== shapedOnly.size)
      problems.add(
        'invalid request with an id left unanswered',
        `${shapedOnly.size - shapedAnswered} of ${shapedOnly.size}`,
      );
    child.stdin.end();
    const [code] = await Promise.race([exited, new Promise<[null]>((r) => setTimeout(() => r([null]), 10_000))]);
    if (code !== 0) problems.add('did not exit cleanly when stdin closed', `exit code ${code}`);

    const report = {
      seed: SEED,
      messages: STDIO_COUNT,
      requiredRequests: required,
      answeredDistinct: answers.size,
      cancelled: cancelled.size,
      jsonRpcShapedButDroppedBySdk: shapedOnly.size,
      shapedAnswered,
      nullIdErrors,
      notifications,
      stderrKb: Math.round(stderrBytes / 1024),
      nodeWarnings: Object.fromEntries(stderrWarnings),
      serverRequests,
      rssBaselineMb: Math.round(rssBaseline),
      rssEndMb: Math.round(rssEnd),
      rssMaxMb: Math.round(sampler.max()),
      afterGcBaselineMb: heapBaseline,
      afterGcEndMb: heapEnd,
      seconds: (Date.now() - started) / 1000,
      ...cpuReport(serverCpu, clientCpu),
      kinds: top(kinds),
    };
    console.log('stdio fuzz', JSON.stringify(report));

    expect(alive, `the server died; stderr tail: ${stderr.slice(-3000)}`).toBe(true);
    expect(answers.get(idKey('final-ping'))).toBe(1);
    expect(afterFuzz?.result?.structuredContent).toMatchObject(AFTER_FUZZ_RESULT);
    expect(heapEnd?.inherited, 'keys polluting Object.prototype or Array.prototype').toEqual([]);
    expect(problems.list(), `seed ${SEED}`).toEqual([]);
    expect(required).toBeGreaterThan(STDIO_COUNT / 3);
    expect(rssEnd).toBeLessThan(rssBaseline * RSS_GROWTH);
    expect(rssEnd).toBeLessThan(RSS_CAP_MB);
    expect(heapEnd!.heapUsed).toBeLessThan(heapBaseline!.heapUsed * HEAP_GROWTH);
  }, 120_000);

  it(`http: ${PER_FACE} requests per face (2025 session, 2026 stateless, REST) and ${RAW_COUNT} raw; no 5xx, no stack trace, every parsable request answered`, async () => {
    const started = Date.now();
    const clientCpu = process.cpuUsage();
    const problems = new Problems();
    const dir = tempProject();
    mkdirSync(join(dir, '.switchboard'));
    writeFileSync(join(dir, '.switchboard/config.toml'), `[server]\nmax_body_bytes = ${MAX_BODY_BYTES}\n`);
    const heapFile = join(dir, 'heap.json');
    // startHttpServer passes this process's environment on: lend it the heap probe for the spawn only.
    const saved = { NODE_OPTIONS: process.env.NODE_OPTIONS, FUZZ_HEAP_FILE: process.env.FUZZ_HEAP_FILE };
    Object.assign(process.env, heapProbeEnv(heapFile));
    const server = await startHttpServer(dir).finally(() => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });
    try {
      const base = server.url;
      const pid = server.child.pid!;
      const jsonHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

      // A 2025-11-25 session for the stateful part.
      const init = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: jsonHeaders,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'init',
          method: 'initialize',
          params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
        }),
      });
      const sessionId = init.headers.get('mcp-session-id');
      await init.text();
      expect(init.status).toBe(200);
      expect(sessionId).toBeTruthy();
      const sessionHeaders = { ...jsonHeaders, 'mcp-session-id': sessionId!, 'mcp-protocol-version': LEGACY_VERSION };
      const initialized = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: sessionHeaders,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      });
      await initialized.text();
      expect(initialized.status).toBe(202);
      const rssBaseline = rssMb(pid);
      const heapBaseline = await memoryAfterGc(pid, heapFile);
      const sampler = rssSampler(pid);

      interface Case {
        mode: 'session' | 'stateless' | 'rest' | 'raw';
        kind: string;
        method: string;
        /** The request target as sent: a path, or (raw) anything a request line can carry. */
        path: string;
        headers: Record<string, string>;
        body?: string;
        /** Send the body chunked, without Content-Length (it must be cut off at the limit all the same). */
        streamed?: boolean;
        /** The only acceptable status (oversized bodies: 413). */
        status?: number;
      }
      const rng = new Rng(SEED ^ 0x9e3779b9);
      const options = {
        hugeString: HUGE_STRING,
        maxGarbageDepth: MAX_GARBAGE_DEPTH,
        lineDelimited: false,
        // Over HTTP this is a long-lived notification stream: it would only ever end by timing out.
        excludeMethods: ['subscriptions/listen'],
      };
      const legacy = new MessageGenerator(rng.fork(), { ...options, era: 'legacy' });
      const modern = new MessageGenerator(rng.fork(), { ...options, era: 'modern' });
      let sessionsOpened = 0;
      /** A JSON-RPC request just over the body limit. */
      const oversized = () =>
        `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(MAX_BODY_BYTES + rng.int(1024))}"}}`;
      const deepJson = (depth: number) => `{"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;

      const sessionCase = (): Case => {
        if (rng.chance(0.005))
          return {
            mode: 'session',
            kind: 'oversize',
            method: 'POST',
            path: '/mcp',
            headers: sessionHeaders,
            body: oversized(),
            streamed: rng.chance(0.5),
            status: 413,
          };
        const m = legacy.next();
        const headers: Record<string, string> = { ...sessionHeaders };
        let kind = m.kind;
        if (rng.chance(0.08)) {
          const how = rng.pick(['no-accept', 'accept-html', 'text-plain', 'bogus-session', 'bad-version']);
          if (how === 'no-accept') delete headers.accept;
          if (how === 'accept-html') headers.accept = 'text/html';
          if (how === 'text-plain') headers['content-type'] = 'text/plain';
          if (how === 'bogus-session') headers['mcp-session-id'] = randomUUID();
          if (how === 'bad-version') headers['mcp-protocol-version'] = '1999-01-01';
          kind += `|header:${how}`;
        }
        return { mode: 'session', kind, method: 'POST', path: '/mcp', headers, body: m.text };
      };

      const statelessCase = (): Case => {
        const modernHeaders = { ...jsonHeaders, 'mcp-protocol-version': MODERN_VERSION };
        if (rng.chance(0.005))
          return {
            mode: 'stateless',
            kind: 'oversize',
            method: 'POST',
            path: '/mcp',
            headers: { ...modernHeaders, 'mcp-method': 'ping' },
            body: oversized(),
            streamed: rng.chance(0.5),
            status: 413,
          };
        const m = modern.next();
        const headers: Record<string, string> = { ...modernHeaders };
        if (m.method !== undefined) headers['mcp-method'] = encodeHeaderValue(m.method);
        if (m.name !== undefined && ['tools/call', 'prompts/get', 'resources/read'].includes(m.method ?? ''))
          headers['mcp-name'] = encodeHeaderValue(m.name);
        let kind = m.kind;
        if (rng.chance(0.08)) {
          const how = rng.pick(['no-method', 'wrong-method', 'wrong-name', 'legacy-version', 'session', 'no-version']);
          if (how === 'no-method') delete headers['mcp-method'];
          if (how === 'wrong-method') headers['mcp-method'] = 'tools/list';
          if (how === 'wrong-name') headers['mcp-name'] = 'fixture__echo';
          if (how === 'legacy-version') headers['mcp-protocol-version'] = LEGACY_VERSION;
          if (how === 'session') headers['mcp-session-id'] = randomUUID();
          if (how === 'no-version') delete headers['mcp-protocol-version'];
          kind += `|header:${how}`;
        }
        return { mode: 'stateless', kind, method: 'POST', path: '/mcp', headers, body: m.text };
      };

      // REST: the generator's tool calls (their arguments are the body), and what only REST can get wrong.
      const restCase = (): Case => {
        const how = rng.weighted<string>([
          [14, 'call'],
          [2, 'pollute'],
          [2, 'garbage'],
          [1, 'deep'],
          [1, 'not-an-object'],
          [1, 'odd-name'],
          [0.5, 'list'],
          [0.5, 'get-tool'],
          [0.5, 'oversize'],
        ]);
        const call = legacy.toolCall();
        const path = `/v1/tools/${pathSegment(String(call.name))}`;
        const rest = (body: string | undefined, extra: Partial<Case> = {}): Case => ({
          mode: 'rest',
          kind: how,
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json' },
          body,
          ...extra,
        });
        switch (how) {
          case 'call':
            return rest(JSON.stringify(call.arguments));
          case 'pollute': {
            const args = (call.arguments && typeof call.arguments === 'object' ? call.arguments : {}) as Obj;
            pollute(args, rng.pick(['__proto__', 'constructor', 'prototype']));
            return rest(JSON.stringify(args));
          }
          case 'garbage':
            return rest(legacy.next().text.slice(0, rng.int(100)));
          case 'deep':
            return rest(
              rng.chance(0.5)
                ? deepJson(rng.range(65, MAX_GARBAGE_DEPTH))
                : `{"text":${'['.repeat(rng.range(65, MAX_GARBAGE_DEPTH))}`,
            );
          case 'not-an-object':
            return rest(rng.pick(['[]', '[{}]', '1', '"text"', 'null', 'true', '1e999']));
          case 'odd-name': {
            const name = rng.pick([
              '%',
              '%E0%A4%A',
              '..%2F..%2Fmcp',
              '__proto__',
              'constructor',
              'toString',
              'a'.repeat(rng.range(100, 4000)),
              pathSegment(legacy.string()),
            ]);
            return rest('{}', { path: `/v1/tools/${name}` });
          }
          case 'list':
            return rest(undefined, { method: 'GET', path: '/v1/tools', headers: {} });
          case 'get-tool':
            return rest(undefined, { method: 'GET', headers: {} });
          default:
            // One fault at a time: a target over Node's 16 KiB header limit is refused (431) and the socket closed
            // while the body is still being sent, which fetch reports as a failed request, not a 413; an empty tool
            // name is no route at all (`POST /v1/tools/`: 404, its body never read).
            return rest(oversized(), {
              path: path.length > 1024 || path === '/v1/tools/' ? '/v1/tools/oversize' : path,
              streamed: rng.chance(0.5),
              status: 413,
            });
        }
      };

      // Raw HTTP: targets, methods and bodies no client library would send.
      const rawCase = (): Case => {
        const how = rng.weighted<string>([
          [10, 'odd-target'],
          [10, 'garbage'],
          [5, 'deep'],
          [2, 'empty'],
          [2, 'no-content-type'],
          [2, 'get-no-session'],
          [2, 'get-bogus-session'],
          [2, 'delete-bogus-session'],
          [2, 'put'],
          [1, 'new-session'],
          [1, 'oversize'],
        ]);
        const raw = (
          method: string,
          headers: Record<string, string>,
          body?: string,
          extra: Partial<Case> = {},
        ): Case => ({
          mode: 'raw',
          kind: how,
          method,
          path: '/mcp',
          headers,
          body,
          ...extra,
        });
        switch (how) {
          case 'odd-target': {
            const [method, target] = rng.pick<[string, string]>([
              ['GET', '//'],
              ['GET', '//x'],
              ['POST', '//x/mcp'],
              ['GET', '///v1/tools'],
              ['GET', '/mcp/../v1/tools'],
              ['GET', '/v1//tools'],
              ['POST', '/v1/tools/fixture__echo/'],
              ['GET', '/%'],
              ['GET', '/%00'],
              ['GET', `/healthz?${'q'.repeat(rng.range(10, 8_000))}`],
              ['GET', `/${'a'.repeat(rng.range(1_000, 12_000))}`],
              ['GET', 'http://evil.example/v1/tools'],
              ['POST', 'http://evil.example/mcp'],
              ['GET', `${base}/v1/tools`],
              ['GET', `HTTP://${new URL(base).host}/healthz`],
              ['OPTIONS', '*'],
              ['GET', '*'],
            ]);
            return raw(method, method === 'POST' ? jsonHeaders : {}, method === 'POST' ? '{}' : undefined, {
              path: target,
            });
          }
          case 'garbage':
            return raw('POST', jsonHeaders, legacy.next().text.slice(0, rng.int(200)) + legacy.string());
          case 'deep': {
            const depth = rng.range(65, MAX_GARBAGE_DEPTH);
            const body = `{"jsonrpc":"2.0","id":${rng.int(1e6)},"method":"ping","params":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
            return raw('POST', rng.chance(0.5) ? jsonHeaders : sessionHeaders, body);
          }
          case 'empty':
            return raw('POST', jsonHeaders, '');
          case 'no-content-type':
            return raw(
              'POST',
              { accept: jsonHeaders.accept },
              JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
            );
          case 'get-no-session':
            return raw('GET', { accept: 'text/event-stream' });
          case 'get-bogus-session':
            return raw('GET', { accept: 'text/event-stream', 'mcp-session-id': randomUUID() });
          case 'delete-bogus-session':
            return raw('DELETE', { 'mcp-session-id': randomUUID() });
          case 'put':
            return raw('PUT', jsonHeaders, '{}');
          case 'new-session':
            sessionsOpened++;
            return raw(
              'POST',
              jsonHeaders,
              JSON.stringify({
                jsonrpc: '2.0',
                id: `new-session-${sessionsOpened}`,
                method: 'initialize',
                params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'f', version: '1' } },
              }),
            );
          default:
            return raw('POST', jsonHeaders, oversized(), { streamed: rng.chance(0.5), status: 413 });
        }
      };

      // Exactly PER_FACE requests per face and RAW_COUNT raw ones, interleaved in a seeded order.
      const cases: Case[] = [
        ...Array.from({ length: PER_FACE }, sessionCase),
        ...Array.from({ length: PER_FACE }, statelessCase),
        ...Array.from({ length: PER_FACE }, restCase),
        ...Array.from({ length: RAW_COUNT }, rawCase),
      ];
      for (let i = cases.length - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        [cases[i], cases[j]] = [cases[j], cases[i]];
      }

      const statuses = new Map<string, number>();
      const kinds = new Map<string, number>();
      let required = 0;
      let answered = 0;
      let rejected4xx = 0;
      let oversizeRefused = 0;
      let sessionLost = 0;
      const send = async (c: Case): Promise<{ status: number; type: string; text: string }> => {
        // fetch() normalises request targets: the odd ones go out through node:http exactly as written.
        if (!c.path.startsWith('/') || c.path.startsWith('//') || c.path.includes('/../') || c.path.startsWith('/%'))
          return rawHttp(base, {
            method: c.method,
            target: c.path,
            headers: c.headers,
            body: c.body,
            timeoutMs: HANG_MS,
          });
        const body =
          c.streamed && c.body !== undefined
            ? new ReadableStream({
                start(controller) {
                  controller.enqueue(new TextEncoder().encode(c.body));
                  controller.close();
                },
              })
            : c.body;
        const res = await fetch(`${base}${c.path}`, {
          method: c.method,
          headers: c.headers,
          body,
          signal: AbortSignal.timeout(HANG_MS),
          ...(c.streamed ? { duplex: 'half' } : {}),
        } as RequestInit);
        return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
      };
      const check = async (c: Case) => {
        const owed =
          c.path === '/mcp' && c.method === 'POST' && c.body !== undefined && c.status === undefined
            ? httpObligations(c.body)
            : undefined;
        const wanted = owed?.required ?? [];
        required += wanted.length;
        tally(kinds, `${c.mode}:${c.kind.replace(/\(.*$/, '').split(/[:|]/)[0]}`);
        const describeCase = () =>
          `${c.method} ${short(c.path, 100)} ${c.kind} ${JSON.stringify(c.headers)} body=${short(c.body ?? '', 300)}`;
        let res: { status: number; type: string; text: string };
        try {
          res = await send(c);
        } catch (err) {
          problems.add(`request failed (${(err as Error).name}: ${(err as Error).message})`, describeCase());
          return;
        }
        const { status, type, text } = res;
        tally(statuses, `${c.mode}:${status}`);
        if (STACK_TRACE.test(text)) problems.add('stack trace in an answer', `${describeCase()} → ${short(text, 600)}`);
        if (c.status !== undefined) {
          if (status === c.status) oversizeRefused++;
          else problems.add(`HTTP ${status} instead of ${c.status}`, `${describeCase()} → ${short(text, 300)}`);
          return;
        }
        if (status >= 500) {
          // Policy answers, not faults: a circuit the fuzz opened (fixture__boom) and a call past its time limit.
          const justified =
            c.mode === 'rest' && /"code":"(UNAVAILABLE|TIMEOUT)"/.test(text) && [503, 504].includes(status);
          if (!justified) problems.add(`HTTP ${status}`, `${describeCase()} → ${short(text, 400)}`);
          return;
        }
        if (c.path !== '/mcp') return;
        if (c.mode === 'session' && status === 404 && c.headers['mcp-session-id'] === sessionId) sessionLost++;
        let messages: any[] = [];
        try {
          if (type.includes('text/event-stream')) messages = sseMessages(text);
          else if (text !== '') {
            const parsed = JSON.parse(text);
            messages = Array.isArray(parsed) ? parsed : [parsed];
          }
        } catch {
          problems.add(`unparsable ${status} ${type} body`, `${describeCase()} → ${short(text)}`);
          return;
        }
        // Node's HTTP parser refuses headers over 16 KiB (a huge Mcp-Name) before any handler runs: no body to judge.
        if (status === 431) return;
        if (status >= 400) {
          rejected4xx++;
          const error = messages[0];
          const ok =
            messages.length === 1 &&
            error?.jsonrpc === '2.0' &&
            typeof error.error?.code === 'number' &&
            typeof error.error?.message === 'string';
          if (!ok && c.method === 'POST')
            problems.add(`${status} without a JSON-RPC error`, `${describeCase()} → ${short(text)}`);
          // One error for the whole body: it names the request's id, an id the body carries, or null.
          const named = error?.id === null ? undefined : idKey(error?.id);
          const fits =
            wanted.length === 1
              ? named === idKey(wanted[0])
              : (owed?.mentioned ?? []).some((id) => idKey(id) === named);
          if (ok && named !== undefined && !fits)
            problems.add('error answers another id', `${describeCase()} → ${short(text)}`);
          return;
        }
        if (wanted.length === 0) return;
        if (status !== 200) {
          problems.add(`request answered ${status} without a response`, `${describeCase()} → ${short(text)}`);
          return;
        }
        for (const want of wanted) {
          const n = messages.filter((m) => m && ('result' in m || 'error' in m) && idKey(m.id) === idKey(want)).length;
          if (n !== 1)
            problems.add(`request got ${n} responses`, `${idKey(want)} in ${describeCase()} → ${short(text)}`);
          else answered++;
        }
      };

      let next = 0;
      await Promise.all(
        Array.from({ length: HTTP_CONCURRENCY }, async () => {
          while (next < cases.length && server.child.exitCode === null) await check(cases[next++]);
        }),
      );

      // Still alive and answering a valid call correctly on every face; the session survived; memory bounded.
      const alive = server.child.exitCode === null && server.child.signalCode === null;
      const health = await fetch(`${base}/healthz`).then((r) => r.status, String);
      // A failed attempt (the server died) becomes its error text: the assertions below say what went wrong.
      const failed = (err: unknown) => ({ failed: String(err) }) as any;
      const sessionCall = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: sessionHeaders,
        body: JSON.stringify({ jsonrpc: '2.0', id: 'after-fuzz', method: 'tools/call', params: AFTER_FUZZ }),
      }).then(async (r) => {
        const text = await r.text();
        const messages = r.headers.get('content-type')?.includes('text/event-stream')
          ? sseMessages(text)
          : [JSON.parse(text)];
        return messages.find((m: any) => m?.id === 'after-fuzz') as any;
      }, failed);
      const statelessCall = await rpc2026(base, 'tools/call', AFTER_FUZZ).catch(failed);
      const restCall = await fetch(`${base}/v1/tools/${AFTER_FUZZ.name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(AFTER_FUZZ.arguments),
      }).then(async (r) => ({ status: r.status, body: await r.json() }), failed);
      const found = stderrFindings(server.stderr());
      for (const line of found.errors) problems.add('error on stderr', short(line, 1000));
      const rssEnd = alive ? rssMb(pid) : Number.NaN;
      const serverCpu = alive ? cpuSeconds(pid) : Number.NaN;
      const heapEnd = alive ? await memoryAfterGc(pid, heapFile) : undefined;
      sampler.stop();

      const report = {
        seed: SEED,
        requests: cases.length,
        requiredRequests: required,
        answered,
        rejected4xx,
        oversizeRefused,
        stderrKb: Math.round(Buffer.byteLength(server.stderr()) / 1024),
        nodeWarnings: found.warnings,
        sessionsOpened,
        sessionLost,
        rssBaselineMb: Math.round(rssBaseline),
        rssEndMb: Math.round(rssEnd),
        rssMaxMb: Math.round(sampler.max()),
        afterGcBaselineMb: heapBaseline,
        afterGcEndMb: heapEnd,
        seconds: (Date.now() - started) / 1000,
        ...cpuReport(serverCpu, clientCpu),
        statuses: top(statuses, 40),
        kinds: top(kinds, 30),
      };
      console.log('http fuzz', JSON.stringify(report));

      expect(alive, `the server died; stderr tail: ${server.stderr().slice(-3000)}`).toBe(true);
      expect(health).toBe(200);
      expect(sessionCall?.result?.structuredContent).toMatchObject(AFTER_FUZZ_RESULT);
      expect(statelessCall.status).toBe(200);
      expect(statelessCall.message?.result?.structuredContent).toMatchObject(AFTER_FUZZ_RESULT);
      expect(restCall).toMatchObject({ status: 200, body: AFTER_FUZZ_RESULT });
      expect(heapEnd?.inherited, 'keys polluting Object.prototype or Array.prototype').toEqual([]);
      expect(problems.list(), `seed ${SEED}`).toEqual([]);
      expect(sessionLost).toBe(0);
      expect(oversizeRefused).toBeGreaterThan(0);
      expect(required).toBeGreaterThan(PER_FACE / 2);
      expect(rssEnd).toBeLessThan(rssBaseline * RSS_GROWTH);
      expect(rssEnd).toBeLessThan(RSS_CAP_MB);
      expect(heapEnd!.heapUsed).toBeLessThan(heapBaseline!.heapUsed * HEAP_GROWTH);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
