// isoTime: the same text as Date#toISOString, whichever second the previous call formatted.
import { expect, it } from 'vitest';
import { isoTime } from '../../src/core/iso-time.ts';

it('formats exactly as toISOString, across seconds, days, years and fractional milliseconds', () => {
  const times = [
    0, 1, 999, 1000, 1000.9, 59_999.5, 1_764_156_693_042, 1_764_156_693_042.75, 1_764_156_693_999, 1_764_156_694_000,
    1_764_156_693_001, 951_782_399_999, 951_782_400_000, -1, -1.5, -86_400_001, 253_402_300_799_999,
  ];
  // Each twice, in an order that revisits seconds, so cached and fresh prefixes are both checked.
  for (const ms of [...times, ...times.reverse()]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  for (let ms = 1_764_156_692_990; ms < 1_764_156_694_010; ms += 7.3)
    expect(isoTime(ms)).toBe(new Date(ms).toISOString());
});

it('refuses a time toISOString refuses', () => {
  expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
});
