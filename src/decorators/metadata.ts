import 'reflect-metadata';
import {
  type Annotations,
  type Confinement,
  type Constructor,
  type JsonObject,
  type Replay,
  type ToolContext,
} from '../core';

/** The scalar type names a `@Param` may state explicitly. */
export type ParamTypeName =
  'string' | 'number' | 'integer' | 'boolean' | 'any' | 'date-time' | 'bytes';

/**
 * A field's type where reflection cannot see it: a type name, a class (`String`,
 * `Number`, `Boolean`, `Date`, `Uint8Array`, `Buffer`, or a nested arguments class),
 * `[T]` for an array of T, or a function returning any of these (for classes declared
 * later in the file).
 */
export type ParamType = ParamTypeName | Constructor | readonly [ParamType] | (() => ParamType);

/** A literal list of allowed values, or a TypeScript enum object. */
export type ParamEnum =
  readonly (string | number | boolean)[] | { readonly [key: string]: string | number };

/** What `@Param` takes besides the description. */
export interface ParamOptions {
  /** Allowed values in declaration order: a list, or a TypeScript enum. */
  readonly enum?: ParamEnum | undefined;
  /** The field may be left out (not required in a non-strict schema). */
  readonly optional?: boolean | undefined;
  /** The field may be null (written as `[type, "null"]` only under strict). */
  readonly nullable?: boolean | undefined;
  /** The field's type, where reflection is not enough. */
  readonly type?: ParamType | undefined;
  /** The item type of an array field. */
  readonly items?: ParamType | undefined;
  /** The value type of a string-keyed map field (`Record<string, T>`). */
  readonly values?: ParamType | undefined;
  /**
   * For an argument of a prompt or a variable of a resource template: the values a
   * client may complete it with (`completion/complete`), offered when they start with
   * what the user typed. A method marked `@Complete(field)` may compute them instead.
   */
  readonly completions?: readonly string[] | undefined;
}

/** One `@Param` as recorded: the raw decorator input, normalised later by the readers. */
export interface ParamRecord {
  readonly key: string | symbol;
  readonly description: unknown;
  readonly options: ParamOptions;
  /** What `emitDecoratorMetadata` wrote as `design:type` (undefined without it). */
  readonly designType: unknown;
  /** Set when the decorated member is no instance field: it can hold no argument. */
  readonly misplaced?: 'static' | 'accessor' | 'method';
}

/** `(args, ctx)` of the per-call readers: the arguments as the pipeline built them. */
export type ConfinedFn<A = never> = (
  args: A,
  ctx: ToolContext,
) => Confinement | { readonly confined: boolean; readonly by?: string } | boolean;
export type ReplayFn<A = never> = (args: A, ctx: ToolContext) => Replay;

/** What `@Tool` takes. */
export interface ToolOptions {
  /** Non-empty; unique within a tool set. */
  readonly name: string;
  readonly description?: string | undefined;
  /** The arguments class; absent means the tool takes no arguments. */
  readonly args?: Constructor | undefined;
  /**
   * The class of the tool's structured result. Its `@Param` fields, read by the same
   * rules as an arguments class (nested classes, arrays, maps, enums, class-validator
   * constraints), make the tool's `outputSchema`, always non-strict; `Buffer` and
   * `Uint8Array` fields are refused, since their JSON is not a string. `execute` returns
   * an instance (or a plain object of its shape): it becomes the result's `structured`
   * value, and its JSON the output the model reads. A `Result` returned as it is keeps
   * its own `structured` value.
   */
  readonly output?: Constructor | undefined;
  /** Generate and serve a strict schema (same as `@Strict()`). */
  readonly strict?: boolean | undefined;
  /**
   * `false` serves the generated schema but does not validate arguments against it
   * (Go's `WithoutValidation`): they are only decoded, each value checked to have its
   * field's JSON type so the instance holds what the class declares; a missing field,
   * a value outside an enum, an unknown property and class-validator constraints are
   * not checked. Text that is not JSON reads as Go's decoder says it
   * (`invalid arguments: unexpected end of JSON input`). Default `true`.
   */
  readonly validate?: boolean | undefined;
  /**
   * A parameters schema to serve instead of the generated one, verbatim (Go's
   * `WithParameters`): arguments are then not validated, only decoded, since the
   * schema's promises are not the class's. The arguments class is not read for a
   * schema; when it can be expressed it decodes the arguments as with `validate:
   * false`, otherwise class-transformer's `plainToInstance` builds it. Without an
   * arguments class `execute` receives the decoded arguments object.
   */
  readonly parameters?: JsonObject | undefined;
}

