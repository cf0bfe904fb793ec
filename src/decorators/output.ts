import { type Constructor, isObjectSchema, type JsonObject } from '../core';
import { ClassPlans } from './class-plan';
import { type Shape } from './shape';
import { buildSchema } from './schema-builder';

/**
 * The output schema of a `@Tool({ output })` class, deep-frozen: the class read as an
 * arguments class is (its `@Param` fields, ancestors first), non-strict, or the object
 * schema its static `jsonSchema()` supplies. Every problem is added to `problems`,
 * naming the class and field; a byte field is one, since `JSON.stringify` writes a
 * `Buffer` as `{"type":"Buffer","data":[...]}` and a `Uint8Array` as an object of
 * indices, never the base64 string the schema would promise.
 */
export function buildOutputSchema(
  outputClass: Constructor,
  problems: string[],
): JsonObject | undefined {
  const plans = new ClassPlans('output');
  const built = buildSchema(outputClass, false, plans);
  const before = problems.length;
  problems.push(...built.problems.map((problem) => `output: ${problem}`));
  if (built.model === undefined && problems.length === before && !isObjectSchema(built.json)) {
    problems.push(
      `output: ${outputClass.name}.jsonSchema() must return an object schema ("type": "object"), as structured results are JSON objects`,
    );
  }
  for (const field of byteFields(outputClass, plans)) {
    problems.push(
      `output: ${field}: bytes have no JSON string form in a structured result; declare a string and encode it (buffer.toString('base64'))`,
    );
  }
  return problems.length > before ? undefined : deepFreeze(structuredClone(built.json));
}

/** `Class.field` of every byte field in the class tree (nested, in arrays and maps). */
function byteFields(cls: Constructor, plans: ClassPlans, seen = new Set<Constructor>()): string[] {
  if (seen.has(cls)) return [];
  seen.add(cls);
  const found: string[] = [];
  const walk = (shape: Shape, field: string): void => {
    if (shape.kind === 'bytes') found.push(field);
    else if (shape.kind === 'array') walk(shape.items, field);
    else if (shape.kind === 'map') walk(shape.values, field);
    else if (shape.kind === 'object') found.push(...byteFields(shape.cls, plans, seen));
  };
  for (const field of plans.of(cls).fields) walk(field.shape, `${cls.name}.${field.name}`);
  return found;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
