import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';
import { compileSchema, parseArguments, type Schema, schemaToJson } from 'agenttool';
import { shapeArb, toSchema, valueFor } from '../support/schema-arbitraries';

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });

/**
 * The schema as ajv is to read it: an integer is also within ±(2^53 - 1), since the
 * validator refuses a larger one (JSON.parse has rounded it) where ajv takes any whole
 * number. Everything else is the schema as served.
 */
function withExactIntegers(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(withExactIntegers);
  if (typeof json !== 'object' || json === null) return json;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    out[key] = key === 'enum' ? value : withExactIntegers(value);
  }
  const type = out.type;
  if (type === 'integer' || (Array.isArray(type) && type.includes('integer'))) {
    out.minimum = Number.MIN_SAFE_INTEGER;
    out.maximum = Number.MAX_SAFE_INTEGER;
  }
  return out;
}

describe('our validator and ajv (draft 2020-12) agree', () => {
  it.each([false, true])(
    'on accept/reject for generated schemas and values (strict=%s)',
    (strict) => {
      const pair = shapeArb(!strict)
        .map((shape) => toSchema(shape, strict))
        .chain((schema) => fc.tuple(fc.constant(schema), valueFor(schema)));
      fc.assert(
        fc.property(pair, ([schema, value]) => {
          const ours = compileSchema(schema)(value) === undefined;
          const theirs = ajv.validate(withExactIntegers(schemaToJson(schema)) as object, value);
          expect({ schema: schemaToJson(schema), value, ours }).toEqual({
            schema: schemaToJson(schema),
            value,
            ours: theirs,
          });
        }),
        { numRuns: 600 },
      );
    },
  );
});

describe('hostile input', () => {
  const schema: Schema = {
    type: 'object',
    properties: [
      { name: 'a', schema: { type: 'string' } },
      { name: 'inner', schema: { type: 'object', properties: [], required: [] } },
    ],
    required: ['a'],
  };
  const validate = compileSchema(schema);
  const hostileKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'a');
  const hostile: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'medium' },
      fc.jsonValue({ maxDepth: 1 }),
      fc.string({ maxLength: 20000 }),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(fc.oneof(hostileKey, fc.string()), tie('value'), { maxKeys: 4 }),
    ),
  })).value;

  it('never throws and never touches Object.prototype', () => {
    fc.assert(
      fc.property(hostile, (value) => {
        const raw = JSON.stringify(value) ?? 'null';
        const parsed = parseArguments(raw);
        expect(() => validate(parsed)).not.toThrow();
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.keys(Object.prototype)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps __proto__ an own property of the parsed arguments', () => {
    const parsed = parseArguments(
      '{"a":"x","__proto__":{"polluted":true},"inner":{"__proto__":1}}',
    );
    expect(validate(parsed)).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  it('refuses deep nesting with the depth limit, without a stack overflow', () => {
    const depth = 5000;
    const raw = `{"a":"x","inner":${'['.repeat(depth)}${']'.repeat(depth)}}`;
    const refusal =
      "invalid arguments: not valid JSON: invalid character '[' exceeded max depth of 1000";
    expect(() => parseArguments(raw)).toThrow(refusal);
    expect(validate(JSON.parse(raw))?.message).toBe(refusal);
  });
});