/** The class-level records, each under its own namespaced key. */
export interface ClassRecords {
  readonly tool: ToolOptions;
  readonly sequential: true;
  readonly resource: string;
  readonly confined: unknown;
  readonly annotations: Annotations;
  readonly strict: true;
  readonly replay: unknown;
  readonly scopes: readonly unknown[];
  readonly guards: readonly unknown[];
  readonly interceptors: readonly unknown[];
  readonly taskSupport: { readonly mode: unknown; readonly questionsFirst: boolean };
}

export type ClassRecordKind = keyof ClassRecords;

const NAMESPACE = 'io.github.christopherdavenport.agenttool/decorators';
const PARAMS_KEY = `${NAMESPACE}/params`;
/**
 * The metadata key of each class record, made once: a key built per lookup is a new
 * string that reflect-metadata's map must hash again, and a class's records are looked
 * up many times while its tool is built.
 */
const classKeys = new Map<string, string>();
const classKey = (kind: ClassRecordKind): string => {
  let key = classKeys.get(kind);
  if (key === undefined) classKeys.set(kind, (key = `${NAMESPACE}/${kind}`));
  return key;
};
const duplicateKey = `${NAMESPACE}/duplicates`;

/**
 * Records a class-level decorator. A second application of the same decorator on the
 * same class is remembered as a problem for the readers to report, not thrown here.
 */
export function recordClass<K extends ClassRecordKind>(
  target: object,
  kind: K,
  value: ClassRecords[K],
): void {
  if (Reflect.hasOwnMetadata(classKey(kind), target)) {
    const duplicates = ownDuplicates(target);
    Reflect.defineMetadata(duplicateKey, [...duplicates, kind], target);
  }
  Reflect.defineMetadata(classKey(kind), value, target);
}

/** The decorators applied more than once on this very class. */
export function ownDuplicates(target: object): readonly string[] {
  return (Reflect.getOwnMetadata(duplicateKey, target) as string[] | undefined) ?? [];
}

/**
 * The record of `kind` for a class: its own, else the nearest ancestor's (a subclass
 * inherits a decorator unless it declares its own).
 */
export function readClass<K extends ClassRecordKind>(
  cls: Constructor,
  kind: K,
): ClassRecords[K] | undefined {
  for (let c: unknown = cls; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
    if (Reflect.hasOwnMetadata(classKey(kind), c)) {
      return Reflect.getOwnMetadata(classKey(kind), c) as ClassRecords[K];
    }
  }
  return undefined;
}

/** Appends a `@Param` to the class that declares the property. */
export function recordParam(target: object, record: ParamRecord): void {
  const own = Reflect.getOwnMetadata(PARAMS_KEY, target) as ParamRecord[] | undefined;
  // The class's own list, which only its decorators write to, all as the class is made.
  if (own === undefined) Reflect.defineMetadata(PARAMS_KEY, [record], target);
  else own.push(record);
}

/**
 * The `@Param` fields of a class, ancestors first, in declaration order; a field
 * redeclared in a subclass replaces the ancestor's in place. A property decorated
 * twice in one class is returned twice (the readers report it).
 */
export function readParams(cls: Constructor): readonly ParamRecord[] {
  const chain: object[] = [];
  for (let c: unknown = cls; typeof c === 'function' && c !== Function.prototype;) {
    const prototype: unknown = (c as { prototype?: unknown }).prototype;
    // A function without a prototype (an arrow function) declares no fields.
    if (typeof prototype !== 'object' || prototype === null) break;
    chain.unshift(prototype);
    c = Object.getPrototypeOf(c);
  }
  const merged: ParamRecord[] = [];
  for (const proto of chain) {
    const own = (Reflect.getOwnMetadata(PARAMS_KEY, proto) as ParamRecord[] | undefined) ?? [];
    const seenHere = new Set<string | symbol>();
    for (const record of own) {
      const at = merged.findIndex((r) => r.key === record.key);
      if (at >= 0 && !seenHere.has(record.key)) merged[at] = record;
      else merged.push(record);
      seenHere.add(record.key);
    }
  }
  return merged;
}
