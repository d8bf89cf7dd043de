// What the server owes for a fuzz message, judged the way the SDK reads it, plus small wire helpers
// (SSE parsing, Mcp-Name encoding, stack traces in answers, a process's resident memory and prototypes).
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { deserializeMessage, isJSONRPCRequest } from '@modelcontextprotocol/server';

export type Id = string | number;

/** A map key that keeps `1` and `"1"` apart, as JSON-RPC does. */
export const idKey = (id: unknown): string => JSON.stringify(id);

/** A JSON-RPC 2.0 request by the letter of that spec: the SDK is stricter (integer ids, no extra members). */
export function isJsonRpcShapedRequest(v: unknown): v is { id: Id; method: string } {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const m = v as Record<string, unknown>;
  const idOk = typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id));
  return m.jsonrpc === '2.0' && typeof m.method === 'string' && idOk;
}

export interface Obligations {
  /** Ids of requests the SDK parses as requests: each must be answered exactly once. */
  required: Id[];
  /** Ids of JSON-RPC-shaped requests the SDK refuses to parse (it drops them silently on stdio). */
  shapedOnly: Id[];
  /** Every string or number id that appears at the top of a JSON value sent (a response may only name these). */
  mentioned: Id[];
}

function collect(parsed: unknown, into: Id[]): void {
  for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
      const id = (item as { id?: unknown }).id;
      if (typeof id === 'string' || typeof id === 'number') into.push(id);
    }
  }
}

/**
 * Judge one JSON text the way the SDK does (`deserializeMessage` is exactly what its stdio ReadBuffer calls).
 * With `batches`, each request of a JSON array is owed its own response (the 2025 HTTP transport answers
 * batches; the stdio ReadBuffer drops a whole array unanswered).
 */
function judge(text: string, out: Obligations, batches = false): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return;
  }
  collect(parsed, out.mentioned);
  if (batches && Array.isArray(parsed)) {
    for (const item of parsed) if (isJSONRPCRequest(item)) out.required.push(item.id);
    return;
  }
  let message: unknown;
  try {
    message = deserializeMessage(text);
  } catch {
    // Switchboard answers these -32600 when the id is a string or a safe integer (the ids a client can match).
    if (isJsonRpcShapedRequest(parsed) && (typeof parsed.id === 'string' || Number.isSafeInteger(parsed.id)))
      out.shapedOnly.push(parsed.id);
    return;
  }
  if (isJSONRPCRequest(message)) out.required.push(message.id);
}

/**
 * What the server owes for text written to its stdin: split into lines as the SDK's ReadBuffer does (on `\n`,
 * dropping one trailing `\r`), after the UTF-8 round trip the pipe imposes (lone surrogates become U+FFFD).
 */
export function stdioObligations(text: string): Obligations {
  const out: Obligations = { required: [], shapedOnly: [], mentioned: [] };
  for (const line of Buffer.from(text, 'utf8').toString('utf8').split('\n')) judge(line.replace(/\r$/, ''), out);
  return out;
}

/** What the server owes for one HTTP body: a response per request, batches included (or a 4xx JSON-RPC error). */
export function httpObligations(body: string): Obligations {
  const out: Obligations = { required: [], shapedOnly: [], mentioned: [] };
  judge(Buffer.from(body, 'utf8').toString('utf8'), out, true);
  return out;
}

/**
 * A stack trace or a source location in an answer: a frame (`\n    at f (…)`, also JSON-escaped), a Node internal
 * module, or a file with line number (`x.ts:12`). Answers name no code locations, whatever went wrong — but for the
 * user's own file that failed to load, which `system.health` names with its line by design (the fixture handlers'
 * `broken.ts`, broken on purpose).
 */
export const STACK_TRACE = /(?:\n|\\n)\s+at [\w<.[]|node:internal|(?<!handlers\/broken)\.[cm]?[jt]s:\d+/;

/** The JSON messages of a text/event-stream body (events without data, like the priming event, are skipped). */
export function sseMessages(body: string): unknown[] {
  const messages: unknown[] = [];
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data.trim() !== '') messages.push(JSON.parse(data));
  }
  return messages;
}

/**
 * One HTTP request with its target exactly as given (`//`, `*`, `http://evil/x`: fetch() would normalise or refuse
 * these), on a connection of its own. Answers the status, content type and body text.
 */
export function rawHttp(
  base: string,
  opts: { method: string; target: string; headers?: Record<string, string>; body?: string; timeoutMs: number },
): Promise<{ status: number; type: string; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: opts.method,
        path: opts.target,
        headers: opts.headers,
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? '', text }));
        res.on('error', reject);
      },
    );
    req.setTimeout(opts.timeoutMs, () => req.destroy(new Error(`no answer in ${opts.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Encode a value for `Mcp-Name` / `Mcp-Param-*` the way the SDK client does (base64 sentinel when needed). */
export function encodeHeaderValue(value: string): string {
  let plain = value.length > 0 && value === value.trim() && !(value.startsWith('=?base64?') && value.endsWith('?='));
  for (let i = 0; plain && i < value.length; i++) {
    const c = value.charCodeAt(i);
    plain = c === 9 || (c >= 32 && c <= 126);
  }
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** Resident set size of a process in MB, from /proc (Linux). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1]);
  return kb / 1024;
}

/** CPU time a process has used so far (user + system), in seconds, from /proc (Linux, 100 ticks a second). */
export function cpuSeconds(pid: number): number {
  // The fields after the command name (which may hold spaces, so split after its closing parenthesis).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Sample a process's RSS every `everyMs` and keep the maximum (stops quietly when the process is gone). */
export function rssSampler(pid: number, everyMs = 200): { max: () => number; stop: () => void } {
  let max = 0;
  const sample = () => {
    try {
      max = Math.max(max, rssMb(pid));
    } catch {}
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return { max: () => max, stop: () => clearInterval(timer) };
}

/** Environment that preloads the heap probe into a child (see heap-probe.mjs); `file` receives its reports. */
export function heapProbeEnv(file: string): Record<string, string> {
  const probe = fileURLToPath(new URL('./heap-probe.mjs', import.meta.url));
  const inherited = process.env.NODE_OPTIONS ? `${process.env.NODE_OPTIONS} ` : '';
  return { NODE_OPTIONS: `${inherited}--expose-gc --import=${JSON.stringify(probe)}`, FUZZ_HEAP_FILE: file };
}

/**
 * Memory of a child started with {@link heapProbeEnv} after a full GC, in MB, and the enumerable keys its plain
 * objects and arrays inherit (any at all means its prototypes were polluted). Undefined if it does not answer.
 */
export async function memoryAfterGc(
  pid: number,
  file: string,
  timeoutMs = 5_000,
): Promise<{ heapUsed: number; heapTotal: number; external: number; rss: number; inherited: string[] } | undefined> {
  const asked = Date.now();
  process.kill(pid, 'SIGUSR2');
  while (Date.now() - asked < timeoutMs) {
    await new Promise((r) => setTimeout(r, 25));
    try {
      const report = JSON.parse(readFileSync(file, 'utf8')) as NodeJS.MemoryUsage & { at: number; inherited: string[] };
      if (report.at < asked) continue;
      const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;
      return {
        heapUsed: mb(report.heapUsed),
        heapTotal: mb(report.heapTotal),
        external: mb(report.external),
        rss: mb(report.rss),
        inherited: report.inherited,
      };
    } catch {}
  }
  return undefined;
}
