import { type SchemaConstraints } from '../core';
import { type Shape } from './shape';
import { type FieldValidator } from './class-validator-adapter';

/** JSON Schema keywords that class-validator constraints add to one schema node. */
export interface SchemaKeywords {
  /** `email`, `uri`, `uuid`, `ipv4` or `ipv6`; written in the contract's `format` slot. */
  readonly format?: string;
  readonly constraints?: SchemaConstraints;
}

/** What a field's constraints add to its schema (`own`) and to its items' (`{ each: true }`). */
export interface FieldKeywords {
  readonly own?: SchemaKeywords;
  readonly items?: SchemaKeywords;
}

type Draft = { format?: string } & {
  -readonly [K in keyof SchemaConstraints]?: SchemaConstraints[K];
};
type NumberKey = Exclude<keyof SchemaConstraints, 'pattern' | 'uniqueItems'>;

/** How one class-validator constraint reads as JSON Schema, and on what shapes. */
interface Rule {
  readonly fits: (shape: Shape) => boolean;
  readonly apply: (args: readonly unknown[], draft: Draft) => void;
}

const isNumber = (shape: Shape): boolean => shape.kind === 'number' || shape.kind === 'integer';
const isString = (shape: Shape): boolean => shape.kind === 'string';
const isArray = (shape: Shape): boolean => shape.kind === 'array';
const isScalarArray = (shape: Shape): boolean =>
  shape.kind === 'array' && ['string', 'number', 'integer', 'boolean'].includes(shape.items.kind);

/**
 * The mapping, keyed by class-validator's constraint names. Each keyword refuses no
 * value the constraint accepts, so a server that checks the served schema before
 * class-validator runs refuses nothing class-validator would accept (the README notes
 * the edge cases: astral characters in patterns, variation selectors in lengths).
 */
const RULES: Readonly<Record<string, Rule>> = {
  min: { fits: isNumber, apply: (a, d) => raise(d, 'minimum', finite(a[0])) },
  max: { fits: isNumber, apply: (a, d) => lower(d, 'maximum', finite(a[0])) },
  isPositive: { fits: isNumber, apply: (_, d) => raise(d, 'exclusiveMinimum', 0) },
  isNegative: { fits: isNumber, apply: (_, d) => lower(d, 'exclusiveMaximum', 0) },
  isDivisibleBy: {
    fits: isNumber,
    apply: (a, d) => {
      const n = count(a[0]);
      if (n !== undefined && n > 0) d.multipleOf ??= n;
    },
  },
  minLength: { fits: isString, apply: (a, d) => raise(d, 'minLength', count(a[0])) },
  maxLength: { fits: isString, apply: (a, d) => lower(d, 'maxLength', count(a[0])) },
  isLength: {
    fits: isString,
    apply: (a, d) => {
      raise(d, 'minLength', count(a[0]));
      lower(d, 'maxLength', count(a[1]));
    },
  },
  isNotEmpty: { fits: isString, apply: (_, d) => raise(d, 'minLength', 1) },
  matches: {
    fits: isString,
    apply: (a, d) => {
      const pattern = patternOf(a[0], a[1]);
      if (pattern !== undefined) d.pattern ??= pattern;
    },
  },
  isEmail: { fits: isString, apply: (a, d) => formatWithoutOptions(d, 'email', a[0]) },
  isUrl: { fits: isString, apply: (a, d) => formatWithoutOptions(d, 'uri', a[0]) },
  isUuid: { fits: isString, apply: (_, d) => (d.format ??= 'uuid') },
  isIp: {
    fits: isString,
    apply: (a, d) => {
      const version = String(a[0]);
      if (version === '4' || version === '6') d.format ??= `ipv${version}`;
    },
  },
  arrayMinSize: { fits: isArray, apply: (a, d) => raise(d, 'minItems', count(a[0])) },
  arrayMaxSize: { fits: isArray, apply: (a, d) => lower(d, 'maxItems', count(a[0])) },
  arrayNotEmpty: { fits: isArray, apply: (_, d) => raise(d, 'minItems', 1) },
  // class-validator compares items by identity: for objects that is no JSON rule.
  arrayUnique: { fits: isScalarArray, apply: (_, d) => (d.uniqueItems = true) },
};

/**
 * The JSON Schema keywords of a field's class-validator constraints (those that always
 * apply; see `ClassConstraints.validators`): each constraint of the mapping whose shape
 * fits the field (numbers for `@Min`, strings for `@MinLength`, arrays for
 * `@ArrayMinSize`), or with `{ each: true }` fits an array field's items. Several bounds
 * of one kind keep the tightest; of several formats, patterns or divisors the first
 * class-validator checks is written. Undefined when nothing maps.
 */
export function fieldKeywords(
  validators: readonly FieldValidator[],
  shape: Shape,
): FieldKeywords | undefined {
  const own: Draft = {};
  const items: Draft = {};
  for (const validator of validators) {
    const rule = Object.hasOwn(RULES, validator.name) ? RULES[validator.name] : undefined;
    if (rule === undefined) continue;
    if (!validator.each) {
      if (rule.fits(shape)) rule.apply(validator.args, own);
    } else if (shape.kind === 'array' && rule.fits(shape.items)) {
      rule.apply(validator.args, items);
    }
  }
  const ownKeywords = keywordsOf(own);
  const itemKeywords = keywordsOf(items);
  if (ownKeywords === undefined && itemKeywords === undefined) return undefined;
  return {
    ...(ownKeywords === undefined ? {} : { own: ownKeywords }),
    ...(itemKeywords === undefined ? {} : { items: itemKeywords }),
  };
}

function keywordsOf(draft: Draft): SchemaKeywords | undefined {
  const { format, ...constraints } = draft;
  const hasConstraints = Object.keys(constraints).length > 0;
  if (format === undefined && !hasConstraints) return undefined;
  return {
    ...(format === undefined ? {} : { format }),
    ...(hasConstraints ? { constraints } : {}),
  };
}

/** A lower bound: the highest of those given. */
function raise(draft: Draft, key: NumberKey, value: number | undefined): void {
  if (value === undefined) return;
  const current = draft[key];
  draft[key] = current === undefined ? value : Math.max(current, value);
}

/** An upper bound: the lowest of those given. */
function lower(draft: Draft, key: NumberKey, value: number | undefined): void {
  if (value === undefined) return;
  const current = draft[key];
  draft[key] = current === undefined ? value : Math.min(current, value);
}

function finite(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A length or a count: a whole number, 0 or more. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** A format for a validator that takes options, only when it was given none. */
function formatWithoutOptions(draft: Draft, format: string, options: unknown): void {
  const none =
    options === undefined ||
    options === null ||
    (typeof options === 'object' && Object.keys(options).length === 0);
  if (none) draft.format ??= format;
}

/**
 * The `pattern` of `@Matches(regexp)` or `@Matches(source, modifiers)`: its source, when
 * the flags leave the match as JSON Schema reads it (none, or `g`, `u`, `d`) and the
 * source is valid with the `u` flag that JSON Schema validators use. Otherwise none.
 */
function patternOf(pattern: unknown, modifiers: unknown): string | undefined {
  let source: string;
  let flags: string;
  if (pattern instanceof RegExp) {
    source = pattern.source;
    flags = pattern.flags;
  } else if (typeof pattern === 'string') {
    source = pattern;
    flags = typeof modifiers === 'string' ? modifiers : '';
  } else return undefined;
  if (!/^[gud]*$/.test(flags)) return undefined;
  try {
    new RegExp(source, 'u');
  } catch {
    return undefined;
  }
  return source;
}
