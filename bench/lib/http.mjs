// HTTP side of the benchmark: start a server child, capture what the official SDK client really sends for a
// tools/call (2026-07-28 stateless, or 2025-11-25 with a session), and replay it with autocannon — every
// response checked for status 200 and an echo result, so a run of error answers can never pass as a figure.
import { spawn } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import autocannon from 'autocannon';
import { withTimeout } from './stats.mjs';

// Colour codes in the banner (ESC [ … m), built from the char code to keep control characters out of the source.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** Spawn a server child and wait until its stdout names the http://127.0.0.1:PORT/mcp address. */
export async function startHttpChild(command, args, env, cwd) {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => {
    if (err.length < 20_000) err += d;
  });
  const url = await withTimeout(
    new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /(http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(out.replace(ANSI, ''));
        if (m) resolve(`${m[1]}/mcp`);
      });
      child.once('exit', (code) => reject(new Error(`server exited with ${code}; stderr: ${err.slice(-2000)}`)));
    }),
    20_000,
    `start of ${args.join(' ')}`,
  );
  child.stdout.resume();
  const exited = new Promise((r) => child.once('exit', r));
  return {
    child,
    url,
    pid: child.pid,
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * Connect the official SDK client (2026-07-28 pinned for 'stateless', the default 2025-11-25 for 'session'),
 * call the tool once and capture the exact HTTP request it sent for tools/call. The client stays connected
 * (the session must outlive the load run); call `close()` afterwards.
 */
export async function captureSdkToolCall(url, tool, mode) {
  const captured = [];
  const capturingFetch = async (input, init) => {
    const res = await fetch(input, init);
    if (init?.method === 'POST' && typeof init.body === 'string' && init.body.includes('"tools/call"')) {
      captured.push({
        headers: Object.fromEntries(new Headers(init.headers).entries()),
        body: init.body,
        status: res.status,
      });
    }
    return res;
  };
  const options = mode === 'stateless' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {};
  const client = new Client({ name: 'switchboard-bench', version: '1.0.0' }, options);
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: capturingFetch });
  await withTimeout(client.connect(transport), 10_000, `SDK client connect (${mode})`);
  const result = await withTimeout(
    client.callTool({ name: tool, arguments: { text: 'bench' } }),
    10_000,
    `SDK tools/call (${mode})`,
  );
  const ok = !result.isError && result.structuredContent?.text === 'bench';
  if (!ok)
    throw new Error(`SDK ${mode} tools/call against ${url} did not succeed: ${JSON.stringify(result).slice(0, 500)}`);
  if (captured.length !== 1 || captured[0].status !== 200)
    throw new Error(`expected one captured tools/call with status 200, got ${JSON.stringify(captured)}`);
  const { headers, body } = captured[0];
  const era = client.getProtocolEra?.();
  return {
    headers,
    body,
    era,
    sessionId: transport.sessionId,
    async close() {
      if (mode === 'session') await transport.terminateSession?.().catch(() => {});
      await client.close().catch(() => {});
    },
  };
}

/**
 * Replay a captured tools/call with autocannon: `connections` keep-alive connections for `seconds`; each
 * request gets its own JSON-RPC id (a session must never see two in-flight requests with one id).
 * Every response is checked: status 200 and the echoed structuredContent, not an isError result.
 */
export async function loadTest(url, capture, { connections, seconds }) {
  const msg = JSON.parse(capture.body);
  delete msg.id;
  const prefix = `${JSON.stringify(msg).slice(0, -1)},"id":`;
  const headers = { ...capture.headers };
  delete headers['content-length'];
  delete headers.host;
  let id = 1_000_000;
  let ok = 0;
  let bad = 0;
  let firstBad;
  const expected = '"structuredContent":{"text":"bench"}';
  const instance = autocannon({
    url,
    connections,
    duration: seconds,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        headers,
        setupRequest: (req) => {
          req.body = `${prefix}${id++}}`;
          return req;
        },
        onResponse: (status, body) => {
          if (
            status === 200 &&
            body.includes(expected) &&
            !body.includes('"isError":true') &&
            !body.includes('"error":{')
          )
            ok++;
          else {
            bad++;
            firstBad ??= `${status} ${String(body).slice(0, 300)}`;
          }
        },
      },
    ],
  });
  const result = await withTimeout(instance, (seconds + 30) * 1000, 'autocannon run');
  const completed = ok + bad;
  return {
    rps: ok / (result.duration || seconds),
    completed,
    ok,
    bad,
    firstBad,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
    seconds: result.duration,
  };
}
