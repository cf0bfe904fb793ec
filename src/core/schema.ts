import { depthExceeded, isJsonObject, type JsonObject, type JsonValue } from './json';

/** A named property of an object schema, in field order. */
export interface SchemaProperty {
  readonly name: string;
  readonly schema: Schema;
}

/**
 * The contract's schema model: the subset of JSON Schema that generated schemas use.
 * {@link schemaToJson} writes it with members in the RFC order; {@link compileSchema}
 * validates against it with the contract's messages.
 */
export interface Schema {
  /** A JSON Schema type name; absent means any value. */
  readonly type?: string;
  /** Written as the type union `[type, "null"]`; null is accepted. */
  readonly nullable?: boolean;
  readonly description?: string;
  readonly format?: string;
  /** Allowed values in declaration order; compared by JSON value. */
  readonly enum?: readonly JsonValue[];
  /** Properties in field order; written as an object even when empty. */
  readonly properties?: readonly SchemaProperty[];
  /** Required property names, in field order. */
  readonly required?: readonly string[];
  /** The schema of every item of an array. */
  readonly items?: Schema;
  /** The schema of every value of a map (properties not listed). */
  readonly additionalProperties?: Schema;
  /** Written as `additionalProperties: false`: unknown properties are rejected. Wins over `additionalProperties`. */
  readonly noAdditional?: boolean;
  /**
   * Further JSON Schema keywords (`minimum`, `maxLength`, `pattern`, ...), written after
   * the contract's members so that the model sees them. {@link compileSchema} does not
   * check them: they come from class-validator constraints, which class-validator
   * checks, and {@link schemaFromJson} reads no schema that has them.
   */
  readonly constraints?: SchemaConstraints;
}

/**
 * JSON Schema keywords beyond the contract's subset, written in this order after the
 * contract's members: `minimum`, `exclusiveMinimum`, `maximum`, `exclusiveMaximum`,
 * `multipleOf` (numbers), `minLength`, `maxLength`, `pattern` (strings), `minItems`,
 * `maxItems`, `uniqueItems` (arrays).
 */
export interface SchemaConstraints {
  readonly minimum?: number;
  readonly exclusiveMinimum?: number;
  readonly maximum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  /** An ECMA-262 regular expression, read with the `u` flag; unanchored. */
  readonly pattern?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
}

/** The keywords of {@link SchemaConstraints}, in the order they are written. */
export const CONSTRAINT_KEYWORDS = [
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
] as const satisfies readonly (keyof SchemaConstraints)[];

/** The no-arguments schema, exactly `{"type":"object","properties":{},"required":[]}`. */
export const NO_ARGS_SCHEMA: Schema = Object.freeze({
  type: 'object',
  properties: Object.freeze([]),
  required: Object.freeze([]),
});

/** The JSON of the no-arguments schema. A fresh copy each call. */
export function noArgsSchema(): JsonObject {
  return { type: 'object', properties: {}, required: [] };
}

/**
 * Writes a schema as JSON with members in the RFC order: type, description, format,
 * enum, properties, required, items, additionalProperties; then its constraints, in the
 * order of `CONSTRAINT_KEYWORDS`. `type` is `[type, "null"]` when nullable;
 * `enum`, `properties` and `required` are written whenever set, even empty;
 * `additionalProperties: false` when `noAdditional`.
 */
export function schemaToJson(schema: Schema): JsonObject {
  const out: JsonObject = {};
  if (schema.type !== undefined && schema.type !== '') {
    out.type = schema.nullable === true ? [schema.type, 'null'] : schema.type;
  }
  if (schema.description !== undefined && schema.description !== '') {
    out.description = schema.description;
  }
  if (schema.format !== undefined && schema.format !== '') out.format = schema.format;
  if (schema.enum !== undefined) out.enum = [...schema.enum];
  if (schema.properties !== undefined) {
    const properties: JsonObject = {};
    for (const p of schema.properties) properties[p.name] = schemaToJson(p.schema);
    out.properties = properties;
  }
  if (schema.required !== undefined) out.required = [...schema.required];
  if (schema.items !== undefined) out.items = schemaToJson(schema.items);
  if (schema.noAdditional === true) out.additionalProperties = false;
  else if (schema.additionalProperties !== undefined) {
    out.additionalProperties = schemaToJson(schema.additionalProperties);
  }
  const constraints = schema.constraints;
  if (constraints !== undefined) {
    for (const keyword of CONSTRAINT_KEYWORDS) {
      const value = constraints[keyword];
      if (value !== undefined) out[keyword] = value;
    }
  }
  return out;
}

