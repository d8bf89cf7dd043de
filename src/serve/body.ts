// Reading HTTP request bodies with a size bound: a body over the limit is refused (413) before it is parsed.
import type { IncomingMessage } from 'node:http';
import { SwitchboardError } from '../core/errors.ts';

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

/** Parse a JSON body; empty → undefined; malformed → INVALID_REQUEST with the parser's reason. */
export function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new SwitchboardError('INVALID_REQUEST', `Request body is not valid JSON: ${(err as Error).message}`);
  }
}
