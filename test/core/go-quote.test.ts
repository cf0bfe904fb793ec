import {
  Executor,
  type Schema,
  ToolSet,
  compileSchema,
  newTool,
  text,
  validateArguments,
} from 'agenttool';
// Unit level: the quoting every message of ours uses.
import { goQuote } from '../../src/core/quote';

// Go quotes every name and value in these messages with %q, i.e. strconv.Quote: printable
// runes as they are (unicode.IsPrint), \a \b \f \n \r \t \v \" \\, other runes below
// U+0080 as \xNN, other unprintable runes as \uNNNN or \UNNNNNNNN. The expected texts
// below are what strconv.Quote returns for the same strings.
describe('goQuote, as strconv.Quote', () => {
  it.each<[string, string, string]>([
    ['plain ASCII', 'path', '"path"'],
    ['a control character', 'a\x01b', '"a\\x01b"'],
    ['DEL', '\x7f', '"\\x7f"'],
    ['the short escapes', '\x07\b\f\n\r\t\v', '"\\a\\b\\f\\n\\r\\t\\v"'],
    ['quote and backslash', 'say "hi"\\', '"say \\"hi\\"\\\\"'],
    ['line and paragraph separators', 'a\u2028b\u2029', '"a\\u2028b\\u2029"'],
    ['no-break space and soft hyphen', '\u00a0\u00ad', '"\\u00a0\\u00ad"'],
    ['a C1 control', '\u0085', '"\\u0085"'],
    ['a zero-width space (format)', '\u200b', '"\\u200b"'],
    ['a tag character beyond the BMP', '\u{e0001}', '"\\U000e0001"'],
    ['letters, marks and symbols', 'café ñ 日本 😀 €', '"café ñ 日本 😀 €"'],
    // encoding/json decodes "\ud800" (a lone surrogate) to U+FFFD, which %q prints as is.
    ['a lone surrogate', JSON.parse('"a\\ud800b"') as string, '"a\ufffdb"'],
  ])('%s', (_label, input, quoted) => {
    expect(goQuote(input)).toBe(quoted);
  });
});

describe('messages quote names and values as Go does', () => {
  const strictSchema: Schema = {
    type: 'object',
    properties: [{ name: 'a\u2028b', schema: { type: 'string' } }],
    required: ['a\u2028b'],
    noAdditional: true,
  };

  it('missing required property (Go: validate.go validateObject)', () => {
    expect(() => validateArguments(compileSchema(strictSchema), '{}')).toThrow(
      'invalid arguments: missing required property "a\\u2028b"',
    );
  });

  it('unexpected property (Go: validate.go validateObject)', () => {
    expect(() =>
      validateArguments(compileSchema(strictSchema), '{"a\\u2028b":"x","b\\u0001\\n":1}'),
    ).toThrow('invalid arguments: unexpected property "b\\x01\\n"');
  });

  it('a string value described in a message (Go: validate.go describe)', () => {
    const schema: Schema = {
      type: 'object',
      properties: [{ name: 'n', schema: { type: 'integer' } }],
    };
    expect(() => validateArguments(compileSchema(schema), '{"n":"\\u0007<\\u2029>"}')).toThrow(
      'invalid arguments: n: expected integer, got "\\a<\\u2029>"',
    );
  });

  it('no tool for call, a panic and an onStart panic (Go: exec.go run, PanicError.Error, start)', async () => {
    const panics = newTool({
      name: 'tab\there',
      execute: () => {
        throw new TypeError('boom');
      },
    });
    const plain = newTool({ name: 'plain', execute: () => text('ran') });
    const [noTool, panicked] = await new Executor().results([
      { tool: undefined, call: { id: 'call\x01', args: '{}' } },
      { tool: panics, call: { id: 'c2', args: '{}' } },
    ]);
    expect(noTool?.error?.message).toBe('no tool for call "call\\x01"');
    expect(panicked?.error?.message).toBe('tool "tab\\there" panicked: TypeError: boom');

    const refusing = new Executor({
      onStart: () => {
        throw new RangeError('bad');
      },
    });
    const [refused] = await refusing.results([
      { tool: plain, call: { id: 'c\u2028', args: '{}' } },
    ]);
    expect(refused?.error?.message).toBe(
      'agenttool: OnStart for call "c\\u2028" panicked: RangeError: bad',
    );
  });

  it('a duplicate name in a tool set (Go: tool.go Set.Validate)', () => {
    const tool = newTool({ name: 'dup\x00', execute: () => text('') });
    expect(() => new ToolSet([tool, tool]).validate()).toThrow('tool "dup\\x00": duplicate name');
  });
});
