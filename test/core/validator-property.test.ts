import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';
import {
  compileSchema,
  type JsonValue,
  parseArguments,
  type Schema,
  type SchemaProperty,
  schemaToJson,
} from 'agenttool';
// Unit level: the generated fast path against the schema walk it stands in for.
import { compileInterpreted } from '../../src/core/validate';
import { generateFastCheck } from '../../src/core/generated-code';

// Schemas in the contract's shape language: scalar types, any, arrays, maps (non-strict
// only), objects with optional/nullable/enum fields, and the strict form.
type Shape =
  | { kind: 'boolean' | 'integer' | 'number' | 'string' | 'any' }
  | { kind: 'array'; items: Shape }
  | { kind: 'map'; values: Shape }
  | { kind: 'object'; fields: Field[] };
interface Field {
  name: string;
  shape: Shape;
  optional: boolean;
  nullable: boolean;
  enumValues?: JsonValue[];
}

const fieldName = fc.constantFrom('a', 'b', 'c', 'path', 'n', 'x_y', 'Tags', 'é');

const shapeArb = (allowMap: boolean): fc.Arbitrary<Shape> =>
  fc.letrec<{ shape: Shape; field: Field }>((tie) => ({
    shape: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom<Shape>(
        { kind: 'boolean' },
        { kind: 'integer' },
        { kind: 'number' },
        { kind: 'string' },
        { kind: 'any' },
      ),
      tie('shape').map((items) => ({ kind: 'array' as const, items })),
      ...(allowMap ? [tie('shape').map((values) => ({ kind: 'map' as const, values }))] : []),
      fc
        .uniqueArray(tie('field'), { maxLength: 4, selector: (f) => f.name })
        .map((fields) => ({ kind: 'object' as const, fields })),
    ),
    field: fc
      .record({
        name: fieldName,
        shape: tie('shape'),
        optional: fc.boolean(),
        nullable: fc.boolean(),
        withEnum: fc.boolean(),
      })
      .map(({ withEnum, ...field }): Field => {
        const values = enumFor(field.shape);
        return withEnum && values !== undefined ? { ...field, enumValues: values } : field;
      }),
  })).shape;

function enumFor(shape: Shape): JsonValue[] | undefined {
  switch (shape.kind) {
    case 'string':
      return ['low', 'medium', 'high'];
    case 'integer':
      return [1, 2, 3];
    case 'number':
      return [0.5, 2];
    case 'boolean':
      return [true];
    default:
      return undefined;
  }
}

function toSchema(shape: Shape, strict: boolean): Schema {
  switch (shape.kind) {
    case 'any':
      return {};
    case 'array':
      return { type: 'array', items: toSchema(shape.items, strict) };
    case 'map':
      return { type: 'object', additionalProperties: toSchema(shape.values, strict) };
    case 'object': {
      const properties: SchemaProperty[] = shape.fields.map((f) => ({
        name: f.name,
        schema: fieldSchema(f, strict),
      }));
      return {
        type: 'object',
        properties,
        required: shape.fields.filter((f) => strict || !f.optional).map((f) => f.name),
        ...(strict ? { noAdditional: true } : {}),
      };
    }
    default:
      return { type: shape.kind };
  }
}

function fieldSchema(field: Field, strict: boolean): Schema {
  const base = toSchema(field.shape, strict);
  const nullable = strict && field.nullable && field.shape.kind !== 'any';
  const enumValues =
    field.enumValues === undefined
      ? undefined
      : nullable
        ? [...field.enumValues, null]
        : field.enumValues;
  return {
    ...base,
    ...(nullable ? { nullable: true } : {}),
    ...(enumValues === undefined ? {} : { enum: enumValues }),
  };
}

// Values that mostly satisfy a schema, so both verdicts are exercised.
function valueFor(schema: Schema): fc.Arbitrary<JsonValue> {
  const variants: fc.Arbitrary<JsonValue>[] = [];
  if (schema.enum !== undefined) variants.push(fc.constantFrom(...schema.enum));
  else if (schema.type === undefined)
    variants.push(fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>);
  else if (schema.type === 'string') variants.push(fc.string({ maxLength: 5 }));
  else if (schema.type === 'integer') variants.push(fc.integer({ min: -5, max: 5 }));
  else if (schema.type === 'number')
    variants.push(fc.double({ noNaN: true, noDefaultInfinity: true }));
  else if (schema.type === 'boolean') variants.push(fc.boolean());
  else if (schema.type === 'array') {
    variants.push(fc.array(valueFor(schema.items ?? {}), { maxLength: 3 }));
  } else if (schema.type === 'object' && schema.additionalProperties !== undefined) {
    variants.push(fc.dictionary(fieldName, valueFor(schema.additionalProperties), { maxKeys: 3 }));
  } else if (schema.type === 'object') {
    const props = schema.properties ?? [];
    variants.push(
      fc
        .tuple(
          ...props.map((p) =>
            fc
              .option(valueFor(p.schema), { nil: undefined, freq: 4 })
              .map((v) => [p.name, v] as const),
          ),
          fc.option(
            fc.tuple(fc.constantFrom('extra', 'constructor'), fc.jsonValue({ maxDepth: 1 })),
            {
              nil: undefined,
              freq: 4,
            },
          ),
        )
        .map((entries) => {
          const object: Record<string, JsonValue> = {};
          for (const entry of entries) {
            if (entry === undefined) continue;
            const [key, value] = entry as readonly [string, JsonValue | undefined];
            if (value !== undefined) object[key] = value;
          }
          return object;
        }),
    );
  }
  if (schema.nullable === true) variants.push(fc.constant(null));
  variants.push(fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>);
  return fc.oneof(...variants);
}

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });

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
          const theirs = ajv.validate(schemaToJson(schema), value);
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

describe('the generated fast path and the schema walk', () => {
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
