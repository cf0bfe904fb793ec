import { describeValue } from '../core';

/** The field types no JSON Schema here expresses, each with what to declare instead. */
export const UNSUPPORTED = new Map<unknown, string>([
  [Map, 'a Map; declare a Record<string, T> with { values: T }'],
  [Set, 'a Set; declare an array with { items: T }'],
  [Promise, 'a Promise'],
  [Function, 'a function'],
  [Symbol, 'a symbol'],
  [BigInt, 'a bigint; use number with { type: "integer" } or a string'],
  [RegExp, 'a RegExp; use a string'],
  [Error, 'an Error'],
  [WeakMap, 'a WeakMap'],
  [WeakSet, 'a WeakSet'],
]);

const TYPED_ARRAYS: readonly [unknown, string][] = [
  [Int8Array, 'integer'],
  [Uint8ClampedArray, 'integer'],
  [Int16Array, 'integer'],
  [Uint16Array, 'integer'],
  [Int32Array, 'integer'],
  [Uint32Array, 'integer'],
  [Float32Array, 'number'],
  [Float64Array, 'number'],
  [BigInt64Array, 'integer'],
  [BigUint64Array, 'integer'],
];

for (const [type, item] of TYPED_ARRAYS) {
  const name = (type as { name: string }).name;
  const article = /^[AEIOU]/.test(name) ? 'an' : 'a';
  UNSUPPORTED.set(type, `${article} ${name}; declare number[] with { items: '${item}' }`);
}
UNSUPPORTED.set(URL, 'a URL; use a string');
UNSUPPORTED.set(ArrayBuffer, 'an ArrayBuffer; use Uint8Array or Buffer for bytes');
UNSUPPORTED.set(SharedArrayBuffer, 'a SharedArrayBuffer; use Uint8Array or Buffer for bytes');
UNSUPPORTED.set(DataView, 'a DataView; use Uint8Array or Buffer for bytes');

/** Built-in types that are a field's type, or none, but never a class of arguments. */
const BUILT_INS: ReadonlySet<unknown> = new Set<unknown>([
  Object,
  String,
  Number,
  Boolean,
  Date,
  Array,
  Buffer,
  Uint8Array,
  URLSearchParams,
  ...UNSUPPORTED.keys(),
]);

/**
 * Why `cls` cannot be read as a class of `@Param` fields: `'no prototype'` for a
 * function without one (an arrow function, `() => X` where `X` was meant), else the
 * name of what it is (a built-in type's, as Go's `arguments must be a struct, got
 * int` names the type); undefined when it can be read.
 */
export function notAClass(cls: unknown): string | undefined {
  if (typeof cls !== 'function') return describeValue(cls);
  const prototype: unknown = (cls as { prototype?: unknown }).prototype;
  if (typeof prototype !== 'object' || prototype === null) return 'no prototype';
  if (BUILT_INS.has(cls)) return cls.name;
  return undefined;
}
