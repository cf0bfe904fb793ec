import {
  AgentToolError,
  errorResult,
  imagePart,
  outputText,
  PanicError,
  parts,
  text,
  textPart,
  toResult,
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
