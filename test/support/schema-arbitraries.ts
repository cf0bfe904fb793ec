/**
 * Generated schemas in the contract's shape language, and values that mostly satisfy
 * them, for the property tests of the validator and its generated fast path.
 */
import fc from 'fast-check';
import { type JsonValue, type Schema, type SchemaProperty } from 'agenttool';

// Schemas in the contract's shape language: scalar types, any, arrays, maps (non-strict
// only), objects with optional/nullable/enum fields, and the strict form.
export type Shape =
  | { kind: 'boolean' | 'integer' | 'number' | 'string' | 'any' }
  | { kind: 'array'; items: Shape }
  | { kind: 'map'; values: Shape }
  | { kind: 'object'; fields: Field[] };
export interface Field {
  name: string;
  shape: Shape;
  optional: boolean;
  nullable: boolean;
  enumValues?: JsonValue[];
}

const fieldName = fc.constantFrom('a', 'b', 'c', 'path', 'n', 'x_y', 'Tags', 'é');

export const shapeArb = (allowMap: boolean): fc.Arbitrary<Shape> =>
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

export function toSchema(shape: Shape, strict: boolean): Schema {
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
export function valueFor(schema: Schema): fc.Arbitrary<JsonValue> {
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
