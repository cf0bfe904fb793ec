/**
 * The generated-code fast paths (src/core/generated-code.ts) held to their
 * interpreters: the generated validity check gives the schema walk's verdict, and the
 * generated instantiator builds what the interpreted one builds. Unit level: these are
 * internals, tested because each generated function promises to equal its reference.
 */
import fc from 'fast-check';
import { parseArguments, type Schema } from 'agenttool';
import {
  type CopiedField,
  generateFastCheck,
  generateInstantiator,
  interpretInstantiator,
} from '../../src/core/generated-code';
import { compileInterpreted } from '../../src/core/validate';
import { shapeArb, toSchema, valueFor } from '../support/schema-arbitraries';

describe('the generated validity check and the schema walk', () => {
  it.each([false, true])('give the same verdict (strict=%s)', (strict) => {
    const pair = shapeArb(!strict)
      .map((shape) => toSchema(shape, strict))
      .chain((schema) => fc.tuple(fc.constant(schema), valueFor(schema)));
    fc.assert(
      fc.property(pair, ([schema, value]) => {
        const fast = generateFastCheck(schema);
        expect(fast).toBeDefined();
        expect(fast!(value)).toBe(compileInterpreted(schema)(value) === undefined);
      }),
      { numRuns: 600 },
    );
  });

  it('inlines hostile property names as literals', () => {
    const schema: Schema = {
      type: 'object',
      properties: [
        { name: '"]);throw 1;//', schema: { type: 'string' } },
        { name: '__proto__', schema: { type: 'integer' } },
      ],
      required: ['"]);throw 1;//'],
      noAdditional: true,
    };
    const fast = generateFastCheck(schema)!;
    expect(fast(parseArguments('{"\\"]);throw 1;//":"x","__proto__":1}'))).toBe(true);
    expect(fast(parseArguments('{"\\"]);throw 1;//":"x","__proto__":"no"}'))).toBe(false);
    expect(fast({})).toBe(false);
  });

  it("reads members named like Object.prototype's as own members only, and leaves an undefined member to the walk", () => {
    const schema: Schema = {
      type: 'object',
      properties: [
        { name: 'toString', schema: { type: 'string' } },
        { name: 'constructor', schema: { type: 'integer' } },
        { name: '__proto__', schema: { type: 'boolean' } },
        { name: 'name', schema: { type: 'string' } },
        { name: 'note', schema: { type: 'string' } },
      ],
      required: ['toString', 'name'],
    };
    const fast = generateFastCheck(schema)!;
    const walk = compileInterpreted(schema);
    const decoded = [
      '{"toString":"t","name":"n"}',
      '{"name":"n"}',
      '{"toString":"t"}',
      '{"toString":1,"name":"n"}',
      '{"toString":"t","name":"n","constructor":2,"__proto__":true,"note":"x"}',
      '{"toString":"t","name":"n","constructor":"2"}',
      '{"toString":"t","name":"n","__proto__":1}',
      '{"toString":"t","name":"n","note":null}',
    ].map((text) => parseArguments(text));
    for (const value of decoded) expect(fast(value)).toBe(walk(value) === undefined);
    // Not decoded JSON: a member that is there but undefined. The check may say no and
    // leave the verdict to the walk; it must never say yes where the walk says no.
    for (const value of [
      { toString: 't', name: undefined },
      { toString: 't', name: 'n', note: undefined },
    ]) {
      if (fast(value)) expect(walk(value)).toBeUndefined();
    }
    expect(fast({ toString: 't', name: 'n', note: undefined })).toBe(false);
    // A required member of any type, named like a prototype member: absent is absent.
    const anyConstructor: Schema = {
      type: 'object',
      properties: [{ name: 'constructor', schema: {} }],
      required: ['constructor'],
    };
    expect(generateFastCheck(anyConstructor)!(parseArguments('{}'))).toBe(false);
    expect(compileInterpreted(anyConstructor)(parseArguments('{}'))).toBeDefined();
    expect(generateFastCheck(anyConstructor)!(parseArguments('{"constructor":[]}'))).toBe(true);
  });
});

class Target {
  preset = 'kept unless the arguments say otherwise';
}
const New = Target as unknown as new () => Record<string, unknown>;

/** Tags the value, so a converted field is told apart from a copied one. */
const tag = (value: unknown): unknown => ({ converted: value });
const convertField = (convert: (value: unknown) => unknown, value: unknown): unknown =>
  convert(value);

// Keys of every kind a field may have: plain, hostile in code, inherited by every object.
const key = fc.oneof(
  fc.constantFrom('a', 'b', 'preset', 'toString', 'valueOf', 'hasOwnProperty', '"];//', 'é'),
  fc.string({ maxLength: 6 }),
);
const fieldsArb: fc.Arbitrary<CopiedField[]> = fc
  .uniqueArray(key, { maxLength: 6 })
  .chain((keys) =>
    fc.tuple(...keys.map((k) => fc.boolean().map((converted) => ({ k, converted })))),
  )
  .map((entries) =>
    entries.map(({ k, converted }) => ({ key: k, convert: converted ? tag : undefined })),
  );
const plainArb = fc.dictionary(key, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 6 });

describe('the generated instantiator and the interpreted one', () => {
  it('build equal instances from the same arguments', () => {
    fc.assert(
      fc.property(fieldsArb, plainArb, (fields, plain) => {
        const generated = generateInstantiator(New, fields, convertField);
        expect(generated).toBeDefined();
        const interpreted = interpretInstantiator(New, fields, convertField);
        const made = generated!(plain);
        expect(made).toStrictEqual(interpreted(plain));
        expect(made).toBeInstanceOf(Target);
      }),
      { numRuns: 500 },
    );
  });

  it('copy only listed fields, an inherited name only when it is the arguments’ own', () => {
    const fields: CopiedField[] = [
      { key: 'toString', convert: undefined },
      { key: 'when', convert: tag },
      { key: 'gone', convert: undefined },
    ];
    for (const make of [
      generateInstantiator(New, fields, convertField)!,
      interpretInstantiator(New, fields, convertField),
    ]) {
      const made = make({ when: 'now', extra: 1, toString: 'own' });
      expect({ ...made }).toEqual({
        preset: 'kept unless the arguments say otherwise',
        toString: 'own',
        when: { converted: 'now' },
      });
      expect(Object.hasOwn(make({}), 'toString')).toBe(false);
      expect((make({ when: null }) as { when?: unknown }).when).toBeNull();
    }
  });

  it('fail alike on a store the instance refuses (strict mode, as the module code is)', () => {
    class ReadOnly {
      get x(): string {
        return 'getter';
      }
    }
    const ReadOnlyNew = ReadOnly as unknown as new () => Record<string, unknown>;
    const fields: CopiedField[] = [{ key: 'x', convert: undefined }];
    for (const make of [
      generateInstantiator(ReadOnlyNew, fields, convertField)!,
      interpretInstantiator(ReadOnlyNew, fields, convertField),
    ]) {
      expect(() => make({ x: 'argument' })).toThrow(TypeError);
    }
  });
});
