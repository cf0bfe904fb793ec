// Go's strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/**
 * A string quoted as Go's `%q` (`strconv.Quote`) quotes it, so a name or value in a
 * message reads the same in both bindings: printable characters as they are, the
 * usual short escapes (`\n`, `\t`, `\"`, ...), other characters below U+0080 as `\xNN`
 * (`\x01`, `\x7f`), other unprintable ones as `\uNNNN` (`\u2028`, `\u00a0`) or
 * `\UNNNNNNNN`. A lone surrogate is shown as U+FFFD, as Go shows the string it decodes
 * from the same JSON (`"\ud800"`) or the same invalid UTF-8 bytes: a JavaScript string
 * holds no raw bytes, so Go's `\xff` for invalid UTF-8 has no counterpart here.
 */
export function goQuote(text: string): string {
  if (PLAIN_ASCII.test(text)) return `"${text}"`;
  let out = '"';
  for (const char of text) {
    const short = SHORT_ESCAPES[char];
    if (short !== undefined) {
      out += short;
      continue;
    }
    if (PRINTABLE.test(char)) {
      out += char;
      continue;
    }
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x80) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\ufffd';
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}
