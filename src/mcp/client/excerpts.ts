import { describeValue, goQuote } from '../../core';

/**
 * The most characters of a server's value (a name, a cursor, a definition's JSON) an
 * error or a warning quotes: enough to tell which it was, where a server could make a
 * message megabytes long with one value.
 */
export const MAX_QUOTED_CHARS = 300;

/**
 * The most characters of what a server says in its own words (an error's message) an
 * error or a warning repeats: twice the 4 KiB an HTTP error's body is cut at (see
 * bounded-answers.ts), so that a message quoting such a body whole keeps it whole.
 */
export const MAX_SAID_CHARS = 8192;

/** The mark that ends a cut text: what was left out, e.g. `… [1048276 more characters]`. */
function cutMark(left: number): string {
  return `… [${left} more ${left === 1 ? 'character' : 'characters'}]`;
}

/** Where to cut `text` at most `at` UTF-16 units in without splitting a surrogate pair. */
function cutAt(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

/**
 * `text` as it is when it has at most `max` characters (UTF-16 units); otherwise its first
 * `max` followed by a mark that says how many were left out:
 * `aaaa… [1048276 more characters]`. A surrogate pair is never split.
 */
export function excerpt(text: string, max = MAX_SAID_CHARS): string {
  if (text.length <= max) return text;
  const at = cutAt(text, max);
  return `${text.slice(0, at)}${cutMark(text.length - at)}`;
}

/**
 * `text` quoted as Go's `%q` quotes it ({@link goQuote}), the quote at most `max`
 * characters between its quotes; a longer one quotes what fits and is followed by a mark
 * that says how many characters of `text` were left out: `"aaaa"… [1048276 more characters]`.
 */
export function quotedExcerpt(text: string, max = MAX_QUOTED_CHARS): string {
  if (text.length <= max) {
    const whole = goQuote(text);
    if (whole.length <= max + 2) return whole;
  }
  // Character by character: an escape (`\x01`, `\U0001f600`) is up to ten long.
  let shown = '';
  let width = 0;
  for (const char of text) {
    const escaped = goQuote(char).length - 2;
    if (width + escaped > max) break;
    shown += char;
    width += escaped;
  }
  return `${goQuote(shown)}${cutMark(text.length - shown.length)}`;
}

/**
 * A value as JSON text (as `JSON.stringify` writes it, members left out where it leaves
 * them out), at most `max` characters; longer JSON is cut there and followed by a mark
 * that says how many characters were left out: `{"description":"xxxx… [1048276 more
 * characters]`. Written and measured without recursion and without the whole text
 * (a server's value may nest thousands deep, or hold megabytes); a value that holds
 * itself is written `"[cycle]"` there. What JSON cannot write at all reads as
 * `String(value)` (`undefined`).
 */
export function jsonExcerpt(value: unknown, max = MAX_QUOTED_CHARS): string {
  let out = '';
  let total = 0;
  const write = (piece: string): void => {
    total += piece.length;
    if (out.length < max) out += piece.slice(0, max - out.length);
  };
  const writeString = (text: string): void => {
    const room = max - out.length;
    if (room <= 0) {
      total += jsonStringLength(text);
      return;
    }
    // Only what can be shown is escaped; the rest is measured.
    const shown = JSON.stringify(text.length <= room ? text : text.slice(0, room));
    out += shown.slice(0, room);
    total += text.length <= room ? shown.length : jsonStringLength(text);
  };
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
    return String(value);
  }
  const ancestors = new Set<object>();
  // What is still to write, last first: JSON text, a string to quote, a value, or the
  // end of a container (which is then no longer an ancestor).
  const pending: Pending[] = [{ value }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    if ('text' in item) write(item.text);
    else if ('string' in item) writeString(item.string);
    else if ('leave' in item) ancestors.delete(item.leave);
    else {
      const v = item.value;
      if (typeof v === 'string') {
        writeString(v);
        continue;
      }
      const scalar = jsonScalar(v);
      if (scalar !== undefined) {
        write(scalar);
        continue;
      }
      if (typeof v !== 'object' || v === null) {
        write('null'); // undefined, a function or a symbol in an array
        continue;
      }
      if (ancestors.has(v)) {
        write('"[cycle]"');
        continue;
      }
      ancestors.add(v);
      const isArray = Array.isArray(v);
      pending.push({ leave: v }, { text: isArray ? ']' : '}' });
      const parts: Pending[] = [];
      if (isArray) {
        (v as unknown[]).forEach((member, i) => {
          if (i > 0) parts.push({ text: ',' });
          parts.push({ value: member });
        });
      } else {
        for (const [key, member] of Object.entries(v)) {
          // As JSON.stringify: a member it cannot write is left out.
          if (member === undefined || typeof member === 'function' || typeof member === 'symbol')
            continue;
          if (parts.length > 0) parts.push({ text: ',' });
          parts.push({ string: key }, { text: ':' }, { value: member });
        }
      }
      for (let i = parts.length - 1; i >= 0; i--) pending.push(parts[i]!);
      pending.push({ text: isArray ? '[' : '{' });
    }
  }
  return total <= max ? out : `${out}${cutMark(total - out.length)}`;
}

type Pending = { text: string } | { string: string } | { value: unknown } | { leave: object };

/** The JSON of a number, a boolean, null or a bigint; undefined for anything else. */
function jsonScalar(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return String(value);
  return undefined;
}

/** The control characters JSON writes as `\b`, `\t`, `\n`, `\f`, `\r`. */
const SHORT_ESCAPED: ReadonlySet<number> = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

/** The length of `JSON.stringify(text)`, measured without writing it. */
function jsonStringLength(text: string): number {
  let length = 2;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22 || code === 0x5c) length += 2;
    else if (code < 0x20) length += SHORT_ESCAPED.has(code) ? 2 : 6;
    else if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length += 2;
        i++;
      } else length += 6; // a lone surrogate, written \udXXX
    } else if (code >= 0xdc00 && code <= 0xdfff) length += 6;
    else length += 1;
  }
  return length;
}

/**
 * A value in a message as the core's `describeValue` says it (`"text"`, `5`, `object`,
 * `array`), a string quoted as {@link quotedExcerpt} quotes it.
 */
export function describedExcerpt(value: unknown, max = MAX_QUOTED_CHARS): string {
  return typeof value === 'string' ? quotedExcerpt(value, max) : describeValue(value);
}
