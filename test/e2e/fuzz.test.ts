// Fuzz: thousands of seeded random, mutated and garbage JSON-RPC messages against the built CLI over stdio and
// over HTTP (a 2025 session, 2026-07-28 stateless requests, raw garbage, REST). The server must never die, must
// answer every request it can parse exactly once, must never write a non-JSON line to stdout or answer 5xx, and
// must keep its memory bounded. Replay a failing run with FUZZ_SEED=<seed> (printed at the start).
//
// "Can parse" is the SDK's own judgement (test/fuzz/oracle.ts). What it does with the rest, pinned here as found:
// - invalid JSON lines on stdio cannot be answered (no id to name) and are skipped;
// - JSON-RPC-shaped requests the SDK's schema refuses (an extra member, a fractional or unsafe-integer id, array
//   params, a malformed _meta) are answered -32600 with their id: by Switchboard's stdio transport on stdio (the
//   SDK's own drops them), and 400 / -32600 over HTTP;
// - batch arrays are dropped whole on stdio, answered request by request in a 2025 HTTP session, and refused
//   with 400 / -32600 on 2026-07-28 (no batches with requests).
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LEGACY_VERSION, MessageGenerator, MODERN_VERSION, modernEnvelope } from '../fuzz/messages.ts';
import {
  encodeHeaderValue,
  heapProbeEnv,
  httpObligations,
  type Id,
  idKey,
  memoryAfterGc,
  rssMb,
  rssSampler,
  sseMessages,
  stdioObligations,
} from '../fuzz/oracle.ts';
import { fuzzSeed, Rng } from '../fuzz/rng.ts';
import { BIN, childEnv, FIXTURE_HANDLERS, startHttpServer, tempProject } from '../helpers/cli.ts';

const SEED = fuzzSeed();
const STDIO_COUNT = Number(process.env.FUZZ_STDIO_COUNT ?? 5_000);
const HTTP_COUNT = Number(process.env.FUZZ_HTTP_COUNT ?? 5_000);
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
/** Largest generated string: well inside the 4 MiB HTTP body limit and the SDK's 10 MiB stdio line buffer. */
const HUGE_STRING = 256_000;
/** Deepest generated nesting: past the HTTP depth limit (64) and past where recursive code would blow its stack. */
const MAX_GARBAGE_DEPTH = 20_000;

