// Seeded generator of JSON-RPC traffic for the fuzz tests: valid MCP requests against the real catalog, the same
// requests mutated (fields dropped, renamed, retyped; bad and huge ids; huge, unicode and nested values;
// prototype-pollution keys in params, arguments and _meta), and raw garbage.
import type { Rng } from './rng.ts';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Obj = { [key: string]: Json };

export const LEGACY_VERSION = '2025-11-25';
export const MODERN_VERSION = '2026-07-28';

/** The 2026-07-28 per-request envelope, as the SDK client puts it in `params._meta`. */
export function modernEnvelope(): Obj {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
    'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
}

export interface GeneratorOptions {
  /** Which envelope valid requests carry: none (2025 session / stdio) or the 2026-07-28 `_meta` one. */
  era: 'legacy' | 'modern';
  /** Longest "huge" string value, in characters (keep it well under the transport's size limit). */
  hugeString: number;
  /** Deepest garbage nesting sent (past the server's depth limit on purpose, now and then). */
  maxGarbageDepth: number;
  /** Whether newlines delimit messages (stdio): then only the `split` mutation may put one in a message. */
  lineDelimited: boolean;
  /** Methods never generated (e.g. `subscriptions/listen`, which is a long-lived stream over HTTP). */
  excludeMethods?: readonly string[];
}

export interface FuzzMessage {
  /** The wire text: one stdio line (more when a mutation inserted newlines) or one HTTP body. */
  text: string;
  /** How it was made: `valid:tools/call`, `mutated:drop+unicode`, `|text:truncate`, `garbage:deep`… */
  kind: string;
  /** The JSON-RPC method before mutation, for the `Mcp-Method` header. */
  method?: string;
  /** The value the `Mcp-Name` header mirrors (tool or prompt name, resource URI), when a string. */
  name?: string;
}

/** Strings that have broken parsers, loggers, databases and terminals before. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  'héllo wörld',
  '日本語のテキスト',
  '😀🎉👩‍👩‍👧‍👦',
  '\u0000',
  'a\u0000b',
  '\u2028\u2029',
  '\u202eevil\u202c',
  '\ud800',
  '\udfff',
  'e\u0301\u0301\u0301',
  '\ufeff',
  '\\',
  '"',
  "'; DROP TABLE tasks; --",
  '${HOME}',
  '$(rm -rf /tmp/nothing)',
  '../../../../etc/passwd',
  '<script>alert(1)</script>',
  '%s%s%s%n',
  'null',
  '__proto__',
  'constructor',
  '\t\r\n\v\f',
  '\x1b[31mred\x1b[0m',
  '𝕳𝖊𝖑𝖑𝖔',
  'Ω≈ç√∫˜µ≤≥÷',
];

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];

/**
 * What the `pollute` mutation tries to put on `Object.prototype`: field names a later valid call reads when absent
 * (`task__create` defaults `priority` to 50; a polluted prototype would hand it 7), so pollution shows in results.
 */
export const POLLUTION: Obj = { polluted: 'yes', priority: 7, status: 'completed', isError: true, roles: ['*'] };

const WEIRD_METHODS = [
  ...PROTOTYPE_KEYS,
  '',
  ' ',
  'TOOLS/LIST',
  'tools/list ',
  'tools//call',
  'tools/call/extra',
  'rpc.discover',
  'notifications/cancelled',
  'notifications/initialized',
  'sampling/createMessage',
  'elicitation/create',
  'roots/list',
  'tasks/get',
  'tasks/list',
  'tasks/cancel',
  'server/discover',
  'subscriptions/listen',
  'initialize',
  '\u0000',
  '日本語/メソッド',
];

const TASK_STATUSES = ['pending', 'assigned', 'in_progress', 'completed', 'failed', 'bogus'];
const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency', 'verbose', ''];
const RESOURCE_URIS = [
  'switchboard://welcome',
  'switchboard://health',
  'switchboard://tools',
  'switchboard://events',
  'task://t-nope',
  'task://',
  'task://%00',
  'task://../../etc/passwd',
  'switchboard://nope',
  'file:///etc/passwd',
  'http://127.0.0.1:1/',
  '',
  '::::',
];

/** Stands for nesting too deep to build as a value; `next()` splices in {@link deepText} after serialising. */
const DEEP_MARKER = '__fuzz_deep__';

