import { compileSchema, type Schema, validateArguments, ValidationError } from 'agenttool';

// The struct of the Go reference's validate_test.go:
// {path string; level,omitempty enum low,high; count *int,omitempty enum 1,2;
//  tags []string,omitempty; nested {deep bool},omitempty; ratio float64,omitempty}
function validationSchema(strict: boolean): Schema {
  const field = (name: string, schema: Schema) => ({ name, schema });
  const nested: Schema = {
    type: 'object',
    properties: [field('deep', { type: 'boolean' })],
    required: ['deep'],
    ...(strict ? { noAdditional: true } : {}),
  };
  const properties = [
    field('path', { type: 'string' }),
    field('level', { type: 'string', enum: ['low', 'high'] }),
    field('count', { type: 'integer', enum: strict ? [1, 2, null] : [1, 2], nullable: strict }),
    field('tags', { type: 'array', items: { type: 'string' } }),
    field('nested', nested),
    field('ratio', { type: 'number' }),
  ];
  return {
    type: 'object',
    properties,
    required: strict ? properties.map((p) => p.name) : ['path'],
    ...(strict ? { noAdditional: true } : {}),
  };
}

const loose = compileSchema(validationSchema(false));
const strict = compileSchema(validationSchema(true));

function errorOf(validator: typeof loose, raw: string): string | undefined {
  try {
    validateArguments(validator, raw);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as Error).message;
  }
}

describe('validation, as the contract phrases it', () => {
  it.each<[string, string, string | undefined]>([
    ['empty arguments', '', 'invalid arguments: missing required property "path"'],
    ['wrong type', '{"path":1}', 'invalid arguments: path: expected string, got 1'],
    [
      'string enum',
      '{"path":"/x","level":"mid"}',
      'invalid arguments: level: expected one of ["low", "high"], got "mid"',
    ],
    [
      'integer enum',
      '{"path":"/x","count":3}',
      'invalid arguments: count: expected one of [1, 2], got 3',
    ],
    ['integer written as 2.0', '{"path":"/x","count":2.0}', undefined],
    [
      'enum before type',
      '{"path":"/x","count":1.5}',
      'invalid arguments: count: expected one of [1, 2], got 1.5',
    ],
    [
      'array element',
      '{"path":"/x","tags":["a",2]}',
      'invalid arguments: tags[1]: expected string, got 2',
    ],
    [
      'nested property',
      '{"path":"/x","nested":{"deep":"yes"}}',
      'invalid arguments: nested.deep: expected boolean, got "yes"',
    ],
    [
      'nested missing',
      '{"path":"/x","nested":{}}',
      'invalid arguments: nested: missing required property "deep"',
    ],
    [
      'number',
      '{"path":"/x","ratio":"high"}',
      'invalid arguments: ratio: expected number, got "high"',
    ],
    ['extra ignored', '{"path":"/x","bogus":true}', undefined],
    ['null', '{"path":null}', 'invalid arguments: path: expected string, got null'],
    ['not an object', '[1]', 'invalid arguments: expected object, got array'],
  ])('%s', (_name, raw, expected) => {
    expect(errorOf(loose, raw)).toBe(expected);
  });

  it('reports text that is not JSON', () => {
    expect(errorOf(loose, '{')).toMatch(/^invalid arguments: not valid JSON: /);
  });

  it('strict: every field is required', () => {
    expect(errorOf(strict, '{"path":"/x"}')).toBe(
      'invalid arguments: missing required property "level"',
    );
  });

  const strictBase = '"path":"/x","level":"low","tags":[],"nested":{"deep":true},"ratio":1';
  it('strict: a nullable field takes null', () => {
    expect(errorOf(strict, `{${strictBase},"count":null}`)).toBeUndefined();
  });

  it('strict: an extra property is rejected', () => {
    expect(errorOf(strict, `{${strictBase},"count":1,"bogus":1}`)).toBe(
      'invalid arguments: unexpected property "bogus"',
    );
  });

  it('an empty schema accepts anything', () => {
    const any = compileSchema({});
    for (const value of [null, 1, 'x', [], {}, { a: [1] }]) expect(any(value)).toBeUndefined();
  });

  it('reports the first error in sorted key order', () => {
    expect(errorOf(loose, '{"ratio":"x","path":"/x","level":"mid"}')).toBe(
      'invalid arguments: level: expected one of ["low", "high"], got "mid"',
    );
  });

  it('every error starts with "invalid arguments: " and carries its path', () => {
    try {
      validateArguments(loose, '{"path":"/x","tags":["a",2]}');
      throw new Error('expected a failure');
    } catch (error) {
      const failure = error as ValidationError;
      expect(failure.code).toBe('INVALID_ARGUMENTS');
      expect(failure.path).toBe('tags[1]');
      expect(failure.detail).toBe('expected string, got 2');
    }
  });

  it('null in a nullable enum must be listed', () => {
    const v = compileSchema({ type: 'string', nullable: true, enum: ['a'] });
    expect(v(null)?.message).toBe('invalid arguments: expected one of ["a"], got null');
  });

  it('lists a long enum by its first values and how many more it has', () => {
    const numbers = Array.from({ length: 800_000 }, (_, i) => i);
    const many = compileSchema({
      type: 'object',
      properties: [{ name: 'x', schema: { enum: numbers } }],
    });
    const first100 = numbers.slice(0, 100).join(', ');
    expect(errorOf(many, '{"x":-1}')).toBe(
      `invalid arguments: x: expected one of [${first100}, ... and 799900 more], got -1`,
    );
    // Long values: cut once the list passes about 2,000 characters.
    const words = Array.from({ length: 50 }, (_, i) => `${'w'.repeat(300)}${i}`);
    const long = compileSchema({
      type: 'object',
      properties: [{ name: 'x', schema: { type: 'string', enum: words } }],
    });
    const shown = words
      .slice(0, 7)
      .map((w) => `"${w}"`)
      .join(', ');
    expect(errorOf(long, '{"x":"no"}')).toBe(
      `invalid arguments: x: expected one of [${shown}, ... and 43 more], got "no"`,
    );
    // An enum of 100 values is listed whole, as the Go binding lists any.
    const hundred = compileSchema({
      type: 'object',
      properties: [{ name: 'x', schema: { enum: numbers.slice(0, 100) } }],
    });
    expect(errorOf(hundred, '{"x":-1}')).toBe(
      `invalid arguments: x: expected one of [${first100}], got -1`,
    );
  });

  it('names an unknown schema type', () => {
    expect(compileSchema({ type: 'int' })(1)?.message).toBe(
      'invalid arguments: schema type "int" is not a JSON Schema type',
    );
  });

  it('validates map values through additionalProperties', () => {
    const map = compileSchema({ type: 'object', additionalProperties: { type: 'string' } });
    expect(map({ a: 'x', b: 2 })?.message).toBe('invalid arguments: b: expected string, got 2');
  });
});

