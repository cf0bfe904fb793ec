import {
  type Constructor,
  type JsonObject,
  type JsonValue,
  NO_ARGS_SCHEMA,
  type Schema,
  schemaToJson,
} from '../core';
import { type ClassPlans, type FieldPlan } from './class-plan';
import { type Shape } from './shape';
import { type SchemaKeywords } from './constraint-keywords';

/** The schema of an arguments class under one strictness. */
export interface BuiltSchema {
  /** The model validated at call time; undefined for a supplied schema (never validated). */
  readonly model: Schema | undefined;
  /** The parameters JSON as served (a supplied schema verbatim). */
  readonly json: JsonObject;
  /** Every problem of the class and of the classes it nests. */
  readonly problems: readonly string[];
}

const NO_ADDITIONAL_NO_ARGS: Schema = Object.freeze({
  type: 'object',
  properties: Object.freeze([]),
  required: Object.freeze([]),
  noAdditional: true,
});

/** The no-arguments schema (`additionalProperties: false` under strict). */
export function noArgsModel(strict: boolean): Schema {
  return strict ? NO_ADDITIONAL_NO_ARGS : NO_ARGS_SCHEMA;
}

/**
 * The schema of an arguments class: read from its `@Param` fields (ancestors first),
 * or supplied by its static `jsonSchema()`, with every problem of the classes it reads.
 */
export function buildSchema(cls: Constructor, strict: boolean, plans: ClassPlans): BuiltSchema {
  const problems: string[] = [];
  const plan = plans.of(cls);
  if (plan.supplied !== undefined) {
    problems.push(...plan.problems);
    return { model: undefined, json: plan.supplied, problems };
  }
  const model = new Builder(strict, problems, plans).classSchema(cls, [], cls.name);
  const json = model === undefined ? {} : schemaToJson(model);
  return { model: problems.length > 0 ? undefined : model, json, problems };
}

class Builder {
  private readonly reported = new Set<Constructor>();

  constructor(
    private readonly strict: boolean,
    private readonly problems: string[],
    private readonly plans: ClassPlans,
  ) {}

  classSchema(cls: Constructor, stack: readonly Constructor[], via: string): Schema | undefined {
    if (stack.includes(cls)) {
      this.problems.push(
        `${via}: recursive type ${cls.name} cannot be expressed as a schema (there is no $ref); break the cycle or declare the field { type: 'any' }`,
      );
      return undefined;
    }
    const plan = this.plans.of(cls);
    if (!this.reported.has(cls)) {
      this.reported.add(cls);
      this.problems.push(...plan.problems);
    }
    // A nested class without @Param fields is an empty object,
    // {"type":"object","properties":{},"required":[]}, as Go reflects struct{}.
    if (stack.length > 0) {
      if (plan.supplied !== undefined) {
        this.problems.push(
          `${via}: ${cls.name} supplies its own schema, which cannot be nested; declare the field { type: 'any' }`,
        );
        return undefined;
      }
    }
    const inner = [...stack, cls];
    const properties: { name: string; schema: Schema }[] = [];
    const required: string[] = [];
    for (const field of plan.fields) {
      const schema = this.fieldSchema(field, inner, `${cls.name}.${field.name}`);
      if (schema === undefined) continue;
      properties.push({ name: field.name, schema });
      if (this.strict || !field.optional) required.push(field.name);
    }
    return this.strict
      ? { type: 'object', properties, required, noAdditional: true }
      : { type: 'object', properties, required };
  }

  private fieldSchema(
    field: FieldPlan,
    stack: readonly Constructor[],
    via: string,
  ): Schema | undefined {
    const base = this.shapeSchema(field.shape, stack, via);
    if (base === undefined) return undefined;
    const nullable = this.strict && field.nullable && field.shape.kind !== 'any';
    const values: JsonValue[] | undefined = field.enum === undefined ? undefined : [...field.enum];
    if (values !== undefined && nullable) values.push(null);
    const schema: Schema = {
      ...base,
      ...(nullable ? { nullable: true } : {}),
      ...(field.description !== '' ? { description: field.description } : {}),
      ...(values !== undefined ? { enum: values } : {}),
    };
    const keywords = field.keywords;
    if (keywords === undefined) return schema;
    const items = keywords.items;
    return withKeywords(
      items !== undefined && schema.items !== undefined
        ? { ...schema, items: withKeywords(schema.items, items) }
        : schema,
      keywords.own,
    );
  }

  private shapeSchema(
    shape: Shape,
    stack: readonly Constructor[],
    via: string,
  ): Schema | undefined {
    switch (shape.kind) {
      case 'string':
      case 'bytes':
        return { type: 'string' };
      case 'date-time':
        return { type: 'string', format: 'date-time' };
      case 'number':
      case 'integer':
      case 'boolean':
        return { type: shape.kind };
      case 'any':
        return {};
      case 'array': {
        const items = this.shapeSchema(shape.items, stack, via);
        return items === undefined ? undefined : { type: 'array', items };
      }
      case 'map': {
        if (this.strict) {
          this.problems.push(
            `${via}: maps cannot be expressed in a strict schema; use an array of key/value objects, or drop strict`,
          );
          return undefined;
        }
        const values = this.shapeSchema(shape.values, stack, via);
        return values === undefined ? undefined : { type: 'object', additionalProperties: values };
      }
      case 'object':
        return this.classSchema(shape.cls, stack, via);
    }
  }
}

/**
 * A schema with a field's constraint keywords: the constraints, and the format unless
 * the schema has one of its own (a date's `date-time`).
 */
function withKeywords(schema: Schema, keywords: SchemaKeywords | undefined): Schema {
  if (keywords === undefined) return schema;
  const { format, constraints } = keywords;
  return {
    ...schema,
    ...(format !== undefined && schema.format === undefined ? { format } : {}),
    ...(constraints !== undefined ? { constraints } : {}),
  };
}
