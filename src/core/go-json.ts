import { depthExceededText, MAX_JSON_DEPTH } from './json';
import { goQuote } from './quote';

/*
 * The scanner of Go's encoding/json (scanner.go), step for step, so that text which is
 * not JSON is refused with the words the Go binding uses: `unexpected EOF`,
 * `invalid character '}' looking for beginning of object key string`, `invalid
 * character 'x' after top-level value`, ... It runs only once `JSON.parse` has failed,
 * so valid arguments never pay for it. Go scans bytes; a character that is not ASCII
 * can only be part of a string or the offending character, whose first UTF-8 byte Go
 * names (`'Ã'` for "é"), so the scan walks UTF-16 code units and works that byte out
 * when it is needed. Nesting is limited to MAX_JSON_DEPTH, where Go stops at 10000.
 */

const enum Op {
  Continue,
  BeginLiteral,
  BeginObject,
  ObjectKey,
  ObjectValue,
  EndObject,
  BeginArray,
  ArrayValue,
  EndArray,
  SkipSpace,
  End,
  Error,
}

const enum Parse {
  ObjectKey,
  ObjectValue,
  ArrayValue,
}

const enum State {
  BeginValue,
  BeginValueOrEmpty,
  BeginStringOrEmpty,
  BeginString,
  EndValue,
  EndTop,
  InString,
  InStringEsc,
  InStringEscU,
  Neg,
  One,
  Zero,
  Dot,
  Dot0,
  E,
  ESign,
  E0,
  Literal,
  Error,
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean =>
  isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** The first UTF-8 byte of the character at `i`, which is what Go names in an error. */
function byteAt(text: string, i: number): number {
  const unit = text.charCodeAt(i);
  if (unit < 0x80) return unit;
  const point = text.codePointAt(i) ?? unit;
  if (point >= 0xd800 && point <= 0xdfff) return 0xef; // a lone surrogate: U+FFFD's bytes
  if (point < 0x800) return 0xc0 | (point >> 6);
  if (point < 0x10000) return 0xe0 | (point >> 12);
  return 0xf0 | (point >> 18);
}

/** Go's quoteChar: a byte as a quoted character literal, `'x'`, `'\x01'`, `'Ã'`. */
function quoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  return `'${goQuote(String.fromCharCode(c)).slice(1, -1)}'`;
}

class GoScanner {
  private state = State.BeginValue;
  private readonly parseState: Parse[] = [];
  private literal = '';
  private literalAt = 0;
  private hexLeft = 0;
  endTop = false;
  err: string | undefined;

