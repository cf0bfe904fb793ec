import {
  AgentToolError,
  errorResult,
  imagePart,
  outputText,
  isResult,
  PanicError,
  parts,
  structuredResult,
  text,
  textPart,
  toResult,
  mediaTypeOf,
} from 'agenttool';
// Unit level: how the executor and the MCP server turn what a tool threw into its failure.
import { toolFailure } from '../../src/core/errors';

describe('output conversion', () => {
  it('a string is text', () => {
    expect(toResult('hello')).toEqual({ output: 'hello' });
  });

  it('an object is its JSON text', () => {
    expect(toResult({ doubled: 4 })).toEqual({ output: '{"doubled":4}' });
    // Go: typed.go Output marshals with json.Marshal, which escapes <, > and &.
    expect(toResult({ html: '<b> & </b>' })).toEqual({
      output: '{"html":"\\u003cb\\u003e \\u0026 \\u003c/b\\u003e"}',
    });
  });

  it('content parts are parts', () => {
    const image = imagePart(new Uint8Array([1, 2, 3]), 'image/png');
    expect(image.image_url).toBe('data:image/png;base64,AQID');
    expect(toResult([textPart('caption'), image])).toEqual({
      output: [textPart('caption'), image],
    });
  });

  it('a Result passes through, details and terminate kept', () => {
    const result = { output: 'done', details: { n: 1 }, terminate: true };
    expect(toResult(result)).toBe(result);
  });

  it('nothing is the empty text', () => {
    expect(toResult(undefined)).toEqual({ output: '' });
    expect(toResult(null)).toEqual({ output: '' });
  });

  it('an empty array and arrays of data are JSON', () => {
    expect(toResult([])).toEqual({ output: '[]' });
    expect(toResult([1, { type: 'unknown' }])).toEqual({ output: '[1,{"type":"unknown"}]' });
  });

  it("an object with members besides a Result's is data", () => {
    expect(toResult({ output: 'x', extra: 1 })).toEqual({ output: '{"output":"x","extra":1}' });
  });

  it('a value JSON cannot encode is an error', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => toResult(circular)).toThrow(/^encode result: /);
    expect(() => toResult(10n)).toThrow(AgentToolError);
  });

  it.each<[string, unknown, string]>([
    ['NaN', { x: NaN }, 'encode result: json: unsupported value: NaN'],
    ['Infinity', { y: [1, Infinity] }, 'encode result: json: unsupported value: +Inf'],
    ['-Infinity', -Infinity, 'encode result: json: unsupported value: -Inf'],
    [
      'a Number object',
      { n: Object(NaN) as unknown },
      'encode result: json: unsupported value: NaN',
    ],
    [
      'what toJSON returns',
      { toJSON: () => ({ v: Infinity }) },
      'encode result: json: unsupported value: +Inf',
    ],
  ])("a number JSON has no form for (%s) fails as Go's json.Marshal does", (_, value, message) => {
    let thrown: unknown;
    try {
      toResult(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AgentToolError);
    expect((thrown as AgentToolError).code).toBe('INVALID_OUTPUT');
    expect((thrown as Error).message).toBe(message);
  });

  it('null written as null, and a date JSON writes as null, stay null', () => {
    expect(toResult({ a: null, b: [null], null: 'null' })).toEqual({
      output: '{"a":null,"b":[null],"null":"null"}',
    });
    expect(toResult({ at: new Date(NaN) })).toEqual({ output: '{"at":null}' });
  });
});

