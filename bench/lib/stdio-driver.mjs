// A lean newline-JSON MCP client for load over stdio: it spawns the server, does the 2025-11-25 handshake
// by hand (exactly what the SDK client sends), then fires tools/call requests and checks every answer.
// Lean on purpose — the SDK client in this process would otherwise be the bottleneck, not the server.
import { spawn } from 'node:child_process';
import { withTimeout } from './stats.mjs';

export class StdioDriver {
  /** @param {{ command: string, args: string[], env?: Record<string,string>, cwd?: string, tool: string }} opts */
  constructor(opts) {
    this.tool = opts.tool;
    this.child = spawn(opts.command, opts.args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.child.stderr.on('data', (d) => {
      if (this.stderr.length < 20_000) this.stderr += d;
    });
    this.pending = new Map();
    this.nextId = 1;
    this.bad = 0;
    this.firstBad = undefined;
    let buf = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk) => {
      buf += chunk;
      let nl = buf.indexOf('\n');
      while (nl !== -1) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) this.#onMessage(line);
        nl = buf.indexOf('\n');
      }
    });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    this.exited.then(() => {
      for (const p of this.pending.values()) p.reject(new Error(`server exited; stderr: ${this.stderr.slice(-2000)}`));
      this.pending.clear();
    });
  }

  get pid() {
    return this.child.pid;
  }

  #onMessage(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return; // not protocol (should not happen: stdout belongs to the protocol)
    }
    if (msg.id === undefined || msg.id === null || !('result' in msg || 'error' in msg)) return; // notification or server request
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    p.resolve(msg);
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method, params) {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) })}\n`);
  }

  /** The 2025-11-25 handshake the SDK client performs by default. */
  async initialize() {
    const res = await withTimeout(
      this.request('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'switchboard-bench', version: '1.0.0' },
      }),
      20_000,
      'initialize',
    );
    if (!res.result)
      throw new Error(`initialize failed: ${JSON.stringify(res.error)}; stderr: ${this.stderr.slice(-2000)}`);
    this.notify('notifications/initialized');
    return res.result;
  }

  /** One echo call; counts (does not throw on) a wrong or error answer. */
  async call(n) {
    const text = `hello ${n}`;
    const res = await this.request('tools/call', { name: this.tool, arguments: { text } });
    const ok = res.result && !res.result.isError && res.result.structuredContent?.text === text;
    if (!ok) {
      this.bad++;
      this.firstBad ??= JSON.stringify(res).slice(0, 400);
    }
    return ok;
  }

  /** `count` calls one after another; returns per-call latencies in ms. Bounded by `maxMs`. */
  async sequential(count, maxMs) {
    const lat = new Float64Array(count);
    const deadline = performance.now() + maxMs;
    let i = 0;
    for (; i < count && performance.now() < deadline; i++) {
      const t0 = performance.now();
      await withTimeout(this.call(i), 10_000, 'tools/call');
      lat[i] = performance.now() - t0;
    }
    return lat.subarray(0, i);
  }

  /** `total` calls with `inflight` outstanding at any time; returns { done, ms }. Bounded by `maxMs`. */
  async concurrent(total, inflight, maxMs) {
    let issued = 0;
    let done = 0;
    const t0 = performance.now();
    const deadline = t0 + maxMs;
    const worker = async () => {
      while (issued < total && performance.now() < deadline) {
        const n = issued++;
        await this.call(n);
        done++;
      }
    };
    await withTimeout(Promise.all(Array.from({ length: inflight }, worker)), maxMs + 10_000, 'concurrent run');
    return { done, ms: performance.now() - t0 };
  }

  /** Close stdin (the stdio way to say goodbye); kill if the server does not exit promptly. */
  async close() {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin.end();
    const t = setTimeout(() => this.child.kill('SIGTERM'), 3_000);
    const t2 = setTimeout(() => this.child.kill('SIGKILL'), 6_000);
    await this.exited;
    clearTimeout(t);
    clearTimeout(t2);
  }
}
