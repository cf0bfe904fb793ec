import { type Constructor, goQuote, isJsonObject, type JsonObject } from '../core';
import {
  classConstraints,
  type ClassConstraints,
  fieldConstraints,
  fieldValidators,
  NO_CONSTRAINTS,
} from './class-validator-adapter';
import { type FieldKeywords, fieldKeywords } from './constraint-keywords';
import { type ParamRecord, readParams } from './metadata';
import { notAClass } from './built-in-types';
import { type EnumValue, type Shape } from './shape';
import { checkEnum, fieldShape, needsDesignType, readEnum } from './field-shape';

/** One argument field, normalised. */
export interface FieldPlan {
  readonly name: string;
  readonly description: string;
  readonly shape: Shape;
  readonly enum: readonly EnumValue[] | undefined;
  readonly optional: boolean;
  readonly nullable: boolean;
  /** JSON Schema keywords of its class-validator constraints (`minimum`, `format`, ...). */
  readonly keywords: FieldKeywords | undefined;
}

/** An arguments class, normalised: its fields, or the schema it supplies, and its problems. */
export interface ClassPlan {
  readonly cls: Constructor;
  readonly fields: readonly FieldPlan[];
  /** The schema returned by a static `jsonSchema()`: served verbatim, never validated. */
  readonly supplied: JsonObject | undefined;
  /** What class-validator adds; `mustRun` says whether it runs at call time. */
  readonly constraints: ClassConstraints;
  /** Every problem of this class itself, each naming the class and field and the fix. */
  readonly problems: readonly string[];
}

/**
 * The classes of one arguments tree, each read once: what one descriptor build reads
 * its classes through. Nothing is kept between builds; the descriptors are.
 */
export class ClassPlans {
  readonly #plans = new Map<Constructor, ClassPlan>();

  /**
   * `role` says what the classes are read as: an arguments class is constructed for each
   * call (`new Class()`), an output class (a structured result's) never is here.
   */
  constructor(private readonly role: 'arguments' | 'output' = 'arguments') {}

  /** The plan of `cls`, read on first use. */
  of(cls: Constructor): ClassPlan {
    let plan = this.#plans.get(cls);
    if (plan === undefined) {
      plan = readClassPlan(cls, this.role);
      this.#plans.set(cls, plan);
    }
    return plan;
  }
}

/** True when `cls` supplies its own schema through a static `jsonSchema()` method. */
function suppliedSchema(cls: Constructor, problems: string[]): JsonObject | undefined {
  const supplier = (cls as unknown as { jsonSchema?: unknown }).jsonSchema;
  if (typeof supplier !== 'function') return undefined;
  let schema: unknown;
  try {
    schema = (supplier as () => unknown).call(cls);
  } catch (error) {
    problems.push(`${cls.name}.jsonSchema() threw: ${String(error)}`);
    return undefined;
  }
  if (!isJsonObject(schema)) {
    problems.push(`${cls.name}.jsonSchema() must return a JSON Schema object`);
    return undefined;
  }
  return schema;
}

const MISPLACED: Readonly<Record<NonNullable<ParamRecord['misplaced']>, string>> = {
  static: '@Param on a static property; arguments are instance fields',
  accessor: '@Param on an accessor; declare a field',
  method: '@Param on a method; declare a field',
};

function readClassPlan(cls: Constructor, role: 'arguments' | 'output'): ClassPlan {
  const problems: string[] = [];
  const notOne = notAClass(cls);
  if (notOne !== undefined) {
    const name = typeof cls === 'function' && cls.name !== '' ? `${cls.name}: ` : '';
    problems.push(
      notOne === 'no prototype'
        ? `${name}arguments must be a class (got a function without a prototype; pass X, not () => X)`
        : `${name}arguments must be a class of @Param fields, got ${notOne}`,
    );
    return { cls, fields: [], supplied: undefined, constraints: NO_CONSTRAINTS, problems };
  }
  if (role === 'arguments' && cls.length > 0) {
    // Each call builds the instance with `new Class()`: a parameter would be undefined.
    problems.push(`${cls.name}: an arguments class needs a constructor without parameters`);
  }
  const constraints = classConstraints(cls);
  const supplied = suppliedSchema(cls, problems);
  const fields: FieldPlan[] = [];
  const seen = new Set<string>();
  const records = readParams(cls);
  // No field with metadata at all: the whole class was compiled without it, so the
  // fields that need it are named together, with the likely cause.
  const declared = records.filter((r) => typeof r.key === 'string' && r.misplaced === undefined);
  const untyped: string[] | undefined =
    declared.length > 0 && declared.every((r) => r.designType === undefined) ? [] : undefined;
  for (const record of records) {
    const name = typeof record.key === 'symbol' ? record.key.toString() : record.key;
    const where = `${cls.name}.${name}`;
    if (typeof record.key === 'symbol') {
      problems.push(`${where}: a symbol-keyed property cannot be an argument; use a string name`);
      continue;
    }
    if (record.misplaced !== undefined) {
      problems.push(`${where}: ${MISPLACED[record.misplaced]}`);
      continue;
    }
    if (seen.has(name)) {
      problems.push(`${where}: @Param is applied twice; keep one`);
      continue;
    }
    seen.add(name);
    if (name === '__proto__' || name === 'constructor') {
      problems.push(`${where}: ${goQuote(name)} cannot be an argument name; rename the field`);
      continue;
    }
    const field = readField(name, record, constraints, where, problems, untyped);
    if (field !== undefined) fields.push(field);
  }
  if (untyped !== undefined && untyped.length > 0) {
    problems.push(noMetadataProblem(cls.name, untyped));
  }
  return { cls, fields, supplied, constraints, problems };
}

/**
 * The problem of a class none of whose fields carries decorator metadata, naming the
 * fields that need it, the likely cause and both fixes.
 */
function noMetadataProblem(className: string, untyped: readonly string[]): string {
  const unknown =
    untyped.length === 1
      ? `the type of field ${untyped[0]} is unknown`
      : `the types of fields ${untyped.join(', ')} are unknown`;
  return `${className}: TypeScript emitted no decorator metadata for any field, so ${unknown}. If tsconfig.json sets "emitDecoratorMetadata": true, the likely cause is a runner built on esbuild (tsx, esbuild, Vite, Vitest), which never emits it. Fix either way: run the code through a compiler that emits it (tsc, or SWC: node -r @swc-node/register), or give each of those fields its type in @Param ({ type: 'string' }, a class, or () => SomeClass)`;
}

function readField(
  name: string,
  record: ParamRecord,
  constraints: ClassConstraints,
  where: string,
  problems: string[],
  untyped: string[] | undefined,
): FieldPlan | undefined {
  const options = record.options;
  const carried = fieldConstraints(constraints, name);
  const before = problems.length;
  if (typeof record.description !== 'string') {
    problems.push(`${where}: the description must be a string`);
  }
  const enumValues = readEnum(options.enum ?? carried.enum, where, problems);
  if (untyped !== undefined && needsDesignType(record)) {
    untyped.push(name);
    return undefined;
  }
  let shape = fieldShape(record, enumValues, where, problems);
  if (shape?.kind === 'number' && carried.integer) shape = { kind: 'integer' };
  if (shape !== undefined && enumValues !== undefined) {
    checkEnum(shape, enumValues, where, problems);
  }
  if (shape === undefined || problems.length > before) return undefined;
  return {
    name,
    description: typeof record.description === 'string' ? record.description : '',
    shape,
    enum: enumValues,
    optional: options.optional === true || carried.optional,
    nullable: options.nullable === true,
    keywords: fieldKeywords(fieldValidators(constraints, name), shape),
  };
}
