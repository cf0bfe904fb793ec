import {
  compareUtf8,
  goFixed,
  goFloat,
  goInstance,
  goInstanceS,
  goQuoteList,
  goRat,
  goValue,
} from '../../../src/mcp/validation/go-format';

/*
 * Go's fmt as google/jsonschema-go's messages use it (jsonschema/validate.go): `%v` of a
 * float64 is strconv.FormatFloat(x, 'g', -1, 64), `%s` of a *big.Rat is Rat.String
 * ("a/b" even when b is 1), `%f` is six decimals rounded half to even on the exact
 * binary value, `%v` of a map sorts its keys.
 */

test.each<[number, string]>([
  [0, '0'],
  [-0, '-0'],
  [1, '1'],
  [100, '100'],
  [1.5, '1.5'],
  [123456, '123456'],
  [1000000, '1e+06'],
  [1234567, '1.234567e+06'],
  [1e21, '1e+21'],
  [0.0001, '0.0001'],
  [0.00001, '1e-05'],
  [-2.5e-7, '-2.5e-07'],
  [2 ** 53, '9.007199254740992e+15'],
])('%%v of float64 %p is %s', (x, expected) => {
  expect(goFloat(x)).toBe(expected);
});

test.each<[number, string]>([
  [0, '0/1'],
  [5, '5/1'],
  [-2, '-2/1'],
  [0.75, '3/4'],
  [0.1, '3602879701896397/36028797018963968'],
  [1e21, '1000000000000000000000/1'],
])('%%s of the big.Rat of %p is %s', (x, expected) => {
  expect(goRat(x)).toBe(expected);
});

test.each<[number, string]>([
  [1, '1.000000'],
  [0.1, '0.100000'],
  [-1.5, '-1.500000'],
  [0.0078125, '0.007812'],
  [0.0234375, '0.023438'],
  [2.5e-7, '0.000000'],
  [1e21, '1000000000000000000000.000000'],
])('%%f of %p is %s', (x, expected) => {
  expect(goFixed(x)).toBe(expected);
});

test('%v of decoded JSON values', () => {
  expect(goInstance(null)).toBe('<invalid reflect.Value>');
  expect(goValue(null)).toBe('<nil>');
  expect(goInstance('a b')).toBe('a b');
  expect(goInstance(true)).toBe('true');
  expect(goInstance([1, 'x', null, [true]])).toBe('[1 x <nil> [true]]');
  expect(goInstance({ b: 1, a: { d: null, c: [] } })).toBe('map[a:map[c:[] d:<nil>] b:1]');
  expect(goValue(['low', 'high'])).toBe('[low high]');
});

test('%s of decoded JSON values: a number or a bool is a bad verb', () => {
  expect(goInstanceS([1, 'x', true, null])).toBe('[%!s(float64=1) x %!s(bool=true) <nil>]');
});

test('%q of a []string', () => {
  expect(goQuoteList([])).toBe('[]');
  expect(goQuoteList(['a', 'b\n'])).toBe('["a" "b\\n"]');
});

test("map keys sort in UTF-8 byte order, which is code point order, not UTF-16's", () => {
  // U+FF5E sorts before U+1F600 in code points, after it in UTF-16 code units.
  expect(['😀', '～', 'a'].sort(compareUtf8)).toEqual(['a', '～', '😀']);
});