/** JSON text nesting `depth` levels, built as text (no recursion anywhere). */
export function deepText(depth: number): string {
  return depth % 2 === 0 ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Set a property as an own, enumerable key even when it is `__proto__` (plain assignment would not). */
function setKey(obj: Obj, key: string, value: Json): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

export class MessageGenerator {
  private seq = 0;
  private readonly excluded: Set<string>;

  constructor(
    private readonly rng: Rng,
    private readonly opts: GeneratorOptions,
  ) {
    this.excluded = new Set(opts.excludeMethods ?? []);
  }

  /** A valid JSON-RPC id never used before by this generator, in one of several shapes. */
  freshId(): string | number {
    const n = ++this.seq;
    const r = this.rng;
    return r.weighted<() => string | number>([
      [5, () => n],
      [1, () => -n],
      [3, () => `r-${n}`],
      [1, () => `ид-😀-${n}`],
      [1, () => Number.MAX_SAFE_INTEGER - n],
      [0.3, () => ` ${n} `],
      [0.2, () => `${'k'.repeat(r.int(300))}${n}`],
      [0.05, () => `${'h'.repeat(r.range(1_000, 20_000))}${n}`],
    ])();
  }

  /** The next message. */
  next(): FuzzMessage {
    const r = this.rng;
    const roll = r.next();
    if (roll < 0.05) return this.garbage();
    if (roll < 0.08) return this.batch();
    const msg = roll < 0.16 ? this.notification() : this.validRequest();
    const method = typeof msg.method === 'string' ? msg.method : undefined;
    const params = msg.params as Obj | undefined;
    const nameSource = method === 'resources/read' ? params?.uri : params?.name;
    const name = typeof nameSource === 'string' ? nameSource : undefined;
    let kind = `${'id' in msg ? 'valid' : 'notification'}:${method}`;
    if (r.chance(0.45)) {
      const id = msg.id;
      const applied: string[] = [];
      for (let i = r.range(1, 3); i > 0; i--) applied.push(this.mutate(msg));
      kind = `mutated:${applied.join('+')}(${method})`;
      // A mutation may turn the id into another valid one ('null', 0, '${HOME}'…): keep ids unique all the same.
      if (msg.id !== id && typeof msg.id === 'string') msg.id = `${msg.id}#${this.freshId()}`;
      else if (msg.id !== id && Number.isSafeInteger(msg.id)) msg.id = -++this.seq;
    }
    let text = JSON.stringify(msg).replace(new RegExp(`"${DEEP_MARKER}(\\d+)"`, 'g'), (_, n) => deepText(Number(n)));
    if (r.chance(0.1)) {
      const [mutated, how] = this.mutateText(text, msg);
      text = mutated;
      kind += `|text:${how}`;
    }
    return { text, kind, method, name };
  }

  // --- valid traffic -------------------------------------------------------------------------------------------

  private request(method: string, params?: Obj): Obj {
    const msg: Obj = { jsonrpc: '2.0', id: this.freshId(), method };
    const withEnvelope = this.opts.era === 'modern' ? !this.rng.chance(0.03) : this.rng.chance(0.03);
    if (withEnvelope) {
      const p: Obj = params ?? {};
      p._meta = { ...((p._meta as Obj | undefined) ?? {}), ...modernEnvelope() };
      msg.params = p;
    } else if (params !== undefined) msg.params = params;
    return msg;
  }

  private validRequest(): Obj {
    const r = this.rng;
    for (;;) {
      const method = r.weighted<string>([
        [35, 'tools/call'],
        [10, 'tools/list'],
        [10, 'ping'],
        [10, 'resources/read'],
        [4, 'resources/list'],
        [3, 'resources/templates/list'],
        [3, 'prompts/list'],
        [4, 'prompts/get'],
        [3, 'completion/complete'],
        [2, 'logging/setLevel'],
        [2, 'resources/subscribe'],
        [1, 'resources/unsubscribe'],
        [1, 'initialize'],
        [2, 'server/discover'],
        [1, 'subscriptions/listen'],
        [5, 'unknown'],
      ]);
      if (this.excluded.has(method)) continue;
      switch (method) {
        case 'tools/call':
          return this.request(method, this.toolCall());
        case 'tools/list':
        case 'resources/list':
        case 'resources/templates/list':
        case 'prompts/list':
          return this.request(method, r.chance(0.2) ? { cursor: this.string() } : undefined);
        case 'ping':
          return this.request(method, r.chance(0.2) ? {} : undefined);
        case 'resources/read':
        case 'resources/subscribe':
        case 'resources/unsubscribe':
          return this.request(method, { uri: r.chance(0.8) ? r.pick(RESOURCE_URIS) : `task://${this.string()}` });
        case 'prompts/get':
          return this.request(method, { name: r.pick(['nope', 'welcome', '', this.string()]), arguments: {} });
        case 'completion/complete':
          return this.request(method, {
            ref: r.chance(0.5) ? { type: 'ref/resource', uri: 'task://{id}' } : { type: 'ref/prompt', name: 'nope' },
            argument: { name: r.pick(['id', 'x']), value: this.string() },
          });
        case 'logging/setLevel':
          return this.request(method, { level: r.pick(LOG_LEVELS) });
        case 'initialize':
          return this.request(method, {
            protocolVersion: r.pick([LEGACY_VERSION, '2025-06-18', '2024-11-05', MODERN_VERSION, '1999-01-01']),
            capabilities: r.pick<Obj>([{}, { sampling: {} }, { elicitation: { form: {} } }, { roots: {} }]),
            clientInfo: { name: 'fuzz', version: '1.0.0' },
          });
        case 'server/discover':
          return this.request(method, {});
        case 'subscriptions/listen':
          return this.request(method, { filter: { toolsListChanged: true } });
        default: {
          const unknown = r.chance(0.7) ? r.pick(WEIRD_METHODS) : this.string();
          if (this.excluded.has(unknown)) continue;
          return this.request(unknown, r.chance(0.5) ? this.object(2) : undefined);
        }
      }
    }
  }

  /** A tools/call of a real tool: mostly plausible arguments, sometimes random ones. */
  toolCall(): Obj {
    const r = this.rng;
    const str = () => this.string();
    const taskId = () => (r.chance(0.7) ? `t-${r.int(1e9).toString(36)}` : str());
    const tools: [string, () => Obj][] = [
      ['fixture__echo', () => ({ text: str() })],
      ['fixture__slow', () => ({ ms: r.chance(0.01) ? 2_500 : r.int(20) })],
      ['fixture__progress', () => ({ steps: r.range(1, 5) })],
      ['fixture__boom', () => ({})],
      ['fixture__sample', () => ({ prompt: str() })],
      ['fixture__elicit', () => ({})],
      ['system__capabilities', () => ({})],
      ['system__get_state', () => ({})],
      ['system__health', () => ({})],
      ['system__metrics', () => ({})],
      // Only ever 'get': a random 'set' would rewrite the hub's configuration under the fuzz.
      ['system__config', () => ({ action: 'get' })],
      ['system__heartbeat', () => ({ instanceId: `fz-${r.int(5)}` })],
      ['system__register', () => ({ instanceId: `fz-${r.int(5)}`, roles: [r.pick(['coder', 'reviewer', str()])] })],
      ['task__create', () => ({ text: str() || 'x', priority: r.range(-5, 105) })],
      ['task__list', () => (r.chance(0.5) ? {} : { status: r.pick(TASK_STATUSES) })],
      ['task__get', () => ({ id: taskId() })],
      ['task__start', () => ({ id: taskId() })],
      ['task__complete', () => ({ id: taskId(), result: this.value(3) })],
      ['task__fail', () => ({ id: taskId(), reason: str() })],
      ['task__update', () => ({ id: taskId(), text: str() })],
      ['task__assign', () => ({ id: taskId(), instanceId: `fz-${r.int(5)}` })],
      ['nope__missing', () => ({})],
    ];
    const [name, args] = r.pick(tools);
    const toolName = r.chance(0.03) ? str() : name;
    const params: Obj = { name: toolName, arguments: r.chance(0.9) ? args() : this.object(3) };
    if (r.chance(0.1)) params._meta = { progressToken: r.chance(0.5) ? `p-${this.seq}` : this.seq };
    return params;
  }

  private notification(): Obj {
    const r = this.rng;
    const method = r.weighted<string>([
      [3, 'notifications/initialized'],
      [3, 'notifications/cancelled'],
      [2, 'notifications/progress'],
      [2, 'notifications/roots/list_changed'],
      [1, 'notifications/message'],
      [3, 'notifications/fuzz_unknown'],
    ]);
    const msg: Obj = { jsonrpc: '2.0', method };
    if (method === 'notifications/cancelled')
      msg.params = { requestId: r.chance(0.5) ? `never-sent-${r.int(1e6)}` : -r.int(1e6) - 1e7, reason: this.string() };
    else if (method === 'notifications/progress') msg.params = { progressToken: this.string(), progress: r.int(100) };
    else if (r.chance(0.5)) msg.params = this.object(2);
    if (this.opts.era === 'modern') {
      const p = (msg.params as Obj | undefined) ?? {};
      p._meta = modernEnvelope();
      msg.params = p;
    }
    return msg;
  }

  private batch(): FuzzMessage {
    const r = this.rng;
    const items: Json[] = [];
    for (let i = r.int(4); i >= 0; i--) items.push(r.chance(0.75) ? this.validRequest() : this.notification());
    if (r.chance(0.1)) return { text: '[]', kind: 'batch:empty' };
    return { text: JSON.stringify(items), kind: `batch:${items.length}` };
  }

  // --- values ---------------------------------------------------------------------------------------------------

  string(): string {
    const r = this.rng;
    return r.weighted<() => string>([
      [4, () => `s${r.int(1e6)}`],
      [3, () => r.pick(NASTY_STRINGS)],
      [2, () => this.randomChars(r.int(40))],
      [0.2, () => this.huge()],
    ])();
  }

  private huge(): string {
    const r = this.rng;
    const unit = r.pick(['x', 'é', '😀', '\\"', 'ab\u0000']);
    return unit.repeat(Math.max(1, Math.floor(r.range(1_000, this.opts.hugeString) / unit.length)));
  }

  private randomChars(n: number): string {
    const r = this.rng;
    let s = '';
    for (let i = 0; i < n; i++) {
      s += r.weighted<() => string>([
        [6, () => String.fromCharCode(r.range(0x20, 0x7e))],
        [1, () => String.fromCharCode(r.int(0x20))],
        [1, () => String.fromCodePoint(r.range(0xa0, 0x2fff))],
        [0.3, () => String.fromCodePoint(r.range(0x1f300, 0x1faff))],
        [0.2, () => String.fromCharCode(r.range(0xd800, 0xdfff))],
      ])();
    }
    return s;
  }

  /** Any JSON value, nested at most `depth` levels. */
  value(depth: number): Json {
    const r = this.rng;
    const kind = depth <= 0 ? r.int(4) : r.int(6);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return r.chance(0.5);
      case 2:
        return r.pick([0, -1, 1, 1.5, -0, 1e308, -1e-308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER, r.int(1e6)]);
      case 3:
        return this.string();
      case 4:
        return Array.from({ length: r.int(4) }, () => this.value(depth - 1));
      default:
        return this.object(depth - 1);
    }
  }

  object(depth: number): Obj {
    const r = this.rng;
    const obj: Obj = {};
    for (let i = r.int(4); i > 0; i--) {
      const key = r.chance(0.15) ? r.pick(PROTOTYPE_KEYS) : r.chance(0.2) ? r.pick(NASTY_STRINGS) : `k${r.int(100)}`;
      setKey(obj, key, this.value(depth));
    }
    return obj;
  }

  /** Nesting `depth` levels deep, arrays and objects mixed. */
  nested(depth: number): Json {
    let v: Json = this.rng.chance(0.5) ? 1 : 'leaf';
    for (let i = 0; i < depth; i++) v = this.rng.chance(0.5) ? [v] : { a: v };
    return v;
  }

  // --- mutation -------------------------------------------------------------------------------------------------

  /** A random (container, key) among the message, its params, its arguments and its _meta. */
  private slot(msg: Obj): [Obj, string] | undefined {
    const containers: Obj[] = [msg];
    for (const c of [msg.params, (msg.params as Obj | undefined)?.arguments, (msg.params as Obj | undefined)?._meta])
      if (c !== null && typeof c === 'object' && !Array.isArray(c)) containers.push(c as Obj);
    const withKeys = containers.filter((c) => Object.keys(c).length > 0);
    if (withKeys.length === 0) return undefined;
    const c = this.rng.pick(withKeys);
    return [c, this.rng.pick(Object.keys(c))];
  }

  private paramsOf(msg: Obj): Obj {
    if (msg.params === null || typeof msg.params !== 'object' || Array.isArray(msg.params)) msg.params = {};
    return msg.params as Obj;
  }

  /** Mutate the message in place; answers the mutation's name. */
  mutate(msg: Obj): string {
    const r = this.rng;
    const how = r.pick([
      'drop',
      'rename',
      'wrong-type',
      'invalid-id',
      'no-id',
      'huge-string',
      'unicode',
      'nested',
      'unknown-method',
      'extra-field',
      'meta',
      'jsonrpc',
      'params-type',
      'pollute',
    ]);
    switch (how) {
      case 'drop': {
        const s = this.slot(msg);
        if (s) delete s[0][s[1]];
        break;
      }
      case 'rename': {
        const s = this.slot(msg);
        if (s) {
          const [c, k] = s;
          const renamed = r.pick([k.toUpperCase(), `${k} `, k.slice(1), `${k}\u200b`, `_${k}`]);
          setKey(c, renamed, c[k]);
          delete c[k];
        }
        break;
      }
      case 'wrong-type': {
        const s = this.slot(msg);
        if (s) {
          const before = typeof s[0][s[1]];
          let v = this.value(2);
          for (let i = 0; i < 5 && typeof v === before; i++) v = this.value(2);
          setKey(s[0], s[1], v);
        }
        break;
      }
      case 'invalid-id':
        msg.id = r.pick<Json>([null, true, false, {}, [], [1], { id: 1 }, 1.5, -0.5, 2 ** 60, -(2 ** 60), 1e21]);
        break;
      case 'no-id':
        delete msg.id;
        break;
      case 'huge-string': {
        const p = this.paramsOf(msg);
        const args = p.arguments;
        if (args !== null && typeof args === 'object' && !Array.isArray(args)) (args as Obj).text = this.huge();
        else p.pad = this.huge();
        break;
      }
      case 'unicode': {
        const s = this.slot(msg);
        if (s) setKey(s[0], s[1], r.chance(0.5) ? r.pick(NASTY_STRINGS) : this.randomChars(r.range(1, 30)));
        break;
      }
      case 'nested': {
        if (r.chance(0.9)) {
          this.paramsOf(msg).garbage = this.nested(r.range(1, 30));
          return how;
        }
        // Too deep to build as a value (JSON.stringify would overflow the stack here): a marker spliced later.
        this.paramsOf(msg).garbage = `${DEEP_MARKER}${r.range(60, this.opts.maxGarbageDepth)}`;
        return 'nested-deep';
      }
      case 'unknown-method': {
        const m = r.chance(0.7) ? r.pick(WEIRD_METHODS) : this.string();
        msg.method = this.excluded.has(m) ? 'fuzz/unknown' : m;
        break;
      }
      case 'extra-field':
        setKey(msg, r.pick(['extra', 'result', 'error', ...PROTOTYPE_KEYS]), this.value(2));
        break;
      case 'meta':
        this.paramsOf(msg)._meta = r.pick<() => Json>([
          () => this.value(2),
          () => ({ progressToken: r.chance(0.5) ? `p-${this.seq}` : r.int(1e6) }),
          () => ({ progressToken: r.pick<Json>([{}, [], 1.5, null, true]) }),
          () => ({ ...modernEnvelope(), 'io.modelcontextprotocol/protocolVersion': r.pick(['2099-01-01', '', 5]) }),
          () => {
            const env = modernEnvelope();
            delete env[r.pick(Object.keys(env))];
            return env;
          },
          () => ({ ...modernEnvelope(), 'io.modelcontextprotocol/clientCapabilities': this.value(2) }),
          () => [],
        ])();
        break;
      case 'jsonrpc':
        if (r.chance(0.2)) delete msg.jsonrpc;
        else msg.jsonrpc = r.pick<Json>(['1.0', 2, 2.0, null, '2.0 ', '', '3.0']);
        break;
      case 'params-type':
        msg.params = r.pick<Json>([[], 'x', 1, null, true, [{}]]);
        break;
      case 'pollute': {
        const params = this.paramsOf(msg);
        const where = r.pick(['params', 'arguments', '_meta']);
        if (where !== 'params' && !isObj(params[where])) params[where] = {};
        pollute(
          where === 'params' ? params : (params[where] as Obj),
          r.pick(['__proto__', 'constructor', 'prototype']),
        );
        break;
      }
    }
    return how;
  }

  /** Mutate the serialised text; answers [text, name]. */
  private mutateText(text: string, msg: Obj): [string, string] {
    const r = this.rng;
    const pos = r.int(text.length + 1);
    const how = r.pick([
      'truncate',
      'flip',
      'insert',
      'whitespace',
      'crlf',
      'bom',
      'split',
      'dup-key',
      'concat',
      'trailing-comma',
    ]);
    // A flipped or inserted character inside the id could turn it into an earlier id (1683 → 168): edit after it.
    const at = how === 'flip' || how === 'insert' ? outsideId(text, msg, pos) : pos;
    switch (how) {
      case 'truncate':
        return [text.slice(0, Math.max(1, pos)), how];
      case 'flip':
        return [text.slice(0, at) + r.pick([...'{}[]":,\\ 0a']) + text.slice(at + 1), how];
      case 'insert':
        return [text.slice(0, at) + r.pick([...'{}[]":,\\ 0a\t', '\u0000', 'é']) + text.slice(at), how];
      case 'whitespace': {
        const pretty = JSON.stringify(msg, null, r.pick([' ', '\t', 2]));
        const spread = this.opts.lineDelimited ? pretty.replace(/\n/g, ' ') : pretty;
        return [`  \t${spread}\t  `, how];
      }
      case 'crlf':
        return [`${text}\r`, how];
      case 'bom':
        return [`\ufeff${text}`, how];
      case 'split':
        // On stdio this cuts the message into two lines; over HTTP it is a newline inside the JSON text.
        return [`${text.slice(0, pos)}\n${text.slice(pos)}`, how];
      case 'dup-key':
        return [`{"id":${JSON.stringify(this.freshId())},${text.slice(1)}`, how];
      case 'concat':
        return [text + text, how];
      default:
        return [text.replace(/}$/, ',}'), how];
    }
  }

  private garbage(): FuzzMessage {
    const r = this.rng;
    const depth = r.range(10, this.opts.maxGarbageDepth);
    const [text, kind] = r.pick<() => [string, string]>([
      () => ['', 'empty'],
      () => ['   \t ', 'blank'],
      () => [r.pick(['null', 'true', '1', '-1', '"str"', '[]', '{}', '[{}]', '1e999', '"\\ud800"']), 'scalar'],
      () => ['{"jsonrpc":"2.0"}', 'bare'],
      () => [`{"jsonrpc":"2.0","id":${JSON.stringify(this.freshId())}}`, 'no-method'],
      () => [`{"jsonrpc":"2.0","id":${JSON.stringify(this.freshId())},"result":{}}`, 'stray-response'],
      () => [`{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"m"}}`, 'stray-error'],
      () => [this.randomChars(r.range(1, 200)), 'chars'],
      () => [deepText(depth - (depth % 2)), 'deep-arrays'],
      () => [deepText(depth | 1), 'deep-objects'],
      () => ['['.repeat(depth), 'unclosed'],
      () => [`{"jsonrpc":"2.0","id":1,"method":"ping","params":${'['.repeat(depth)}`, 'deep-truncated'],
      () => [String.fromCharCode(...Array.from({ length: r.range(1, 64) }, () => r.int(256))), 'bytes'],
    ])();
    // Over stdio a newline would split the garbage into several lines: keep it one line.
    return { text: this.opts.lineDelimited ? text.replace(/[\n\r]/g, ' ') : text, kind: `garbage:${kind}` };
  }
}

const isObj = (v: Json | undefined): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Put {@link POLLUTION} under `key` the way each key pollutes a naive merge: `__proto__` and `prototype` carry it,
 * `constructor` carries it one level down (`constructor.prototype`).
 *
 * @example
 * const o = {}; pollute(o, 'constructor'); JSON.stringify(o); // '{"constructor":{"prototype":{"polluted":"yes",…}}}'
 */
export function pollute(into: Obj, key: '__proto__' | 'constructor' | 'prototype'): void {
  setKey(into, key, key === 'constructor' ? { prototype: { ...POLLUTION } } : { ...POLLUTION });
}

/** `pos`, or the position just after the message's own `"id":value` when `pos` falls inside it. */
function outsideId(text: string, msg: Obj, pos: number): number {
  if (!('id' in msg)) return pos;
  const field = `"id":${JSON.stringify(msg.id)}`;
  const start = text.indexOf(field);
  if (start < 0 || pos < start || pos >= start + field.length) return pos;
  return start + field.length;
}