const SUPPORTED_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'description',
  'format',
  'enum',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'title',
  'default',
  'examples',
  '$schema',
]);

/**
 * Reads a JSON Schema written in the contract's subset back into the model, so it can
 * be validated with the contract's messages. Returns undefined when the schema uses a
 * keyword outside the subset, constraints such as `minimum` included (the caller then
 * needs a general validator, which checks them), and for a
 * schema nested deeper than `MAX_JSON_DEPTH`, which the model's recursive compiler
 * would refuse. Annotations that do not constrain (`title`, `default`, `examples`,
 * `$schema`) are dropped.
 */
export function schemaFromJson(json: JsonValue): Schema | undefined {
  if (depthExceeded(json) !== undefined) return undefined;
  return readSchema(json);
}

function readSchema(json: JsonValue): Schema | undefined {
  if (json === true) return {};
  if (!isJsonObject(json)) return undefined;
  for (const key of Object.keys(json)) if (!SUPPORTED_KEYWORDS.has(key)) return undefined;
  const schema: { -readonly [K in keyof Schema]: Schema[K] } = {};
  const type = json.type;
  if (type !== undefined) {
    if (typeof type === 'string') schema.type = type;
    else if (
      Array.isArray(type) &&
      type.length === 2 &&
      typeof type[0] === 'string' &&
      type[0] !== 'null' &&
      type[1] === 'null'
    ) {
      schema.type = type[0];
      schema.nullable = true;
    } else return undefined;
  }
  if (json.description !== undefined) {
    if (typeof json.description !== 'string') return undefined;
    schema.description = json.description;
  }
  if (json.format !== undefined) {
    if (typeof json.format !== 'string') return undefined;
    schema.format = json.format;
  }
  if (json.enum !== undefined) {
    if (!Array.isArray(json.enum)) return undefined;
    schema.enum = json.enum;
  }
  if (json.properties !== undefined) {
    if (!isJsonObject(json.properties)) return undefined;
    const properties: SchemaProperty[] = [];
    for (const [name, sub] of Object.entries(json.properties)) {
      const parsed = readSchema(sub);
      if (parsed === undefined) return undefined;
      properties.push({ name, schema: parsed });
    }
    schema.properties = properties;
  }
  if (json.required !== undefined) {
    if (!Array.isArray(json.required) || !json.required.every((r) => typeof r === 'string')) {
      return undefined;
    }
    schema.required = json.required;
  }
  if (json.items !== undefined) {
    const items = readSchema(json.items);
    if (items === undefined) return undefined;
    schema.items = items;
  }
  if (json.additionalProperties !== undefined) {
    if (json.additionalProperties === false) schema.noAdditional = true;
    else if (json.additionalProperties !== true) {
      const additional = readSchema(json.additionalProperties);
      if (additional === undefined) return undefined;
      schema.additionalProperties = additional;
    }
  }
  return schema;
}

/** Schemas written elsewhere (a remote server's), checked with the guards they need. */
const foreignSchemas = new WeakSet<object>();

/**
 * Marks a schema as written elsewhere (a remote server lists it): a check of it must
 * hold nothing up whatever it says (a `pattern` that backtracks for good, references
 * that expand without end), so a server that serves it again checks it as
 * {@link isForeignSchema} says. A schema made from one (a transform's) is marked too.
 */
export function markForeignSchema<T extends object | undefined>(schema: T): T {
  if (schema !== undefined) foreignSchemas.add(schema);
  return schema;
}

/** True when the schema was marked with {@link markForeignSchema}. */
export function isForeignSchema(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && foreignSchemas.has(schema);
}
