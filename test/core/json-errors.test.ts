import fc from 'fast-check';
import {
  type Schema,
  ValidationError,
  compileSchema,
  decodeArguments,
  parseArguments,
  validateArguments,
} from 'agenttool';

function messageOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as Error).message;
  }
}

// Go: validate.go Schema.ValidateJSON decodes with json.Decoder and reports
// `not valid JSON: <err>`; the decoder's words are encoding/json's: stream.go readValue
// (`EOF`, `unexpected EOF`) and scanner.go (`invalid character ...`). Expected texts of
// the scanner come from encoding/json decode_test.go unmarshalTests where it has them.
describe('arguments that are not JSON, as the Go binding words them', () => {
  const any = compileSchema({ type: 'object' });
  it.each<[string, string, string]>([
    ['cut short', '{', 'not valid JSON: unexpected EOF'],
    ['cut short inside an array', '{"a":[2, 3', 'not valid JSON: unexpected EOF'],
    ['cut short inside a string', '{"a":"aaa', 'not valid JSON: unexpected EOF'],
    ['a literal cut short', '{"a":tru', 'not valid JSON: unexpected EOF'],
    ['spaces only', ' \n\t', 'not valid JSON: EOF'],
    [
      'a trailing comma',
      '{"a":1,}',
      "not valid JSON: invalid character '}' looking for beginning of object key string",
    ],
    [
      'single quotes',
      "{'a':1}",
      "not valid JSON: invalid character '\\'' looking for beginning of object key string",
    ],
    // decode_test.go: `{"X": "foo", "Y"}`, `[1, 2, 3+]`, `{"X":12x}`, `{"F3": -}`
    [
      'a key without a value',
      '{"X": "foo", "Y"}',
      "not valid JSON: invalid character '}' after object key",
    ],
    [
      'a bad array element',
      '{"a":[1, 2, 3+]}',
      "not valid JSON: invalid character '+' after array element",
    ],
    [
      'a bad number end',
      '{"X":12x}',
      "not valid JSON: invalid character 'x' after object key:value pair",
    ],
    ['a bare minus', '{"F3": -}', "not valid JSON: invalid character '}' in numeric literal"],
    [
      'a control character',
      '\x01 {}',
      "not valid JSON: invalid character '\\x01' looking for beginning of value",
    ],
    [
      'a literal misspelt',
      '{"a":nul1}',
      "not valid JSON: invalid character '1' in literal null (expecting 'l')",
    ],
    [
      'a missing fraction',
      '{"a":1.}',
      "not valid JSON: invalid character '}' after decimal point in numeric literal",
    ],
    [
      'a missing exponent',
      '{"a":1e}',
      "not valid JSON: invalid character '}' in exponent of numeric literal",
    ],
    [
      'a leading dot',
      '{"a":.5}',
      "not valid JSON: invalid character '.' looking for beginning of value",
    ],
    ['NaN', '{"a":NaN}', "not valid JSON: invalid character 'N' looking for beginning of value"],
    [
      'a leading zero',
      '{"a":01}',
      "not valid JSON: invalid character '1' after object key:value pair",
    ],
    ['a bad escape', '{"a":"\\x"}', "not valid JSON: invalid character 'x' in string escape code"],
    [
      'a bad \\u escape',
      '{"a":"\\u12G4"}',
      "not valid JSON: invalid character 'G' in \\u hexadecimal character escape",
    ],
    [
      'a raw newline in a string',
      '{"a":"x\ny"}',
      "not valid JSON: invalid character '\\n' in string literal",
    ],
    // Go names the first UTF-8 byte of a character that is not ASCII, as a Latin-1 rune.
    [
      'a character that is not ASCII',
      'é',
      "not valid JSON: invalid character 'Ã' looking for beginning of value",
    ],
    [
      'a byte order mark',
      '\ufeff{}',
      "not valid JSON: invalid character 'ï' looking for beginning of value",
    ],
  ])('%s', (_label, raw, detail) => {
    expect(messageOf(() => validateArguments(any, raw))).toBe(`invalid arguments: ${detail}`);
    expect(messageOf(() => parseArguments(raw))).toBe(`invalid arguments: ${detail}`);
  });

  it('empty arguments are {}', () => {
    expect(parseArguments('')).toEqual({});
  });
});