  step(c: number): Op {
    switch (this.state) {
      case State.BeginValueOrEmpty:
        if (isSpace(c)) return Op.SkipSpace;
        if (c === 0x5d) return this.endValue(c);
        return this.beginValue(c);
      case State.BeginValue:
        return this.beginValue(c);
      case State.BeginStringOrEmpty:
        if (isSpace(c)) return Op.SkipSpace;
        if (c === 0x7d) {
          this.parseState[this.parseState.length - 1] = Parse.ObjectValue;
          return this.endValue(c);
        }
        return this.beginString(c);
      case State.BeginString:
        return this.beginString(c);
      case State.EndValue:
        return this.endValue(c);
      case State.EndTop:
        return this.endTopStep(c);
      case State.InString:
        if (c === 0x22) {
          this.state = State.EndValue;
          return Op.Continue;
        }
        if (c === 0x5c) {
          this.state = State.InStringEsc;
          return Op.Continue;
        }
        if (c < 0x20) return this.error(c, 'in string literal');
        return Op.Continue;
      case State.InStringEsc:
        // b f n r t \ / "
        if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c)) {
          this.state = State.InString;
          return Op.Continue;
        }
        if (c === 0x75) {
          this.state = State.InStringEscU;
          this.hexLeft = 4;
          return Op.Continue;
        }
        return this.error(c, 'in string escape code');
      case State.InStringEscU:
        if (!isHex(c)) return this.error(c, 'in \\u hexadecimal character escape');
        if (--this.hexLeft === 0) this.state = State.InString;
        return Op.Continue;
      case State.Neg:
        if (c === 0x30) {
          this.state = State.Zero;
          return Op.Continue;
        }
        if (c >= 0x31 && c <= 0x39) {
          this.state = State.One;
          return Op.Continue;
        }
        return this.error(c, 'in numeric literal');
      case State.One:
        if (isDigit(c)) return Op.Continue;
        return this.zero(c);
      case State.Zero:
        return this.zero(c);
      case State.Dot:
        if (isDigit(c)) {
          this.state = State.Dot0;
          return Op.Continue;
        }
        return this.error(c, 'after decimal point in numeric literal');
      case State.Dot0:
        if (isDigit(c)) return Op.Continue;
        if (c === 0x65 || c === 0x45) {
          this.state = State.E;
          return Op.Continue;
        }
        return this.endValue(c);
      case State.E:
        if (c === 0x2b || c === 0x2d) {
          this.state = State.ESign;
          return Op.Continue;
        }
        return this.eSign(c);
      case State.ESign:
        return this.eSign(c);
      case State.E0:
        if (isDigit(c)) return Op.Continue;
        return this.endValue(c);
      case State.Literal: {
        const expected = this.literal.charCodeAt(this.literalAt);
        if (c !== expected) {
          return this.error(
            c,
            `in literal ${this.literal} (expecting '${this.literal[this.literalAt] ?? ''}')`,
          );
        }
        if (++this.literalAt === this.literal.length) this.state = State.EndValue;
        return Op.Continue;
      }
      case State.Error:
        return Op.Error;
    }
  }

  /** The end of input, as `scanner.eof` sees it (used by the whole-text check). */
  eof(): Op {
    if (this.err !== undefined) return Op.Error;
    if (this.endTop) return Op.End;
    this.step(0x20);
    if (this.endTop) return Op.End;
    this.err ??= 'unexpected end of JSON input';
    return Op.Error;
  }

  /** `stateEndValue(s, ' ')`, which the decoder calls after a closing bracket. */
  endValueWithSpace(): Op {
    return this.endValue(0x20);
  }

  private beginValue(c: number): Op {
    if (isSpace(c)) return Op.SkipSpace;
    switch (c) {
      case 0x7b:
        this.state = State.BeginStringOrEmpty;
        return this.push(c, Parse.ObjectKey, Op.BeginObject);
      case 0x5b:
        this.state = State.BeginValueOrEmpty;
        return this.push(c, Parse.ArrayValue, Op.BeginArray);
      case 0x22:
        this.state = State.InString;
        return Op.BeginLiteral;
      case 0x2d:
        this.state = State.Neg;
        return Op.BeginLiteral;
      case 0x30:
        this.state = State.Zero;
        return Op.BeginLiteral;
      case 0x74:
        return this.beginLiteral('true');
      case 0x66:
        return this.beginLiteral('false');
      case 0x6e:
        return this.beginLiteral('null');
    }
    if (c >= 0x31 && c <= 0x39) {
      this.state = State.One;
      return Op.BeginLiteral;
    }
    return this.error(c, 'looking for beginning of value');
  }

  private beginLiteral(word: string): Op {
    this.state = State.Literal;
    this.literal = word;
    this.literalAt = 1;
    return Op.BeginLiteral;
  }

  private beginString(c: number): Op {
    if (isSpace(c)) return Op.SkipSpace;
    if (c === 0x22) {
      this.state = State.InString;
      return Op.BeginLiteral;
    }
    return this.error(c, 'looking for beginning of object key string');
  }

  private zero(c: number): Op {
    if (c === 0x2e) {
      this.state = State.Dot;
      return Op.Continue;
    }
    if (c === 0x65 || c === 0x45) {
      this.state = State.E;
      return Op.Continue;
    }
    return this.endValue(c);
  }

  private eSign(c: number): Op {
    if (isDigit(c)) {
      this.state = State.E0;
      return Op.Continue;
    }
    return this.error(c, 'in exponent of numeric literal');
  }

  private endValue(c: number): Op {
    const n = this.parseState.length;
    if (n === 0) {
      this.state = State.EndTop;
      this.endTop = true;
      return this.endTopStep(c);
    }
    if (isSpace(c)) {
      this.state = State.EndValue;
      return Op.SkipSpace;
    }
    switch (this.parseState[n - 1]) {
      case Parse.ObjectKey:
        if (c === 0x3a) {
          this.parseState[n - 1] = Parse.ObjectValue;
          this.state = State.BeginValue;
          return Op.ObjectKey;
        }
        return this.error(c, 'after object key');
      case Parse.ObjectValue:
        if (c === 0x2c) {
          this.parseState[n - 1] = Parse.ObjectKey;
          this.state = State.BeginString;
          return Op.ObjectValue;
        }
        if (c === 0x7d) {
          this.pop();
          return Op.EndObject;
        }
        return this.error(c, 'after object key:value pair');
      default:
        if (c === 0x2c) {
          this.state = State.BeginValue;
          return Op.ArrayValue;
        }
        if (c === 0x5d) {
          this.pop();
          return Op.EndArray;
        }
        return this.error(c, 'after array element');
    }
  }

  private endTopStep(c: number): Op {
    // Go complains about a non-space byte here on the next call, and ends the value now.
    if (!isSpace(c)) this.error(c, 'after top-level value');
    return Op.End;
  }

  private push(c: number, parse: Parse, success: Op): Op {
    this.parseState.push(parse);
    if (this.parseState.length <= MAX_JSON_DEPTH) return success;
    return this.fail(depthExceededText(c === 0x7b ? '{' : '['));
  }

  private pop(): void {
    this.parseState.pop();
    if (this.parseState.length === 0) {
      this.state = State.EndTop;
      this.endTop = true;
    } else {
      this.state = State.EndValue;
    }
  }

  private error(c: number, context: string): Op {
    return this.fail(`invalid character ${quoteChar(c)} ${context}`);
  }

  private fail(message: string): Op {
    this.state = State.Error;
    this.err = message;
    return Op.Error;
  }
}

