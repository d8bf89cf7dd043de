// SEP-2243 custom headers (2026-07-28 Streamable HTTP): a tool input property annotated `x-mcp-header: Name`
// is mirrored by the client into `Mcp-Param-Name`; the server checks header and body agree before dispatch.
// Both sides are here: the check for calls Switchboard serves, the mirroring for calls it sends upstream.
import type { IncomingMessage } from 'node:http';

/** One `x-mcp-header` declaration: where the value sits in `arguments`, its header suffix and JSON type. */
export interface ParamHeader {
  path: string[];
  header: string;
  type?: string;
}

export type ParamHeaderCheck = { ok: true } | { ok: false; header: string; message: string };

const BASE64_CANONICAL = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;
const cache = new WeakMap<object, ParamHeader[]>();

/**
 * The `x-mcp-header` declarations of a tool input schema, reachable through `properties` chains only
 * (the spec forbids them anywhere else). Memoised per schema object.
 *
 * @example
 * paramHeadersOf({ type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } })
 * // [{ path: ['region'], header: 'Region', type: 'string' }]
 */
export function paramHeadersOf(schema: Record<string, unknown>): ParamHeader[] {
  let found = cache.get(schema);
  if (found) return found;
  found = [];
  const visit = (node: unknown, path: string[]) => {
    if (!node || typeof node !== 'object') return;
    const s = node as Record<string, unknown>;
    const header = s['x-mcp-header'];
    if (path.length && typeof header === 'string' && header)
      found!.push({ path, header, type: typeof s.type === 'string' ? s.type : undefined });
    const props = s.properties;
    if (props && typeof props === 'object')
      for (const [key, child] of Object.entries(props as Record<string, unknown>)) visit(child, [...path, key]);
  };
  visit(schema, []);
  cache.set(schema, found);
  return found;
}

/** The value at `path` inside `args`, or undefined when a step is missing or not an object. */
function valueAt(args: unknown, path: string[]): unknown {
  let value = args;
  for (const key of path)
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/** A header value as sent: literal when it is plain visible ASCII, otherwise `=?base64?…?=` of its UTF-8. */
export function encodeParamHeader(value: string): string {
  const plain =
    value.length > 0 &&
    value === value.trim() &&
    !(value.startsWith('=?base64?') && value.endsWith('?=')) &&
    /^[\x20-\x7e\t]*$/.test(value);
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/**
 * The `Mcp-Param-*` headers a client sends with a call: one per declared argument present as a string, boolean or
 * finite number (the SDK client's rule; objects, null and unsafe integers are left out, and the server then asks
 * for no header either).
 *
 * @example
 * paramHeaderValues([{ path: ['region'], header: 'Region' }], { region: 'Zürich' }) // { 'Mcp-Param-Region': '=?base64?WsO8cmljaA==?=' }
 */
export function paramHeaderValues(declared: ParamHeader[], args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of declared) {
    const value = valueAt(args, d.path);
    const text =
      typeof value === 'string' || typeof value === 'boolean'
        ? String(value)
        : typeof value === 'number' &&
            Number.isFinite(value) &&
            (!Number.isInteger(value) || Number.isSafeInteger(value))
          ? String(value)
          : undefined;
    if (text !== undefined) out[`Mcp-Param-${d.header}`] = encodeParamHeader(text);
  }
  return out;
}

/** Decode an `Mcp-Param-*` value: `=?base64?…?=` is canonical Base64 of UTF-8; anything else is literal. */
export function decodeParamHeader(value: string): string | undefined {
  if (!(value.startsWith('=?base64?') && value.endsWith('?='))) return value;
  const b64 = value.slice(9, -2);
  if (!BASE64_CANONICAL.test(b64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(b64, 'base64'));
  } catch {
    return undefined;
  }
}

/**
 * Check every declared header against the call's arguments: a value present in the body needs its header, and
 * the decoded header must equal it (numbers compare numerically). An absent or null body value needs no header.
 */
export function checkParamHeaders(
  declared: ParamHeader[],
  args: unknown,
  headers: IncomingMessage['headers'],
): ParamHeaderCheck {
  for (const d of declared) {
    const value = valueAt(args, d.path);
    if (value === undefined || value === null || typeof value === 'object') continue;
    const name = `Mcp-Param-${d.header}`;
    const raw = headers[name.toLowerCase()];
    const header = Array.isArray(raw) ? raw[0] : raw;
    const where = d.path.join('.');
    if (header === undefined)
      return { ok: false, header: name, message: `the body carries ${where} but the ${name} header is absent` };
    const decoded = decodeParamHeader(header.trim());
    if (decoded === undefined)
      return { ok: false, header: name, message: `the ${name} header carries an invalid Base64 value` };
    const same =
      typeof value === 'number' && DECIMAL.test(decoded) ? Number(decoded) === value : decoded === String(value);
    if (!same)
      return {
        ok: false,
        header: name,
        message: `the ${name} header decodes to ${JSON.stringify(decoded)} but the body carries ${where}=${JSON.stringify(value)}`,
      };
  }
  return { ok: true };
}