describe('structured results', () => {
  it('carry the value as plain JSON and its Go JSON text as output', () => {
    class Reading {
      constructor(
        readonly celsius: number,
        readonly at: Date,
        readonly note: string,
      ) {}
    }
    const result = structuredResult(new Reading(21.5, new Date(0), '<ok>'));
    expect(result.structured).toEqual({
      celsius: 21.5,
      at: '1970-01-01T00:00:00.000Z',
      note: '<ok>',
    });
    expect(Object.getPrototypeOf(result.structured)).toBe(Object.prototype);
    expect(result.output).toBe(
      '{"celsius":21.5,"at":"1970-01-01T00:00:00.000Z","note":"\\u003cok\\u003e"}',
    );
  });

  it('take a text of their own for the model', () => {
    expect(structuredResult({ n: 3 }, 'Three')).toEqual({ output: 'Three', structured: { n: 3 } });
  });

  it('refuse a value whose JSON is not an object', () => {
    expect(() => structuredResult([1, 2])).toThrow(
      'encode result: a structured result is a JSON object, got array',
    );
    expect(() => structuredResult({ toJSON: () => 'x' })).toThrow(
      'encode result: a structured result is a JSON object, got string',
    );
    expect(() => structuredResult({ n: 1n })).toThrow(/^encode result: /);
    expect(() => structuredResult({ ratio: 0 / 0 })).toThrow(
      'encode result: json: unsupported value: NaN',
    );
    expect(() => structuredResult({ ratio: 1 / 0 }, 'text of its own')).toThrow(
      'encode result: json: unsupported value: +Inf',
    );
  });

  it('are results; a structured member that is not an object makes a value data', () => {
    expect(isResult({ output: 'x', structured: { n: 1 } })).toBe(true);
    expect(isResult({ output: 'x', structured: [1] })).toBe(false);
    expect(toResult({ output: 'x', structured: 'n' })).toEqual({
      output: '{"output":"x","structured":"n"}',
    });
  });
});

describe('output text', () => {
  it('reads textual parts only, concatenated', () => {
    expect(
      outputText([
        { type: 'input_text', text: 'a' },
        { type: 'input_image', image_url: 'data:,' },
        { type: 'output_text', text: 'b' },
        { type: 'summary_text', text: 'c' },
        { type: 'reasoning_text', text: 'd' },
        { type: 'text', text: 'e' },
        { type: 'refusal', refusal: 'no' },
      ]),
    ).toBe('abcde');
    expect(outputText('plain')).toBe('plain');
    expect(outputText(parts().output)).toBe('');
    expect(text('x').output).toBe('x');
  });
});

describe('errors at the model boundary', () => {
  it('errorResult prefixes Error: once', () => {
    expect(errorResult(new Error('x'))).toEqual({ output: 'Error: x' });
  });

  it('a programming fault is a one-line panic naming the tool, stack kept', () => {
    const fault = new TypeError("Cannot read properties of undefined (reading 'x')");
    const panic = toolFailure('panics', fault);
    expect(panic).toBeInstanceOf(PanicError);
    expect(panic.message).toBe(
      `tool "panics" panicked: TypeError: Cannot read properties of undefined (reading 'x')`,
    );
    expect(panic.message).not.toContain('\n');
    expect(panic.stack).toContain(fault.stack);
    expect((panic as PanicError).value).toBe(fault);
  });

  it('a thrown string is a panic with that value', () => {
    expect(toolFailure('panics', 'oh no').message).toBe('tool "panics" panicked: oh no');
    expect(toolFailure('p', 'line one\nline two').message).toBe(
      'tool "p" panicked: line one line two',
    );
    expect(toolFailure('p', { code: 7 }).message).toBe('tool "p" panicked: {"code":7}');
  });

  it("an ordinary error is the tool's own and passes unchanged", () => {
    const own = new Error('disk on fire');
    expect(toolFailure('t', own)).toBe(own);
    expect(errorResult(toolFailure('t', own)).output).toBe('Error: disk on fire');
  });
});

describe('media types of file parts', () => {
  it.each([
    ['notes.txt', 'text/plain'],
    ['Report.PDF', 'application/pdf'],
    ['dir.v2/photo.jpeg', 'image/jpeg'],
    ['https://example.com/a/voice.mp3', 'audio/mpeg'],
    ['clip.webm', 'audio/webm'],
    ['archive.tar.gz', 'application/octet-stream'],
    ['.env', 'application/octet-stream'],
    ['dir.d/README', 'application/octet-stream'],
    ['', 'application/octet-stream'],
  ])('mediaTypeOf(%j) is %s', (name, expected) => {
    expect(mediaTypeOf(name)).toBe(expected);
  });
});
