import 'reflect-metadata';
import { argumentsParser, compileSchema, Param, type Schema, validateArguments } from 'agenttool';
import { compileInterpreted } from '../../src/core/validate';
import { generateFastCheck } from '../../src/core/generated-code';
import { validationMessageOf as errorOf } from '../support/thrown';

// Numbers JSON can write but a JavaScript number cannot hold as written: a number out
// of float64's range (Go's json.Number.Float64 fails with ErrRange, so Go's validator
// says `expected number, got 1e400`), and an integer beyond 2^53, which JSON.parse
// would round (Go decodes it into an int64 exactly; here it is refused, never changed).

class Measured {
  @Param() n!: number;
  @Param('', { type: 'integer', optional: true }) i?: number;
  @Param('', { type: 'integer', enum: [1, 2], optional: true }) level?: number;
  @Param('', { items: 'number', optional: true }) list?: number[];
}

describe('numbers a JavaScript number cannot hold', () => {
  const parse = argumentsParser(Measured);

  it.each([
    ['{"n":1e400}', 'invalid arguments: n: expected number, got 1e400'],
    ['{"n":-1e400}', 'invalid arguments: n: expected number, got -1e400'],
    ['{"n":1E+309}', 'invalid arguments: n: expected number, got 1E+309'],
    ['{"n":1,"list":[1,2e999]}', 'invalid arguments: list[1]: expected number, got 2e999'],
    ['{"n":1,"i":1e400}', 'invalid arguments: i: expected integer, got 1e400'],
    ['{"n":1,"level":1e400}', 'invalid arguments: level: expected one of [1, 2], got 1e400'],
  ])('a number out of range is refused as written: %s', (raw, message) => {
    expect(errorOf(() => parse(raw))).toBe(message);
  });

  it('the largest exact integers and numbers near the ends of the range pass unchanged', () => {
    const args = parse('{"n":1.7976931348623157e308,"i":9007199254740991}') as Measured;
    expect(args.n).toBe(Number.MAX_VALUE);
    expect(args.i).toBe(Number.MAX_SAFE_INTEGER);
    expect((parse('{"n":-5e-324,"i":-9007199254740991}') as Measured).i).toBe(
      Number.MIN_SAFE_INTEGER,
    );
    // A number type keeps float semantics: a large integer there is a float, as in Go.
    expect((parse('{"n":9007199254740993}') as Measured).n).toBe(9007199254740992);
    expect((parse('{"n":1,"i":2.0}') as Measured).i).toBe(2);
  });

  it('the generated check and the schema walk agree on non-finite and unsafe numbers', () => {
    const schemas: Schema[] = [
      { type: 'number' },
      { type: 'integer' },
      { type: 'number', enum: [1, 2] },
      { type: 'integer', nullable: true },
      { type: 'array', items: { type: 'number' } },
      {},
    ];
    const values = [
      Infinity,
      -Infinity,
      NaN,
      2 ** 53,
      2 ** 53 + 2,
      -(2 ** 53),
      2 ** 53 - 1,
      1,
      0.5,
      -0,
      1e300,
      null,
      [Infinity],
      [1, 2],
    ];
    for (const schema of schemas) {
      const fast = generateFastCheck(schema);
      const walk = compileInterpreted(schema);
      expect(fast).toBeDefined();
      for (const value of values) {
        expect([schema, value, fast!(value)]).toEqual([schema, value, walk(value) === undefined]);
      }
    }
    expect(compileInterpreted({ type: 'number' })(Infinity)?.message).toBe(
      'invalid arguments: expected number, got Infinity',
    );
  });

  it('the compiled validator refuses them too, through its text entry', () => {
    const validator = compileSchema({ type: 'number' });
    expect(errorOf(() => validateArguments(validator, '-1e400'))).toBe(
      'invalid arguments: expected number, got -1e400',
    );
    expect(validateArguments(validator, '1e308')).toBe(1e308);
  });
});
