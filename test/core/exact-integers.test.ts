import 'reflect-metadata';
import { argumentsParser, compileSchema, Param, validateArguments } from 'agenttool';
import { compileInterpreted } from '../../src/core/validate';
import { generateFastCheck } from '../../src/core/generated-code';
import { validationMessageOf as errorOf } from '../support/thrown';

// A JavaScript number holds integers exactly up to 2^53; JSON.parse rounds a larger one
// (9007199254740993 reads as 9007199254740992). Go decodes it into an int64 exactly, so
// the tool would act on another number than the model wrote: it is refused instead.

class Counted {
  @Param('', { type: 'integer' }) i!: number;
  @Param('', { type: 'integer', optional: true, nullable: true }) id?: number | null;
}

describe('integers beyond 2^53', () => {
  const parse = argumentsParser(Counted);

  it.each([
    ['{"i":9007199254740993}', 'invalid arguments: i: expected integer, got 9007199254740993'],
    ['{"i":9007199254740992}', 'invalid arguments: i: expected integer, got 9007199254740992'],
    ['{"i":-9007199254740993}', 'invalid arguments: i: expected integer, got -9007199254740993'],
    ['{"i":1e20}', 'invalid arguments: i: expected integer, got 1e20'],
    [
      '{"i":1,"id":12345678901234567890}',
      'invalid arguments: id: expected integer, got 12345678901234567890',
    ],
  ])('are refused as written, never rounded: %s', (raw, message) => {
    expect(errorOf(() => parse(raw))).toBe(message);
  });

  it('up to 2^53 - 1 pass unchanged, as do integers written with a fraction of zero', () => {
    expect((parse('{"i":9007199254740991}') as Counted).i).toBe(Number.MAX_SAFE_INTEGER);
    expect((parse('{"i":-9007199254740991}') as Counted).i).toBe(Number.MIN_SAFE_INTEGER);
    expect((parse('{"i":2.0}') as Counted).i).toBe(2);
    expect((parse('{"i":1e3}') as Counted).i).toBe(1000);
  });

  it('the generated check and the schema walk agree', () => {
    const schema = { type: 'integer' } as const;
    const fast = generateFastCheck(schema)!;
    const walk = compileInterpreted(schema);
    for (const value of [2 ** 53, 2 ** 53 + 2, -(2 ** 53), 2 ** 53 - 1, 1 - 2 ** 53, 1e20, 0, -0]) {
      expect([value, fast(value)]).toEqual([value, walk(value) === undefined]);
    }
    expect(walk(2 ** 53)?.message).toBe(
      'invalid arguments: expected integer, got 9007199254740992',
    );
    expect(errorOf(() => validateArguments(compileSchema(schema), '9007199254740993'))).toBe(
      'invalid arguments: expected integer, got 9007199254740993',
    );
  });
});
