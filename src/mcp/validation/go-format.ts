import { goQuote } from '../../core';

/*
 * Go's fmt verbs for decoded JSON values (float64, string, bool, nil, []any,
 * map[string]any), as google/jsonschema-go prints them in its validation errors.
 */

/**
 * `%v` of a JSON value held in a `reflect.Value`, as jsonschema-go prints the instance:
 * strings bare, numbers as float64 (`1`, `1.5`, `1e+06`), `[a b]`, `map[k:v]` with its
 * keys sorted; a null instance is the invalid `reflect.Value` (`<invalid reflect.Value>`),
 * a null inside a value `<nil>`.
 */
export function goInstance(value: unknown): string {
  return value === null || value === undefined ? '<invalid reflect.Value>' : goValue(value);
}

/** `%v` of a JSON value held in an `any` (a null is `<nil>`): enum lists, `const`. */
export function goValue(value: unknown): string {
  return formatValue(value, 'v');
}

/** `%s` of a JSON value held in a `reflect.Value` (the `contains` error's instance). */
export function goInstanceS(value: unknown): string {
  return value === null || value === undefined
    ? '<invalid reflect.Value>'
    : formatValue(value, 's');
}

function formatValue(value: unknown, verb: 'v' | 's'): string {
  if (value === null || value === undefined) return '<nil>';
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return verb === 'v' ? goFloat(value) : `%!s(float64=${goFloat(value)})`;
    case 'boolean':
      return verb === 'v' ? String(value) : `%!s(bool=${String(value)})`;
    default:
      break;
  }
  if (Array.isArray(value)) return `[${value.map((item) => formatValue(item, verb)).join(' ')}]`;
  if (typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object).sort(compareUtf8);
    return `map[${keys.map((key) => `${key}:${formatValue(object[key], verb)}`).join(' ')}]`;
  }
  return typeof value;
}

/** Go's string order (UTF-8 bytes), which is code point order. */
export function compareUtf8(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const difference = (left[i]!.codePointAt(0) ?? 0) - (right[i]!.codePointAt(0) ?? 0);
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

/**
 * `%v` of a float64 (`strconv.FormatFloat(x, 'g', -1, 64)`): the shortest digits that
 * read back, with an exponent (`1e+06`, `1.5e-05`) when it is below -4 or at least 6.
 */
export function goFloat(x: number): string {
  if (Object.is(x, -0)) return '-0';
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? '+Inf' : '-Inf';
  const [mantissa = '', exponentText = '0'] = x.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const digits = String(Math.abs(exponent)).padStart(2, '0');
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${digits}`;
  }
  // Between 1e-4 and 1e6, JavaScript writes the same shortest digits without an exponent.
  return String(x);
}

/** `%q` of a `[]string`: `["a" "b"]`. */
export function goQuoteList(items: readonly string[]): string {
  return `[${items.map(goQuote).join(' ')}]`;
}

/** `%s` of the `*big.Rat` jsonschema-go makes of a float64: always `num/den`, reduced (`5/1`, `1/2`). */
export function goRat(x: number): string {
  const { negative, mantissa, exponent } = decompose(x);
  let m = mantissa;
  let e = exponent;
  while (m !== 0n && e < 0 && (m & 1n) === 0n) {
    m >>= 1n;
    e++;
  }
  if (m === 0n) return '0/1';
  const numerator = e >= 0 ? m << BigInt(e) : m;
  const denominator = e >= 0 ? 1n : 1n << BigInt(-e);
  return `${negative ? '-' : ''}${numerator}/${denominator}`;
}

/** `%f` of a float64: six decimals, rounded half to even on the exact binary value. */
export function goFixed(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? '+Inf' : '-Inf';
  const { negative, mantissa, exponent } = decompose(x);
  // x * 10^6 = mantissa * 10^6 * 2^exponent, rounded to an integer.
  let scaled = mantissa * 1_000_000n;
  if (exponent >= 0) scaled <<= BigInt(exponent);
  else {
    const denominator = 1n << BigInt(-exponent);
    const quotient = scaled / denominator;
    const twice = (scaled % denominator) * 2n;
    scaled =
      twice > denominator || (twice === denominator && (quotient & 1n) === 1n)
        ? quotient + 1n
        : quotient;
  }
  const digits = scaled.toString().padStart(7, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -6)}.${digits.slice(-6)}`;
}

/** A finite double as sign, integer mantissa and binary exponent: x = ±mantissa * 2^exponent. */
function decompose(x: number): { negative: boolean; mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const negative = bits >> 63n === 1n;
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  if (biased === 0) return { negative, mantissa: fraction, exponent: -1074 };
  return { negative, mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/** The JSON Schema type of a decoded value, as jsonschema-go names it (`integer` for 2.0). */
export function jsonTypeOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'number':
      return Number.isInteger(value) ? 'integer' : 'number';
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    default:
      return Array.isArray(value) ? 'array' : 'object';
  }
}

/** JSON equality as jsonschema-go compares values: numbers by value, arrays and objects deeply. */
export function jsonValuesEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => jsonValuesEqual(item, b[i]))
    );
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && jsonValuesEqual(left[key], right[key]))
  );
}

/** The JSON Pointer segment of a name, as jsonschema-go writes schema paths (`~0`, `~1`). */
export function pointerSegment(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}
