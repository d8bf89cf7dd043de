// The JSON-RPC envelope of a message too long to parse, read from its first and last bytes: SDKs write `id` and
// `jsonrpc` after `params` or `result` (`{"method":…,"params":…,"jsonrpc":"2.0","id":7}`), others before, so both
// ends are read. Only top-level members with plain values count; anything unclear reads as absent.
import type { OversizedLine } from './line-splitter.ts';

export interface Envelope {
  /** The id, when it is a string or a safe integer (what both sides would accept as an id). */
  id?: string | number;
  /** Whether a top-level `method` member was seen: a request or notification, not a response. */
  hasMethod: boolean;
}

/**
 * @example
 * envelopeOf({ bytes: 2e7, head: '{"method":"tools/call","params":{"a":"xxxx', tail: 'xxx"}},"jsonrpc":"2.0","id":7}' })
 * // → { id: 7, hasMethod: true }
 */
export function envelopeOf(line: OversizedLine): Envelope {
  const members = new Map<string, unknown>();
  for (const [key, value] of [...headMembers(line.head), ...tailMembers(line.tail)])
    if (!members.has(key)) members.set(key, value);
  const id = members.get('id');
  return {
    ...(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? { id } : {}),
    hasMethod: members.has('method'),
  };
}

const WS = /\s/;

/** Top-level `"key": value` pairs from the start of an object; nested values are skipped and read as undefined. */
function headMembers(text: string): [string, unknown][] {
  const out: [string, unknown][] = [];
  let i = skipWs(text, 0);
  if (text[i] !== '{') return out;
  for (i = skipWs(text, i + 1); text[i] === '"'; ) {
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return out;
    const key = parse(text.slice(i, keyEnd + 1));
    i = skipWs(text, keyEnd + 1);
    if (text[i] !== ':' || typeof key !== 'string') return out;
    i = skipWs(text, i + 1);
    const valueEnd = valueEndAt(text, i);
    if (valueEnd < 0) return out;
    out.push([key, parse(text.slice(i, valueEnd))]);
    i = skipWs(text, valueEnd);
    if (text[i] !== ',') return out;
    i = skipWs(text, i + 1);
  }
  return out;
}

/** Top-level `"key": value` pairs with plain values from the end of an object, read backwards. */
function tailMembers(text: string): [string, unknown][] {
  const out: [string, unknown][] = [];
  let i = skipWsBack(text, text.length - 1);
  if (text[i] !== '}') return out;
  for (;;) {
    i = skipWsBack(text, i - 1);
    let valueStart: number;
    if (text[i] === '"') valueStart = stringStartBack(text, i);
    else {
      valueStart = i;
      while (valueStart > 0 && /[-+.\w]/.test(text[valueStart - 1])) valueStart--;
      if (valueStart > i) return out;
    }
    if (valueStart < 0) return out;
    const value = parse(text.slice(valueStart, i + 1));
    i = skipWsBack(text, valueStart - 1);
    if (text[i] !== ':') return out;
    i = skipWsBack(text, i - 1);
    if (text[i] !== '"') return out;
    const keyStart = stringStartBack(text, i);
    const key = keyStart < 0 ? undefined : parse(text.slice(keyStart, i + 1));
    if (typeof key !== 'string' || value === undefined) return out;
    out.push([key, value]);
    i = skipWsBack(text, keyStart - 1);
    if (text[i] !== ',') return out;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function skipWs(text: string, i: number): number {
  while (i < text.length && WS.test(text[i])) i++;
  return i;
}

function skipWsBack(text: string, i: number): number {
  while (i >= 0 && WS.test(text[i])) i--;
  return i;
}

/** Index of the quote that closes the string opening at `i`, or -1. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '"') return j;
  }
  return -1;
}

/** Index of the quote that opens the string closing at `i` (a quote after an odd run of `\` is escaped), or -1. */
function stringStartBack(text: string, i: number): number {
  for (let j = i - 1; j >= 0; j--) {
    if (text[j] !== '"') continue;
    let slashes = 0;
    while (j - 1 - slashes >= 0 && text[j - 1 - slashes] === '\\') slashes++;
    if (slashes % 2 === 0) return j;
  }
  return -1;
}

/** Where the value starting at `i` ends (exclusive), skipping nested objects and arrays; -1 if it runs off the end. */
function valueEndAt(text: string, i: number): number {
  if (text[i] === '"') {
    const end = stringEnd(text, i);
    return end < 0 ? -1 : end + 1;
  }
  if (text[i] !== '{' && text[i] !== '[') {
    let j = i;
    while (j < text.length && /[-+.\w]/.test(text[j])) j++;
    return j === i || j === text.length ? -1 : j;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"') {
      j = stringEnd(text, j);
      if (j < 0) return -1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}