describe('values described as the model wrote them', () => {
  it.each<[string, string]>([
    ['{"path":1.0}', 'invalid arguments: path: expected string, got 1.0'],
    ['{"path":1e2}', 'invalid arguments: path: expected string, got 1e2'],
    [
      '{"path":12345678901234567890}',
      'invalid arguments: path: expected string, got 12345678901234567890',
    ],
    ['{"path":"/x","count":2.50}', 'invalid arguments: count: expected one of [1, 2], got 2.50'],
    ['{"path":"/x","tags":["a", -0.0]}', 'invalid arguments: tags[1]: expected string, got -0.0'],
    [
      '{"path":"/x","nested":{"deep":1E+2},"nested":{"deep":3.0}}',
      'invalid arguments: nested.deep: expected boolean, got 3.0',
    ],
  ])('%s', (raw, expected) => {
    expect(errorOf(loose, raw)).toBe(expected);
  });

  it('quotes strings as Go does', () => {
    expect(errorOf(loose, '{"path":"/x","ratio":"a\\u0000b\\u00a0\\u2028\\t\\"é"}')).toBe(
      'invalid arguments: ratio: expected number, got "a\\x00b\\u00a0\\u2028\\t\\"é"',
    );
  });
});

describe('ValidationError', () => {
  it('is one problem for the contract’s validator, which stops at the first', () => {
    const error = compileSchema(validationSchema(false))({ path: 1, ratio: 'high' });
    expect(error?.message).toBe('invalid arguments: path: expected string, got 1');
    expect(error?.problems).toEqual([{ path: 'path', detail: 'expected string, got 1' }]);
    expect(error?.unreported).toBe(0);
  });

  it('lists further problems after the first, and how many it leaves out', () => {
    const error = new ValidationError('a', 'is wrong', {
      also: [
        { path: '', detail: 'the object is odd' },
        { path: 'b[0]', detail: 'is short' },
      ],
      unreported: 3,
    });
    expect(error.message).toBe(
      'invalid arguments: a: is wrong; the object is odd; b[0]: is short; and 3 more',
    );
    expect([error.path, error.detail, error.code]).toEqual(['a', 'is wrong', 'INVALID_ARGUMENTS']);
  });
});
