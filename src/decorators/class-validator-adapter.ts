import type * as ClassValidator from 'class-validator';
import { type Constructor } from '../core';

/*
 * Everything agenttool relies on in class-validator beyond its documented API lives in
 * this file, and test/decorators/dependency-adapters.test.ts fails when class-validator
 * changes under it:
 *
 * - that its decorators register into `globalThis.classValidatorMetadataStorage`, which
 *   tells whether any class uses class-validator without loading the package;
 * - the shape of the records `getMetadataStorage().getTargetValidationMetadatas()`
 *   returns (its storage is exported, its records' shape is not documented): the
 *   constraint's name and arguments, `each`, `groups`, `validateIf`, and `@ValidateIf`
 *   as a conditional record without a name.
 */

let loaded: typeof ClassValidator | undefined;

/**
 * class-validator, loaded on first use: with validator.js and libphonenumber-js it costs
 * a fresh process some 300 ms, which an app whose classes use none of its decorators
 * should not pay.
 */
export function classValidator(): typeof ClassValidator {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand
  loaded ??= require('class-validator') as typeof ClassValidator;
  return loaded;
}

/**
 * True when some class may carry class-validator metadata: its decorators register into
 * `globalThis.classValidatorMetadataStorage`, which class-validator creates the first
 * time one is applied (loading the package alone does not).
 */
function anyMetadata(): boolean {
  const global = globalThis as { classValidatorMetadataStorage?: unknown };
  return global.classValidatorMetadataStorage !== undefined;
}

/** The part of class-validator's metadata record that the readers look at. */
interface ValidatorRecord {
  readonly type: string;
  readonly name?: string;
  readonly propertyName: string;
  readonly constraints: readonly unknown[] | undefined;
  readonly each: boolean;
  readonly groups: readonly string[] | undefined;
  readonly constraintCls?: () => void;
  /** The per-decorator condition (`{ validateIf }` in a decorator's options). */
  readonly validateIf?: unknown;
}

/**
 * One of class-validator's built-in constraints on a field, as it always applies: its
 * name (class-validator's own constant, `min`, `isEmail`, ...), the arguments it was
 * given, and whether it applies to each item (`{ each: true }`).
 */
export interface FieldValidator {
  readonly name: string;
  readonly args: readonly unknown[];
  readonly each: boolean;
}

/** What class-validator says about one field that has a JSON Schema counterpart. */
export interface CarriedConstraints {
  readonly integer: boolean;
  readonly optional: boolean;
  readonly enum: readonly unknown[] | undefined;
}

/** What class-validator says about one class. */
export interface ClassConstraints {
  readonly byField: ReadonlyMap<string, CarriedConstraints>;
  /**
   * Per field, the constraints that always apply, in the order class-validator checks
   * them: none of a field under `@ValidateIf`, none in a group, none with a `validateIf`
   * option of its own. The readers find their JSON Schema counterparts in these.
   */
  readonly validators: ReadonlyMap<string, readonly FieldValidator[]>;
  /** True when some constraint is not fully expressed by the schema, so class-validator must run. */
  readonly mustRun: boolean;
  /** True when some constraint is asynchronous, so validation returns a promise. */
  readonly async: boolean;
}

const NONE: CarriedConstraints = { integer: false, optional: false, enum: undefined };
/** What a class without class-validator constraints carries. */
export const NO_CONSTRAINTS: ClassConstraints = {
  byField: new Map(),
  validators: new Map(),
  mustRun: false,
  async: false,
};

function records(cls: Constructor): readonly ValidatorRecord[] {
  return classValidator()
    .getMetadataStorage()
    .getTargetValidationMetadatas(cls, '', false, false) as unknown as ValidatorRecord[];
}

/**
 * Whether a class-validator constraint is fully expressed by the schema the readers
 * generate (`@IsInt` as integer, `@IsIn` as enum, `@IsOptional` as optional), so that
 * running class-validator for it alone would repeat what the schema checked.
 */
function carried(record: ValidatorRecord): boolean {
  const { ValidationTypes } = classValidator();
  if (record.each || (record.groups?.length ?? 0) > 0) return false;
  if (record.type === ValidationTypes.CONDITIONAL_VALIDATION) return record.name === 'isOptional';
  if (record.type !== ValidationTypes.CUSTOM_VALIDATION) return false;
  return record.name === 'isInt' || record.name === 'isIn';
}

/** Reads class-validator's constraints of a class (own and inherited). */
export function classConstraints(cls: Constructor): ClassConstraints {
  if (!anyMetadata()) return NO_CONSTRAINTS;
  const byField = new Map<string, CarriedConstraints>();
  const validators = new Map<string, FieldValidator[]>();
  const conditional = new Set<string>();
  let mustRun = false;
  let async = false;
  const { getMetadataStorage, ValidationTypes } = classValidator();
  const storage = getMetadataStorage();
  for (const record of records(cls)) {
    if (record.type === ValidationTypes.CONDITIONAL_VALIDATION && record.name !== 'isOptional') {
      conditional.add(record.propertyName);
    }
    if (
      record.type === ValidationTypes.CUSTOM_VALIDATION &&
      typeof record.name === 'string' &&
      (record.groups?.length ?? 0) === 0 &&
      typeof record.validateIf !== 'function'
    ) {
      const list = validators.get(record.propertyName) ?? [];
      list.push({ name: record.name, args: record.constraints ?? [], each: record.each });
      validators.set(record.propertyName, list);
    }
    if (!carried(record)) mustRun = true;
    if (
      typeof record.constraintCls === 'function' &&
      storage.getTargetValidatorConstraints(record.constraintCls).some((c) => c.async)
    ) {
      async = true;
    }
    if (record.each || (record.groups?.length ?? 0) > 0) continue;
    const current = byField.get(record.propertyName) ?? NONE;
    if (record.name === 'isInt') byField.set(record.propertyName, { ...current, integer: true });
    else if (record.name === 'isOptional') {
      byField.set(record.propertyName, { ...current, optional: true });
    } else if (record.name === 'isIn' && Array.isArray(record.constraints?.[0])) {
      byField.set(record.propertyName, {
        ...current,
        enum: record.constraints[0] as unknown[],
      });
    }
  }
  for (const field of conditional) validators.delete(field);
  return { byField, validators, mustRun, async };
}

/** The carried constraints of one field (none when class-validator says nothing). */
export function fieldConstraints(constraints: ClassConstraints, field: string): CarriedConstraints {
  return constraints.byField.get(field) ?? NONE;
}

/** The constraints that always apply to one field (see `ClassConstraints.validators`). */
export function fieldValidators(
  constraints: ClassConstraints,
  field: string,
): readonly FieldValidator[] {
  return constraints.validators.get(field) ?? [];
}
