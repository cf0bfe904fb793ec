/**
 * The string formats an arguments class turns into other values: RFC 3339 date-times
 * (a `Date` field) and base64 (a `Uint8Array` or `Buffer` field), read as the Go binding
 * reads them into `time.Time` and `[]byte`.
 */

/** The number that the digits at `from`..`to` (exclusive) spell, or -1 if one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * Milliseconds since the epoch of an RFC 3339 time (`2024-05-01T12:00:00.5+02:00`), or
 * undefined when the text is not one, as Go's time.Time decodes it: `Date` alone would
 * also take "1" or "May 5" or February 30. Finer than milliseconds is dropped, as
 * `Date`'s own parser does. Read by hand: a regular expression costs several times more.
 */
export function rfc3339Time(text: string): number | undefined {
  const length = text.length;
  if (length < 20) return undefined;
  const at = (i: number): string => text[i] ?? '';
  if (at(4) !== '-' || at(7) !== '-' || at(13) !== ':' || at(16) !== ':') return undefined;
  if (at(10) !== 'T' && at(10) !== 't') return undefined;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) {
    return undefined;
  }
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return undefined;
  }
  let i = 19;
  let millis = 0;
  if (at(i) === '.') {
    const start = ++i;
    while (i < length && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) i++;
    if (i === start) return undefined;
    millis = digits((text.slice(start, Math.min(i, start + 3)) + '00').slice(0, 3), 0, 3);
  }
  let offset = 0;
  const zone = at(i);
  if (zone === 'Z' || zone === 'z') {
    if (i + 1 !== length) return undefined;
  } else if (zone === '+' || zone === '-') {
    if (i + 6 !== length || at(i + 3) !== ':') return undefined;
    const offsetHours = digits(text, i + 1, i + 3);
    const offsetMinutes = digits(text, i + 4, i + 6);
    if (offsetHours < 0 || offsetHours > 23 || offsetMinutes < 0 || offsetMinutes > 59) {
      return undefined;
    }
    offset = (offsetHours * 60 + offsetMinutes) * 60_000 * (zone === '-' ? -1 : 1);
  } else return undefined;
  // Date.UTC reads years 0-99 as 1900-1999; setUTCFullYear takes them as written.
  const utc =
    year >= 100
      ? Date.UTC(year, month - 1, day, hour, minute, second, millis)
      : new Date(0).setUTCFullYear(year, month - 1, day) +
        ((hour * 60 + minute) * 60 + second) * 1000 +
        millis;
  return utc - offset;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The bytes of standard, padded base64 text (what Go's encoding/json writes for
 * `[]byte`), or undefined when the text is not that. The buffer is the caller's own:
 * small decodes come from Node's shared pool, so they are copied, and a tool that reads
 * `.buffer` sees no other data of the process.
 */
export function base64Bytes(text: string): Buffer | undefined {
  if (!BASE64.test(text)) return undefined;
  const pooled = Buffer.from(text, 'base64');
  const own = Buffer.allocUnsafeSlow(pooled.length);
  pooled.copy(own);
  return own;
}