/** What Go's `json.Decoder.Decode` makes of a text: the end of its first value, or its error. */
export type GoDecodeOutcome =
  { readonly ok: true; readonly end: number } | { readonly ok: false; readonly message: string };

/**
 * Reads the first JSON value of `text` as Go's `json.Decoder.Decode` does (what the Go
 * binding's validator decodes arguments with): where it ends (an index into `text`;
 * what follows is not looked at), or the decoder's error, `EOF` for text of spaces only,
 * `unexpected EOF` for a value cut short, or the scanner's `invalid character ...`.
 */
export function goDecode(text: string): GoDecodeOutcome {
  const scanner = new GoScanner();
  for (let i = 0; i < text.length; i++) {
    const op = scanner.step(byteAt(text, i));
    if (op === Op.End) return { ok: true, end: i };
    if (op === Op.EndObject || op === Op.EndArray) {
      if (scanner.endValueWithSpace() === Op.End) return { ok: true, end: i + 1 };
    }
    if (op === Op.Error) return { ok: false, message: scanner.err ?? 'invalid JSON' };
  }
  if (scanner.step(0x20) === Op.End) return { ok: true, end: text.length };
  return { ok: false, message: /[^ \t\r\n]/.test(text) ? 'unexpected EOF' : 'EOF' };
}

/**
 * The error Go's `json.Unmarshal` finds in `text` before decoding anything (its
 * `checkValid` over the whole text), or undefined for valid JSON: `unexpected end of
 * JSON input`, `invalid character 'x' after top-level value`, ...
 */
export function goCheckValid(text: string): string | undefined {
  const scanner = new GoScanner();
  for (let i = 0; i < text.length; i++) {
    if (scanner.step(byteAt(text, i)) === Op.Error) return scanner.err;
  }
  return scanner.eof() === Op.Error ? scanner.err : undefined;
}

const MARSHAL_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON text as `JSON.stringify` wrote it, made the bytes Go's `json.Marshal` writes for
 * the same value: `<`, `>`, `&`, U+2028 and U+2029 escaped (`\u003c`, `\u003e`,
 * `\u0026`, `\u2028`, `\u2029`), and a lone surrogate, which `JSON.stringify` escapes
 * (`\ud800`), as U+FFFD, the character Go decodes it to. `JSON.stringify` writes these
 * characters only inside strings, so the text stays the same JSON value.
 */
export function goMarshalText(json: string): string {
  if (!/[<>&\u2028\u2029]|\\ud[89a-f]/.test(json)) return json;
  // An escaped backslash is matched as a pair first, so `\\ud800` is left as written.
  return json.replace(
    /[<>&\u2028\u2029]|\\\\|\\ud[89a-f][0-9a-f]{2}/g,
    (match) => MARSHAL_ESCAPES[match] ?? (match === '\\\\' ? match : '\ufffd'),
  );
}

/** JSON text made compact, or why it is not JSON. */
export type GoCompactOutcome =
  { readonly ok: true; readonly text: string } | { readonly ok: false; readonly message: string };

/**
 * What Go's `json.Marshal` makes of JSON text a value hands over as its own encoding (a
 * `MarshalJSON` result): checked to be one JSON value, the spaces between tokens
 * dropped, and `<`, `>`, `&`, U+2028 and U+2029 escaped (Go's `compact` with HTML
 * escaping). Everything else, escapes, key order and number spelling included, is
 * kept as written.
 */
export function goCompact(text: string): GoCompactOutcome {
  const scanner = new GoScanner();
  let out = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text[i] as string;
    const escaped = MARSHAL_ESCAPES[unit];
    if (escaped !== undefined) {
      out += text.slice(start, i) + escaped;
      start = i + 1;
    }
    const op = scanner.step(byteAt(text, i));
    if (op >= Op.SkipSpace) {
      if (op === Op.Error) break;
      if (start <= i) out += text.slice(start, i);
      start = i + 1;
    }
  }
  if (scanner.eof() === Op.Error) {
    return { ok: false, message: scanner.err ?? 'unexpected end of JSON input' };
  }
  if (start < text.length) out += text.slice(start);
  return { ok: true, text: out };
}