console.log(`fuzz seed ${SEED} (replay with FUZZ_SEED=${SEED})`);

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
const short = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

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
    const onLine = (line: string) => {
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

    // Still alive, still answering, memory bounded.
    await request('final-ping', 'ping');
    await waitBelow(1, Date.now() + 10_000);
    const alive = child.exitCode === null && child.signalCode === null;
    const rssEnd = alive ? rssMb(child.pid!) : Number.NaN;
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
      kinds: top(kinds),
    };
    console.log('stdio fuzz', JSON.stringify(report));

    expect(alive, `the server died; stderr tail: ${stderr.slice(-3000)}`).toBe(true);
    expect(answers.get(idKey('final-ping'))).toBe(1);
    expect(problems.list(), `seed ${SEED}`).toEqual([]);
    expect(required).toBeGreaterThan(STDIO_COUNT / 3);
    expect(rssEnd).toBeLessThan(rssBaseline * RSS_GROWTH);
    expect(rssEnd).toBeLessThan(RSS_CAP_MB);
    expect(heapEnd!.heapUsed).toBeLessThan(heapBaseline!.heapUsed * HEAP_GROWTH);
  }, 120_000);

  it(`http: ${HTTP_COUNT} random and mutated requests (2025 session, 2026 stateless, garbage, REST); no 5xx, every parsable request answered`, async () => {
    const started = Date.now();
    const problems = new Problems();
    const dir = tempProject();
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
        mode: string;
        kind: string;
        method: string;
        path: string;
        headers: Record<string, string>;
        body?: string;
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
      const restTools = ['fixture__echo', 'fixture__boom', 'task__create', 'task__get', 'system__health', 'nope__x'];
      let sessionsOpened = 0;

      const makeCase = (): Case => {
        const mode = rng.weighted<string>([
          [40, 'session'],
          [40, 'stateless'],
          [10, 'raw'],
          [10, 'rest'],
        ]);
        if (mode === 'session') {
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
          return { mode, kind, method: 'POST', path: '/mcp', headers, body: m.text };
        }
        if (mode === 'stateless') {
          const m = modern.next();
          const headers: Record<string, string> = { ...jsonHeaders, 'mcp-protocol-version': MODERN_VERSION };
          if (m.method !== undefined) headers['mcp-method'] = encodeHeaderValue(m.method);
          if (m.name !== undefined && ['tools/call', 'prompts/get', 'resources/read'].includes(m.method ?? ''))
            headers['mcp-name'] = encodeHeaderValue(m.name);
          let kind = m.kind;
          if (rng.chance(0.08)) {
            const how = rng.pick([
              'no-method',
              'wrong-method',
              'wrong-name',
              'legacy-version',
              'session',
              'no-version',
            ]);
            if (how === 'no-method') delete headers['mcp-method'];
            if (how === 'wrong-method') headers['mcp-method'] = 'tools/list';
            if (how === 'wrong-name') headers['mcp-name'] = 'fixture__echo';
            if (how === 'legacy-version') headers['mcp-protocol-version'] = LEGACY_VERSION;
            if (how === 'session') headers['mcp-session-id'] = randomUUID();
            if (how === 'no-version') delete headers['mcp-protocol-version'];
            kind += `|header:${how}`;
          }
          return { mode, kind, method: 'POST', path: '/mcp', headers, body: m.text };
        }
        if (mode === 'raw') {
          const how = rng.weighted<string>([
            [20, 'garbage'],
            [10, 'deep'],
            [4, 'empty'],
            [4, 'no-content-type'],
            [4, 'get-no-session'],
            [4, 'get-bogus-session'],
            [4, 'delete-bogus-session'],
            [4, 'put'],
            [2, 'new-session'],
            [0.3, 'oversize'],
          ]);
          const depth = rng.range(65, MAX_GARBAGE_DEPTH);
          const deepBody = `{"jsonrpc":"2.0","id":${rng.int(1e6)},"method":"ping","params":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
          const raw = (method: string, headers: Record<string, string>, body?: string): Case => ({
            mode,
            kind: `raw:${how}`,
            method,
            path: '/mcp',
            headers,
            body,
          });
          switch (how) {
            case 'garbage':
              return raw('POST', jsonHeaders, legacy.next().text.slice(0, rng.int(200)) + legacy.string());
            case 'deep':
              return raw('POST', rng.chance(0.5) ? jsonHeaders : sessionHeaders, deepBody);
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
                  params: {
                    protocolVersion: LEGACY_VERSION,
                    capabilities: {},
                    clientInfo: { name: 'f', version: '1' },
                  },
                }),
              );
            default:
              return raw(
                'POST',
                jsonHeaders,
                `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${'x'.repeat(4 * 1024 * 1024)}"}}`,
              );
          }
        }
        // REST: the same body bounds and pipeline behind a different face.
        const tool = rng.pick(restTools);
        const how = rng.weighted<string>([
          [10, 'call'],
          [3, 'garbage'],
          [2, 'deep'],
          [1, 'list'],
          [1, 'get-tool'],
        ]);
        if (how === 'list') return { mode, kind: 'rest:list', method: 'GET', path: '/v1/tools', headers: {} };
        if (how === 'get-tool')
          return { mode, kind: 'rest:get', method: 'GET', path: `/v1/tools/${tool}`, headers: {} };
        const body =
          how === 'call'
            ? JSON.stringify(rng.chance(0.7) ? { text: legacy.string(), id: legacy.string() } : legacy.value(3))
            : how === 'deep'
              ? `{"text":${'['.repeat(rng.range(65, MAX_GARBAGE_DEPTH))}`
              : legacy.next().text.slice(0, rng.int(100));
        return {
          mode,
          kind: `rest:${how}`,
          method: 'POST',
          path: `/v1/tools/${tool}`,
          headers: { 'content-type': 'application/json' },
          body,
        };
      };
      const cases = Array.from({ length: HTTP_COUNT }, makeCase);

      const statuses = new Map<string, number>();
      const kinds = new Map<string, number>();
      let required = 0;
      let answered = 0;
      let rejected4xx = 0;
      let sessionLost = 0;
      const check = async (c: Case) => {
        const owed =
          c.path === '/mcp' && c.method === 'POST' && c.body !== undefined ? httpObligations(c.body) : undefined;
        const wanted = owed?.required ?? [];
        required += wanted.length;
        tally(kinds, `${c.mode}:${c.kind.replace(/\(.*$/, '').split(/[:|]/)[0]}`);
        const describeCase = () =>
          `${c.method} ${c.path} ${c.kind} ${JSON.stringify(c.headers)} body=${short(c.body ?? '', 300)}`;
        let res: Response;
        let text: string;
        try {
          res = await fetch(`${base}${c.path}`, {
            method: c.method,
            headers: c.headers,
            body: c.body,
            signal: AbortSignal.timeout(HANG_MS),
          });
          text = await res.text();
        } catch (err) {
          problems.add(`request failed (${(err as Error).name}: ${(err as Error).message})`, describeCase());
          return;
        }
        tally(statuses, `${c.mode}:${res.status}`);
        if (res.status >= 500) {
          const justified =
            c.mode === 'rest' && /"code":"(UNAVAILABLE|TIMEOUT)"/.test(text) && [503, 504].includes(res.status);
          if (!justified) problems.add(`HTTP ${res.status}`, `${describeCase()} → ${short(text, 400)}`);
          return;
        }
        if (c.path !== '/mcp') return;
        if (c.mode === 'session' && res.status === 404 && c.headers['mcp-session-id'] === sessionId) sessionLost++;
        const type = res.headers.get('content-type') ?? '';
        let messages: any[] = [];
        try {
          if (type.includes('text/event-stream')) messages = sseMessages(text);
          else if (text !== '') {
            const parsed = JSON.parse(text);
            messages = Array.isArray(parsed) ? parsed : [parsed];
          }
        } catch {
          problems.add(`unparsable ${res.status} ${type} body`, `${describeCase()} → ${short(text)}`);
          return;
        }
        // Node's HTTP parser refuses headers over 16 KiB (a huge Mcp-Name) before any handler runs: no body to judge.
        if (res.status === 431) return;
        if (res.status >= 400) {
          rejected4xx++;
          const error = messages[0];
          const ok =
            messages.length === 1 &&
            error?.jsonrpc === '2.0' &&
            typeof error.error?.code === 'number' &&
            typeof error.error?.message === 'string';
          if (!ok && c.method === 'POST')
            problems.add(`${res.status} without a JSON-RPC error`, `${describeCase()} → ${short(text)}`);
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
        if (res.status !== 200) {
          problems.add(`request answered ${res.status} without a response`, `${describeCase()} → ${short(text)}`);
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

      // Still alive and serving all three faces; the session survived; memory bounded.
      const alive = server.child.exitCode === null && server.child.signalCode === null;
      const health = await fetch(`${base}/healthz`).then((r) => r.status, String);
      const ping = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: sessionHeaders,
        body: JSON.stringify({ jsonrpc: '2.0', id: 'final-ping', method: 'ping' }),
      }).then(async (r) => `${r.status} ${await r.text()}`, String);
      const modernPing = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { ...jsonHeaders, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'final-modern',
          method: 'tools/list',
          params: { _meta: modernEnvelope() },
        }),
      }).then(async (r) => `${r.status} ${await r.text()}`, String);
      const found = stderrFindings(server.stderr());
      for (const line of found.errors) problems.add('error on stderr', short(line, 1000));
      const rssEnd = alive ? rssMb(pid) : Number.NaN;
      const heapEnd = alive ? await memoryAfterGc(pid, heapFile) : undefined;
      sampler.stop();

      const report = {
        seed: SEED,
        requests: cases.length,
        requiredRequests: required,
        answered,
        rejected4xx,
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
        statuses: top(statuses, 30),
        kinds: top(kinds, 20),
      };
      console.log('http fuzz', JSON.stringify(report));

      expect(alive, `the server died; stderr tail: ${server.stderr().slice(-3000)}`).toBe(true);
      expect(health).toBe(200);
      expect(ping).toMatch(/^200 .*"id":"final-ping"/s);
      expect(modernPing).toMatch(/^200 .*"id":"final-modern"/s);
      expect(problems.list(), `seed ${SEED}`).toEqual([]);
      expect(sessionLost).toBe(0);
      expect(required).toBeGreaterThan(HTTP_COUNT / 4);
      expect(rssEnd).toBeLessThan(rssBaseline * RSS_GROWTH);
      expect(rssEnd).toBeLessThan(RSS_CAP_MB);
      expect(heapEnd!.heapUsed).toBeLessThan(heapBaseline!.heapUsed * HEAP_GROWTH);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
