// Cursor pagination for the aggregated lists (tools, resources, templates, prompts): a cursor names the last item
// of the previous page, so a catalog that changes between pages neither repeats nor skips what stayed.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

/**
 * One page of `items`, ordered by `keyOf` (code-unit order), after `cursor`.
 *
 * @example
 * const { page, nextCursor } = paginate(tools, request.params?.cursor, 500, (t) => t.name);
 */
export function paginate<T>(
  items: readonly T[],
  cursor: string | undefined,
  pageSize: number,
  keyOf: (item: T) => string,
): { page: T[]; nextCursor?: string } {
  const sorted = [...items].sort((a, b) => {
    const x = keyOf(a);
    const y = keyOf(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
  let start = 0;
  if (cursor !== undefined) {
    const after = decode(cursor);
    start = sorted.findIndex((item) => keyOf(item) > after);
    if (start < 0) start = sorted.length;
  }
  const page = sorted.slice(start, start + pageSize);
  const more = start + pageSize < sorted.length;
  return more ? { page, nextCursor: encode(keyOf(page[page.length - 1])) } : { page };
}

const PREFIX = 'sb1:';

function encode(key: string): string {
  return Buffer.from(PREFIX + key, 'utf8').toString('base64url');
}

function decode(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(PREFIX))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'Invalid cursor: pass back the nextCursor of the previous page unchanged, or omit it for the first page.',
    );
  return text.slice(PREFIX.length);
}