// Go: typed.go Execute runs tree.ValidateJSON (the first value only), then Decode
// (json.Unmarshal over the whole text), whose checkValid reports data after the value;
// decode_test.go: ` 42 \x01` → `invalid character '\x01' after top-level value`.
describe('data after the arguments, in the Go binding’s order', () => {
  const schema: Schema = {
    type: 'object',
    properties: [{ name: 'path', schema: { type: 'string' } }],
    required: ['path'],
  };
  const validator = compileSchema(schema);

  it.each<[string, string]>([
    ['{"path":"/x"} x', "invalid arguments: invalid character 'x' after top-level value"],
    ['{"path":"/x"}}', "invalid arguments: invalid character '}' after top-level value"],
    ['{"path":"/x"} {"Y":13}', "invalid arguments: invalid character '{' after top-level value"],
    ['{"path":"/x"} \x01', "invalid arguments: invalid character '\\x01' after top-level value"],
  ])('%j', (raw, message) => {
    expect(messageOf(() => validateArguments(validator, raw))).toBe(message);
    expect(messageOf(() => parseArguments(raw))).toBe(message);
  });

  it('reports the value’s own problem first', () => {
    expect(messageOf(() => validateArguments(validator, '{} x'))).toBe(
      'invalid arguments: missing required property "path"',
    );
    expect(messageOf(() => validateArguments(validator, '{"path":1.0} x'))).toBe(
      'invalid arguments: path: expected string, got 1.0',
    );
  });

  it('accepts spaces after the value', () => {
    expect(validateArguments(validator, ' {"path":"/x"} \n')).toEqual({ path: '/x' });
  });
});

// Go: typed.go Decode wraps json.Unmarshal's error as `invalid arguments: %w`, with no
// `not valid JSON:`; Unmarshal's checkValid says `unexpected end of JSON input` where the
// decoder says `unexpected EOF` (decode_test.go: `[2, 3`).
describe('decodeArguments, as Go’s Decode words it', () => {
  it.each<[string, string]>([
    ['[2, 3', 'invalid arguments: unexpected end of JSON input'],
    ['{', 'invalid arguments: unexpected end of JSON input'],
    ['  ', 'invalid arguments: unexpected end of JSON input'],
    ['{"X": "foo", "Y"}', "invalid arguments: invalid character '}' after object key"],
    ['{"a":1} x', "invalid arguments: invalid character 'x' after top-level value"],
    ['\x01 42', "invalid arguments: invalid character '\\x01' looking for beginning of value"],
  ])('%j', (raw, message) => {
    expect(messageOf(() => decodeArguments(raw))).toBe(message);
  });

  it('decodes JSON, empty text as {}', () => {
    expect(decodeArguments('')).toEqual({});
    expect(decodeArguments(' [1, {"a":null}] ')).toEqual([1, { a: null }]);
  });
});

describe('the Go scanner agrees with JSON.parse on what is JSON', () => {
  // Text near JSON: valid documents with one character inserted, removed or replaced.
  const nearJson = fc
    .tuple(
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v, null, 1) ?? 'null'),
      fc.nat(),
      fc.constantFrom('insert', 'remove', 'replace', 'keep'),
      fc.constantFrom(...'{}[],:"\\ -+.0123eEtfnulx\n\u00e9\ufeff\x01'.split('')),
    )
    .map(([text, at, how, char]) => {
      const i = at % (text.length + 1);
      if (how === 'insert') return text.slice(0, i) + char + text.slice(i);
      if (how === 'remove') return text.slice(0, i) + text.slice(i + 1);
      if (how === 'replace') return text.slice(0, i) + char + text.slice(i + 1);
      return text;
    });

  it('refuses exactly what JSON.parse refuses, always in Go’s words', () => {
    fc.assert(
      fc.property(nearJson, (text) => {
        let valid = true;
        try {
          JSON.parse(text);
        } catch {
          valid = false;
        }
        const message = messageOf(() => decodeArguments(text));
        expect(message === undefined).toBe(valid || text === '');
        if (message !== undefined) {
          expect(message).toMatch(
            /^invalid arguments: (unexpected end of JSON input|invalid character '.+' (looking for|after|in) .+)$/,
          );
        }
      }),
      { numRuns: 2000 },
    );
  });
});
