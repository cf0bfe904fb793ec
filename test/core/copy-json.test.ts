import fc from 'fast-check';
import { copyJson, type JsonValue } from '../../src/core';

/** Every object and array inside `value`, itself included. */
function containers(value: unknown, into: object[] = []): object[] {
  if (typeof value === 'object' && value !== null) {
    into.push(value);
    for (const member of Object.values(value)) containers(member, into);
  }
  return into;
}

describe('copyJson', () => {
  it('copies any JSON value as structuredClone does, sharing no object or array', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = copyJson(value as JsonValue);
        expect(copy).toStrictEqual(structuredClone(value));
        const originals = new Set(containers(value));
        expect(containers(copy).filter((inner) => originals.has(inner))).toEqual([]);
      }),
    );
  });

  it('keeps a member named __proto__ a member, not the prototype', () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"}},"__proto__":{"x":1}}',
    ) as JsonValue;
    const copy = copyJson(schema) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['type', 'properties', '__proto__']);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ x: 1 });
    const properties = copy.properties as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(properties, '__proto__')?.value).toEqual({
      type: 'string',
    });
    expect(JSON.stringify(copy)).toBe(JSON.stringify(schema));
  });

  it('copies frozen input into a copy that can be changed', () => {
    const inner = Object.freeze({ b: 'c' });
    const frozen: JsonValue = Object.freeze({ a: Object.freeze([1, inner]) as JsonValue[] });
    const copy = copyJson(frozen) as { a: [number, { b: string }] };
    copy.a[1].b = 'd';
    expect(copy).toEqual({ a: [1, { b: 'd' }] });
    expect(frozen).toEqual({ a: [1, { b: 'c' }] });
  });

  it('copies what is not plain JSON the general way, sharing none of it', () => {
    // structuredClone lets these through a user's schema; two tools must not share them.
    const date = new Date(0);
    const map = new Map([[1, 2]]);
    const value = { default: date, values: map } as unknown as JsonValue;
    const copy = copyJson(value) as unknown as { default: Date; values: Map<number, number> };
    expect(copy.default).not.toBe(date);
    expect(copy.default.getTime()).toBe(0);
    expect(copy.values).not.toBe(map);
    copy.values.set(3, 4);
    expect([...map]).toEqual([[1, 2]]);
  });
});
