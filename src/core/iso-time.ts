// ISO 8601 times for records written on every call: `toISOString()` costs about a microsecond, most of it
// formatting the date and the time of day, which change once a second.

let second = Number.NaN;
let prefix = '';

/**
 * `new Date(ms).toISOString()`, reusing the formatted second of the previous call.
 *
 * @example
 * isoTime(Date.now()); // '2026-11-26T11:31:33.042Z'
 */
export function isoTime(ms: number): string {
  const t = Math.trunc(ms); // as the Date constructor does
  if (!(Math.abs(t) <= 8.64e15)) throw new RangeError('Invalid time value'); // as toISOString, for NaN too
  const s = Math.floor(t / 1000);
  if (s !== second) {
    second = s;
    prefix = new Date(s * 1000).toISOString().slice(0, -4); // 'YYYY-MM-DDTHH:MM:SS.' (the milliseconds and 'Z' are the last four)
  }
  const milli = t - s * 1000;
  return `${prefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}
