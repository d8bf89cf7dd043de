// Cursor pagination of the aggregated lists.
import { describe, expect, it } from 'vitest';
import { paginate } from '../../src/serve/paginate.ts';

const key = (s: string) => s;

describe('paginate', () => {
  it('walks every item once, in order, page by page', () => {
    const items = ['e', 'a', 'd', 'c', 'b'];
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const r = paginate(items, cursor, 2, key);
      seen.push(...r.page);
      cursor = r.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pages).toBe(3);
  });

  it('has no nextCursor when everything fits', () => {
    expect(paginate(['a', 'b'], undefined, 2, key)).toEqual({ page: ['a', 'b'] });
  });

  it('neither repeats nor skips items that stayed when the list changes between pages', () => {
    const first = paginate(['a', 'b', 'c', 'd'], undefined, 2, key);
    const second = paginate(['a', 'aa', 'c', 'd', 'e'], first.nextCursor, 2, key);
    expect(first.page).toEqual(['a', 'b']);
    expect(second.page).toEqual(['c', 'd']);
  });

  it('refuses a cursor it did not make with an invalid-params error saying what to do', () => {
    expect(() => paginate(['a'], 'bogus', 2, key)).toThrow(/Invalid cursor: pass back the nextCursor/);
  });
});
