// Reading request bodies with bounds: a body over the size limit is refused (413) before it is read whole, and
// JSON nested deeper than the depth limit is refused before it is parsed, so no later recursive walk can overflow.
import type { IncomingMessage } from 'node:http';
import { SwitchboardError } from '../core/errors.ts';

/**
 * Deepest nesting of arrays and objects accepted in a JSON message. Real MCP traffic rarely passes ten levels;
 * the limit sits far below where recursive code (`JSON.stringify`, schema walkers, loggers) runs out of stack.
 */
export const MAX_JSON_DEPTH = 64;

/** Read the whole body, failing with PAYLOAD_TOO_LARGE as soon as it passes `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new SwitchboardError('PAYLOAD_TOO_LARGE', `Request body is ${declared} bytes; the limit is ${limit} bytes.`, {
      limit,
    });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      throw new SwitchboardError('PAYLOAD_TOO_LARGE', `Request body exceeds the limit of ${limit} bytes.`, { limit });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The outcome of {@link checkJsonDepth}; `offset` is in bytes for a buffer, in UTF-16 units for a string. */
export type JsonDepthCheck = { ok: true } | { ok: false; maxDepth: number; offset: number; message: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Check that JSON text nests arrays and objects at most `maxDepth` levels deep, without parsing it: one
 * iterative pass counting `[`/`{` against `]`/`}` outside strings, in constant stack and memory, stopping at the
 * first character past the limit. Works on a string or on UTF-8 bytes (every byte it looks at is ASCII, and no
 * byte of a multi-byte UTF-8 sequence is). Malformed text is not judged here; `JSON.parse` reports it after.
 *
 * @example
 * checkJsonDepth('{"a":[1,[2]]}', 2); // { ok: false, maxDepth: 2, offset: 9, message: 'JSON nesting deeper than 2 levels …' }
 * checkJsonDepth('{"a":"[[[["}', 1); // { ok: true } — brackets inside strings do not count
 */
export function checkJsonDepth(text: string | Uint8Array, maxDepth: number = MAX_JSON_DEPTH): JsonDepthCheck {
  const isString = typeof text === 'string';
  const length = text.length;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < length; i++) {
    const c = isString ? text.charCodeAt(i) : text[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > maxDepth)
        return {
          ok: false,
          maxDepth,
          offset: i,
          message: `JSON nesting deeper than ${maxDepth} levels (at offset ${i}); flatten the message.`,
        };
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
  }
  return { ok: true };
}

/**
 * Parse a JSON body; empty → undefined; nested deeper than `maxDepth` or malformed → INVALID_REQUEST with the
 * reason. The depth is checked on the raw bytes first, so hostile nesting never reaches the parser or anything
 * that walks the parsed value recursively.
 *
 * @example
 * parseJson(Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}')); // { jsonrpc: '2.0', id: 1, method: 'ping' }
 * parseJson(Buffer.from('['.repeat(100_000))); // throws SwitchboardError INVALID_REQUEST 'JSON nesting deeper than 64 levels …'
 */
export function parseJson(body: Buffer, maxDepth: number = MAX_JSON_DEPTH): unknown {
  if (body.length === 0) return undefined;
  const depth = checkJsonDepth(body, maxDepth);
  if (!depth.ok) throw new SwitchboardError('INVALID_REQUEST', depth.message, { maxDepth: depth.maxDepth });
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new SwitchboardError('INVALID_REQUEST', `Request body is not valid JSON: ${(err as Error).message}`);
  }
}
