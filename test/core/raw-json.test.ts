import fc from 'fast-check';
// Unit level: the scanner that finds a value's text as written, for error messages.
import { rawTextAt } from '../../src/core/raw-json';

type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = []): [Path, unknown][] {
  const here: [Path, unknown][] = [[prefix, value]];
  if (Array.isArray(value)) {
    return here.concat(...value.map((item, i) => pathsOf(item, [...prefix, i])));
  }
  if (typeof value === 'object' && value !== null) {
    return here.concat(
      ...Object.entries(value).map(([key, item]) => pathsOf(item, [...prefix, key])),
    );
  }
  return here;
}

describe('rawTextAt', () => {
  it('finds the text of every value of any JSON, however it is spaced', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom(0, 2), (value, indent) => {
        const text = JSON.stringify(value, null, indent);
        for (const [path, inner] of pathsOf(JSON.parse(text))) {
          const found = rawTextAt(text, path);
          expect(found).toBeDefined();
          expect(JSON.parse(found!)).toEqual(inner);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps numbers as written, takes the last of repeated keys, and gives up on bad text', () => {
    expect(rawTextAt('{"a": [1.0, 2e3 ], "b": {"c": -0.50}}', ['a', 1])).toBe('2e3');
    expect(rawTextAt('{"a": [1.0, 2e3 ], "b": {"c": -0.50}}', ['b', 'c'])).toBe('-0.50');
    expect(rawTextAt('{"k":1.0,"k":2.0}', ['k'])).toBe('2.0');
    expect(rawTextAt('{"a":[]}', ['a', 0])).toBeUndefined();
    expect(rawTextAt('{"a":', ['a'])).toBeUndefined();
    expect(rawTextAt('[1,2]', ['x'])).toBeUndefined();
  });
});

describe('rawTextAt on text nested too deeply', () => {
  it.each([5_000, 100_000])('gives up at %i levels instead of overflowing the stack', (depth) => {
    const text = `{"n":1,"deep":${'['.repeat(depth)}${']'.repeat(depth)},"m":2}`;
    expect(rawTextAt(text, ['n'])).toBeUndefined();
    expect(rawTextAt(text, ['m'])).toBeUndefined();
  });

  it('follows text as deep as the limit', () => {
    const text = `{"m":2.0,"d":${'['.repeat(999)}${']'.repeat(999)}}`;
    expect(rawTextAt(text, ['m'])).toBe('2.0');
  });
});
