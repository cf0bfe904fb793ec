import {
  type ValidationError as ClassValidatorError,
  type ValidatorOptions,
} from 'class-validator';
import { type Constructor, ValidationError, type ValidationProblem } from '../core';
import { type ClassPlans } from './class-plan';
import { type Shape } from './shape';
import { classValidator } from './class-validator-adapter';

/** Runs class-validator over an arguments instance; throws every failure in one error. */
export type ClassCheck = (instance: object) => void | Promise<void>;

/**
 * How many failing fields one error names at most; past it the message ends `; and <n>
 * more` (the README says so).
 */
export const MAX_REPORTED_FAILURES = 10;

type Segment = string | number;

interface Visit {
  readonly instance: object;
  readonly path: readonly Segment[];
}

// The schema has already checked presence and nullability, so a missing or null value
// is not class-validator's to judge; each field reports its first failing constraint.
const OPTIONS: ValidatorOptions = {
  skipMissingProperties: true,
  forbidUnknownValues: false,
  stopAtFirstError: true,
  validationError: { target: false },
};

/**
 * The class-validator check of an arguments class, or undefined when no class in its
 * tree carries a constraint the schema does not already express. Every instance in the
 * tree (nested fields, array items, map values) is validated with its own class's
 * constraints, so nested classes need no `@ValidateNested`. Every failing field is
 * reported in one `ValidationError`, each path once with its first failing
 * constraint's message, in field order, at most {@link MAX_REPORTED_FAILURES} of them:
 * `invalid arguments: <path>: <message>; <path>: <message>`. Synchronous unless some
 * constraint is asynchronous.
 */
export function classCheck(cls: Constructor, plans: ClassPlans): ClassCheck | undefined {
  const classes = treeClasses(cls, plans);
  const running = classes.filter((c) => plans.of(c).constraints.mustRun);
  if (running.length === 0) return undefined;
  const runs = new Set(running);
  const isAsync = running.some((c) => plans.of(c).constraints.async);
  const { validate, validateSync } = classValidator();
  const tree: Tree = { plans, runs };
  if (isAsync) {
    return async (instance) => {
      const found = new Failures();
      for (const visit of visits(instance, cls, [], tree)) {
        found.add(visit.path, await validate(visit.instance, OPTIONS));
      }
      found.throwIfAny();
    };
  }
  return (instance) => {
    const found = new Failures();
    for (const visit of visits(instance, cls, [], tree)) {
      found.add(visit.path, validateSync(visit.instance, OPTIONS));
    }
    found.throwIfAny();
  };
}

/** What a walk over an instance tree reads: the classes' plans, and which classes to check. */
interface Tree {
  readonly plans: ClassPlans;
  readonly runs: ReadonlySet<Constructor>;
}

/** Every class reachable from `cls` through its fields (the schema ensures no cycles). */
function treeClasses(
  cls: Constructor,
  plans: ClassPlans,
  seen = new Set<Constructor>(),
): Constructor[] {
  if (seen.has(cls)) return [];
  seen.add(cls);
  const out = [cls];
  const walk = (shape: Shape): void => {
    if (shape.kind === 'object') out.push(...treeClasses(shape.cls, plans, seen));
    else if (shape.kind === 'array') walk(shape.items);
    else if (shape.kind === 'map') walk(shape.values);
  };
  for (const field of plans.of(cls).fields) walk(field.shape);
  return out;
}

/** The instances to validate, in field order, depth first (a class before its fields). */
function* visits(
  instance: object,
  cls: Constructor,
  path: readonly Segment[],
  tree: Tree,
): Generator<Visit> {
  if (tree.runs.has(cls)) yield { instance, path };
  const record = instance as Record<string, unknown>;
  for (const field of tree.plans.of(cls).fields) {
    yield* nested(record[field.name], field.shape, [...path, field.name], tree);
  }
}

function* nested(
  value: unknown,
  shape: Shape,
  path: readonly Segment[],
  tree: Tree,
): Generator<Visit> {
  if (value === null || value === undefined) return;
  if (shape.kind === 'object') yield* visits(value, shape.cls, path, tree);
  else if (shape.kind === 'array') {
    const items = value as unknown[];
    for (let i = 0; i < items.length; i++) yield* nested(items[i], shape.items, [...path, i], tree);
  } else if (shape.kind === 'map') {
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      yield* nested(v, shape.values, [...path, key], tree);
    }
  }
}

/** The failing fields of one check, each path once, in the order found. */
class Failures {
  readonly #byPath = new Map<string, string>();

  /** class-validator's errors for the instance at `base`, nested errors included. */
  add(
    base: readonly Segment[],
    errors: readonly ClassValidatorError[],
    parentIsArray = false,
  ): void {
    for (const error of errors) {
      const index = Number(error.property);
      const path = [...base, parentIsArray && Number.isInteger(index) ? index : error.property];
      const messages = Object.values(error.constraints ?? {});
      const children = error.children ?? [];
      if (messages.length > 0) this.#note(path, messages[0]!);
      else if (children.length === 0) this.#note(path, 'is not valid');
      this.add(path, children, Array.isArray(error.value));
    }
  }

  throwIfAny(): void {
    const found = [...this.#byPath].map(([path, detail]): ValidationProblem => ({ path, detail }));
    const [first, ...rest] = found;
    if (first === undefined) return;
    const also = rest.slice(0, MAX_REPORTED_FAILURES - 1);
    throw new ValidationError(first.path, first.detail, {
      also,
      unreported: rest.length - also.length,
    });
  }

  #note(path: readonly Segment[], detail: string): void {
    const key = formatPath(path);
    if (!this.#byPath.has(key)) this.#byPath.set(key, detail);
  }
}

function formatPath(segments: readonly Segment[]): string {
  let path = '';
  for (const segment of segments) {
    if (typeof segment === 'number') path += `[${segment}]`;
    else path += path === '' ? segment : `.${segment}`;
  }
  return path;
}
