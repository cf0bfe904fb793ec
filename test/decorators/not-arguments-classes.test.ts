import 'reflect-metadata';
import {
  argumentsParser,
  type Constructor,
  createContext,
  outputSchemaOf,
  Param,
  schemaOf,
  Tool,
  toolDescriptorOf,
  toolFromInstance,
} from 'agenttool';
import { decoratorProblemsOf as problemsOf } from '../support/thrown';

// What `@Tool({ args })`, `@Tool({ output })`, `argumentsParser` and `schemaOf` cannot
// read as a class of arguments is refused when the class is read, each naming what it
// was given, never found out (or lost) when a call arrives.

class Nums {
  @Param() n!: number;
}

/** A tool class taking `args` (and `output`), made afresh for each case. */
function toolWith(options: { args?: unknown; output?: unknown }): new () => object {
  @Tool({ name: 'probe', ...(options as object) })
  class Probe {
    execute(): string {
      return 'ran';
    }
  }
  return Probe;
}

describe('a function without a prototype (a type thunk) given as a class', () => {
  it('as @Tool args or output is a problem of the tool class', () => {
    expect(problemsOf(() => toolDescriptorOf(toolWith({ args: () => Nums })))).toEqual([
      'Probe: @Tool args must be a class (got a function without a prototype; write args: X, not () => X)',
    ]);
    expect(problemsOf(() => toolDescriptorOf(toolWith({ output: () => Nums })))).toEqual([
      'Probe: @Tool output must be a class (got a function without a prototype; write output: X, not () => X)',
    ]);
  });

  it('given to argumentsParser or schemaOf is a clear error', () => {
    const thunk = (() => Nums) as unknown as Constructor<Nums>;
    const expected = [
      'thunk: arguments must be a class (got a function without a prototype; pass X, not () => X)',
    ];
    expect(problemsOf(() => argumentsParser(thunk))).toEqual(expected);
    expect(problemsOf(() => schemaOf(thunk))).toEqual(expected);
    expect(() => schemaOf(thunk)).toThrow(/^agenttool: arguments class "thunk" has 1 problem:/);
  });
});

describe('a built-in type given as the arguments class', () => {
  it.each<[string, unknown]>([
    ['Number', Number],
    ['String', String],
    ['Boolean', Boolean],
    ['Date', Date],
    ['Array', Array],
    ['Object', Object],
    ['Buffer', Buffer],
    ['Uint8Array', Uint8Array],
    ['Float64Array', Float64Array],
    ['Map', Map],
    ['Set', Set],
    ['RegExp', RegExp],
    ['Error', Error],
    ['Promise', Promise],
    ['URL', URL],
    ['ArrayBuffer', ArrayBuffer],
    ['DataView', DataView],
  ])('%s is refused as Go refuses a non-struct', (name, type) => {
    expect(problemsOf(() => toolDescriptorOf(toolWith({ args: type })))).toEqual([
      `Probe: arguments must be a class of @Param fields, got ${name}`,
    ]);
    expect(problemsOf(() => schemaOf(type as Constructor))).toEqual([
      `${name}: arguments must be a class of @Param fields, got ${name}`,
    ]);
  });

  it('as the output class too', () => {
    expect(problemsOf(() => toolDescriptorOf(toolWith({ output: Date })))).toEqual([
      'Probe: output must be a class of @Param fields, got Date',
    ]);
  });

  it('an own class without fields stays an empty arguments object', async () => {
    class NoFields {}
    expect(schemaOf(NoFields)).toEqual({ type: 'object', properties: {}, required: [] });
    const Probe = toolWith({ args: NoFields });
    const call = { id: 'c', args: '{}' };
    expect(await toolFromInstance(new Probe()).execute(call, createContext({ call }))).toEqual({
      output: 'ran',
    });
  });
});

describe('classes a schema cannot express, found when the class is read', () => {
  it('an arguments class whose constructor takes parameters', () => {
    class Needs {
      readonly seed: number;
      constructor(seed: { n: number }) {
        this.seed = seed.n;
      }
      @Param() a!: string;
    }
    class HasNeeds {
      @Param() n!: Needs;
    }
    expect(problemsOf(() => toolDescriptorOf(toolWith({ args: HasNeeds })))).toEqual([
      'Needs: an arguments class needs a constructor without parameters',
    ]);
    expect(problemsOf(() => argumentsParser(Needs))).toEqual([
      'Needs: an arguments class needs a constructor without parameters',
    ]);
  });

  it('an output class may take constructor parameters: it is never constructed here', () => {
    class Reading {
      constructor(readonly celsius: number) {
        this.celsius = celsius;
      }
      @Param() place!: string;
    }
    expect(outputSchemaOf(toolFromInstance(new (toolWith({ output: Reading }))()))).toEqual({
      type: 'object',
      properties: { place: { type: 'string' } },
      required: ['place'],
    });
  });

  it.each<[string, unknown, string]>([
    ['URL', URL, 'a URL; use a string'],
    ['Float32Array', Float32Array, "a Float32Array; declare number[] with { items: 'number' }"],
    ['Int32Array', Int32Array, "an Int32Array; declare number[] with { items: 'integer' }"],
    ['ArrayBuffer', ArrayBuffer, 'an ArrayBuffer; use Uint8Array or Buffer for bytes'],
    ['DataView', DataView, 'a DataView; use Uint8Array or Buffer for bytes'],
  ])('a field of type %s', (_, type, what) => {
    class Holder {
      @Param('', { type: type as Constructor }) field!: unknown;
    }
    expect(problemsOf(() => schemaOf(Holder))).toEqual([
      `Holder.field: the field is ${what}, which cannot be expressed as a schema`,
    ]);
  });
});

describe('enum values a schema cannot hold', () => {
  it('are named as written, not as their JSON', () => {
    class Odd {
      @Param('', { enum: [1, NaN] }) ratio!: number;
      @Param('', { type: 'number', enum: [1, Infinity] }) cap!: number;
      @Param('', { type: 'integer', enum: [1, 2 ** 53 + 2] }) id!: number;
    }
    expect(problemsOf(() => schemaOf(Odd))).toEqual([
      "Odd.ratio: enum value NaN is not of type number; make every enum value of type number or change the field's type",
      "Odd.cap: enum value Infinity is not of type number; make every enum value of type number or change the field's type",
      'Odd.id: enum value 9007199254740994 is beyond 2^53, where a number holds no exact integer; list it as a string',
    ]);
  });
});
