import 'reflect-metadata';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  Matches,
  Min,
  MinLength,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';
import { argumentsParser, Param, schemaOf, ValidationError } from 'agenttool';

async function failure(run: () => unknown): Promise<ValidationError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected the arguments to be rejected');
}

// The contract's validation cases (validate_test.go), through the decorated class.
class NestedDeep {
  @Param() deep!: boolean;
}
class Validated {
  @Param() path!: string;
  @Param('', { enum: ['low', 'high'], optional: true }) level?: 'low' | 'high';
  @Param('', { type: 'integer', enum: [1, 2], optional: true, nullable: true })
  count?: number | null;
  @Param('', { items: 'string', optional: true }) tags?: string[];
  @Param('', { optional: true }) nested?: NestedDeep;
  @Param('', { optional: true }) ratio?: number;
}

describe('the contract messages', () => {
  const parse = argumentsParser(Validated);
  const strict = argumentsParser(Validated, { strict: true });
  const cases: [string, string][] = [
    ['', 'invalid arguments: missing required property "path"'],
    ['{"path":1}', 'invalid arguments: path: expected string, got 1'],
    [
      '{"path":"/x","level":"mid"}',
      'invalid arguments: level: expected one of ["low", "high"], got "mid"',
    ],
    ['{"path":"/x","count":3}', 'invalid arguments: count: expected one of [1, 2], got 3'],
    ['{"path":"/x","count":1.5}', 'invalid arguments: count: expected one of [1, 2], got 1.5'],
    ['{"path":"/x","tags":["a",2]}', 'invalid arguments: tags[1]: expected string, got 2'],
    [
      '{"path":"/x","nested":{"deep":"yes"}}',
      'invalid arguments: nested.deep: expected boolean, got "yes"',
    ],
    ['{"path":"/x","nested":{}}', 'invalid arguments: nested: missing required property "deep"'],
    ['{"path":"/x","ratio":"high"}', 'invalid arguments: ratio: expected number, got "high"'],
    ['{"path":null}', 'invalid arguments: path: expected string, got null'],
    ['[1]', 'invalid arguments: expected object, got array'],
  ];
  it.each(cases)('%s', async (raw, message) => {
    expect((await failure(() => parse(raw))).message).toBe(message);
  });

  it('reports text that is not JSON', async () => {
    expect((await failure(() => parse('{'))).message).toMatch(/^invalid arguments: not valid JSON/);
  });

  it('accepts 2.0 for an integer enum and ignores unknown properties', async () => {
    const args = await parse('{"path":"/x","count":2.0,"extra":true}');
    expect(args.count).toBe(2);
    expect(args).not.toHaveProperty('extra');
  });

  it('under strict: every field required, null for a nullable field, unknown rejected', async () => {
    expect((await failure(() => strict('{"path":"/x"}'))).message).toBe(
      'invalid arguments: missing required property "level"',
    );
    const full =
      '{"path":"/x","level":"low","count":null,"tags":[],"nested":{"deep":true},"ratio":1';
    expect((await strict(`${full}}`)).count).toBeNull();
    expect((await failure(() => strict(`${full},"bogus":1}`))).message).toBe(
      'invalid arguments: unexpected property "bogus"',
    );
  });
});

class Item {
  @Param() name!: string;
  @Param('', { optional: true }) at?: Date;
  label(): string {
    return `item ${this.name}`;
  }
}
class Shapes {
  @Param() when!: Date;
  @Param() item!: Item;
  @Param('', { items: Item }) items!: Item[];
  @Param('', { values: () => Item }) byName!: Record<string, Item>;
  @Param('', { values: 'date-time', optional: true }) dates?: Record<string, Date>;
  @Param('', { items: [Date], optional: true }) schedule?: Date[][];
  @Param('', { optional: true }) blob?: Buffer;
  @Param('', { optional: true }) bytes?: Uint8Array;
  @Param('', { type: 'any', optional: true }) extra?: unknown;
  @Param('', { optional: true }) withDefault?: string = 'fallback';
}

describe('instantiation', () => {
  const parse = argumentsParser(Shapes);
  const base = {
    when: '2024-05-01T12:00:00Z',
    item: { name: 'a' },
    items: [{ name: 'b', at: '2024-05-02T00:00:00+02:00' }],
    byName: { c: { name: 'c' } },
  };

  it('makes nested classes instances and dates Date, and keeps field initialisers', async () => {
    const args = await parse(JSON.stringify({ ...base, dates: { d: '2020-01-01T00:00:00Z' } }));
    expect(args).toBeInstanceOf(Shapes);
    expect(args.when).toEqual(new Date('2024-05-01T12:00:00Z'));
    expect(args.item).toBeInstanceOf(Item);
    expect(args.item.label()).toBe('item a');
    expect(args.items[0]).toBeInstanceOf(Item);
    expect(args.items[0]!.at).toEqual(new Date('2024-05-01T22:00:00Z'));
    expect(args.byName.c).toBeInstanceOf(Item);
    expect(args.dates!.d).toBeInstanceOf(Date);
    expect(args.withDefault).toBe('fallback');
  });

  it('decodes nested arrays of dates, and base64 as Buffer or Uint8Array', async () => {
    const args = await parse(
      JSON.stringify({
        ...base,
        schedule: [['2024-01-01T00:00:00Z']],
        blob: 'AQID',
        bytes: 'CQ==',
      }),
    );
    expect(args.schedule![0]![0]).toBeInstanceOf(Date);
    expect(Buffer.isBuffer(args.blob)).toBe(true);
    expect([...args.blob!]).toEqual([1, 2, 3]);
    expect(args.bytes).toBeInstanceOf(Uint8Array);
    expect([...args.bytes!]).toEqual([9]);
    // Their memory is their own, not a view on Node's shared pool.
    expect(args.bytes!.buffer.byteLength).toBe(1);
    expect(args.blob!.buffer.byteLength).toBe(3);
  });

  it('rejects a date or base64 value that does not decode, with its path', async () => {
    const badDate = { ...base, items: [{ name: 'b', at: 'next tuesday' }] };
    expect((await failure(() => parse(JSON.stringify(badDate)))).message).toBe(
      'invalid arguments: items[0].at: cannot parse "next tuesday" as a date-time (RFC 3339, e.g. "2024-05-01T12:00:00Z")',
    );
    expect((await failure(() => parse(JSON.stringify({ ...base, blob: 'no!' })))).message).toBe(
      'invalid arguments: blob: expected base64 text, got "no!"',
    );
  });

  it.each([
    ['2024-02-29T23:59:59.5+01:00', '2024-02-29T22:59:59.500Z'],
    ['2024-05-01t12:00:00z', '2024-05-01T12:00:00.000Z'],
    ['1999-12-31T23:00:00-02:30', '2000-01-01T01:30:00.000Z'],
    ['0050-03-01T00:00:00.123456Z', '0050-03-01T00:00:00.123Z'],
  ])('decodes the RFC 3339 time %s', async (when, iso) => {
    expect((await parse(JSON.stringify({ ...base, when }))).when.toISOString()).toBe(iso);
  });

  it.each([
    '2023-02-29T00:00:00Z',
    '2024-04-31T00:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01',
    '1',
  ])('rejects %s, which is not an RFC 3339 time', async (when) => {
    expect((await failure(() => parse(JSON.stringify({ ...base, when })))).message).toMatch(
      /^invalid arguments: when: cannot parse ".*" as a date-time/,
    );
  });

  it('keeps hostile keys away from every prototype', async () => {
    const raw =
      '{"when":"2024-05-01T12:00:00Z","item":{"name":"a","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}},' +
      '"items":[],"byName":{"__proto__":{"name":"p"},"constructor":{"name":"k"}},' +
      '"extra":{"__proto__":{"polluted":1}},"__proto__":{"polluted":1},"prototype":{"polluted":1}}';
    const args = await parse(raw);
    expect(Object.getPrototypeOf(args)).toBe(Shapes.prototype);
    expect(Object.getPrototypeOf(args.item)).toBe(Item.prototype);
    expect(args.item.constructor).toBe(Item);
    expect(Object.keys(args)).not.toContain('__proto__');
    expect(Object.keys(args)).not.toContain('prototype');
    expect(Object.getPrototypeOf(args.byName)).toBe(Object.prototype);
    expect(Object.keys(args.byName).sort()).toEqual(['__proto__', 'constructor']);
    expect(args.byName['__proto__']).toBeInstanceOf(Item);
    expect(Object.getPrototypeOf(args.extra)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });
});

function IsEven(options?: ValidationOptions): PropertyDecorator {
  return (target, key) =>
    registerDecorator({
      name: 'isEven',
      target: target.constructor,
      propertyName: key as string,
      options: { message: '$property must be even', ...options },
      async: true,
      validator: {
        validate: async (value: unknown) => typeof value === 'number' && value % 2 === 0,
      },
    });
}

class Contact {
  @Param() @IsEmail() email!: string;
}
class Signup {
  @Param('', { type: 'integer' }) @Min(18) age!: number;
  @Param() @Matches(/^[a-z]+$/) user!: string;
  @Param() contact!: Contact;
  @Param('', { items: Contact, optional: true }) others?: Contact[];
}
class Carried {
  @Param() @IsInt() count!: number;
  @Param() @IsIn(['a', 'b']) letter!: string;
  @Param() @IsOptional() note?: string;
}

/** The most failing fields one error names, as the README states. */
const MAX_REPORTED = 10;

describe('class-validator', () => {
  const parse = argumentsParser(Signup);
  const valid = { age: 30, user: 'ann', contact: { email: 'ann@example.com' } };

  it('runs the constraints and phrases the first failure with its path', async () => {
    expect(await parse(JSON.stringify(valid))).toBeInstanceOf(Signup);
    expect((await failure(() => parse(JSON.stringify({ ...valid, age: 12 })))).message).toBe(
      'invalid arguments: age: age must not be less than 18',
    );
    expect((await failure(() => parse(JSON.stringify({ ...valid, user: 'A1' })))).message).toBe(
      'invalid arguments: user: user must match /^[a-z]+$/ regular expression',
    );
  });

  it('validates nested classes and array items without @ValidateNested', async () => {
    const nested = { ...valid, contact: { email: 'nope' } };
    expect((await failure(() => parse(JSON.stringify(nested)))).message).toBe(
      'invalid arguments: contact.email: email must be an email',
    );
    const items = { ...valid, others: [{ email: 'a@b.co' }, { email: 'x' }] };
    expect((await failure(() => parse(JSON.stringify(items)))).message).toBe(
      'invalid arguments: others[1].email: email must be an email',
    );
  });

  it('reports every failing field in one error, in field order, each path once', async () => {
    const several = {
      age: 12,
      user: 'A1',
      contact: { email: 'nope' },
      others: [{ email: 'a@b.co' }, { email: 'x' }, { email: 'y' }],
    };
    const error = await failure(() => parse(JSON.stringify(several)));
    expect(error.message).toBe(
      'invalid arguments: age: age must not be less than 18; ' +
        'user: user must match /^[a-z]+$/ regular expression; ' +
        'contact.email: email must be an email; ' +
        'others[1].email: email must be an email; others[2].email: email must be an email',
    );
    expect(error.path).toBe('age');
    expect(error.detail).toBe('age must not be less than 18');
    expect(error.problems.map((p) => p.path)).toEqual([
      'age',
      'user',
      'contact.email',
      'others[1].email',
      'others[2].email',
    ]);
    expect(error.unreported).toBe(0);
  });

  it('names a field failing several constraints once, with its first failure', async () => {
    // Decorators apply from the field outwards: class-validator checks @Matches first.
    class Name {
      @Param() @MinLength(3) @Matches(/^[a-z]+$/) name!: string;
    }
    expect((await failure(() => argumentsParser(Name)('{"name":"A"}'))).message).toBe(
      'invalid arguments: name: name must match /^[a-z]+$/ regular expression',
    );
  });

  it(`names at most ${MAX_REPORTED} fields, then says how many more failed`, async () => {
    class Twelve {
      @Param('', { items: 'string' }) @ArrayMaxSize(0) list!: string[];
    }
    class Many {
      @Param('', { items: () => Twelve }) rows!: Twelve[];
    }
    const rows = Array.from({ length: 12 }, () => ({ list: ['x'] }));
    const error = await failure(() => argumentsParser(Many)(JSON.stringify({ rows })));
    expect(error.problems).toHaveLength(MAX_REPORTED);
    expect(error.unreported).toBe(2);
    expect(error.message).toBe(
      `invalid arguments: ${Array.from(
        { length: MAX_REPORTED },
        (_, i) => `rows[${i}].list: list must contain no more than 0 elements`,
      ).join('; ')}; and 2 more`,
    );
  });

  it('reports every failure of asynchronous constraints too', async () => {
    class Pair {
      @Param() @IsEven() a!: number;
      @Param() @IsEven() b!: number;
    }
    expect((await failure(() => argumentsParser(Pair)('{"a":1,"b":3}'))).message).toBe(
      'invalid arguments: a: a must be even; b: b must be even',
    );
  });

  it('checks the schema before class-validator', async () => {
    expect((await failure(() => parse(JSON.stringify({ ...valid, age: '30' })))).message).toBe(
      'invalid arguments: age: expected integer, got "30"',
    );
  });

  it('returns a promise only when a constraint is asynchronous', async () => {
    class Sync {
      @Param() @Min(1) n!: number;
    }
    class Async {
      @Param() @IsEven() n!: number;
    }
    expect(argumentsParser(Sync)('{"n":2}')).toBeInstanceOf(Sync);
    const pending = argumentsParser(Async)('{"n":2}');
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toBeInstanceOf(Async);
    expect((await failure(() => argumentsParser(Async)('{"n":3}'))).message).toBe(
      'invalid arguments: n: n must be even',
    );
  });

  it('carries @IsInt, @IsIn and @IsOptional into the schema', () => {
    expect(schemaOf(Carried)).toEqual({
      type: 'object',
      properties: {
        count: { type: 'integer' },
        letter: { type: 'string', enum: ['a', 'b'] },
        note: { type: 'string' },
      },
      required: ['count', 'letter'],
    });
  });
});

describe('class-transformer decorators', () => {
  class Trimmed {
    @Param() @Transform(({ value }: { value: string }) => value.trim()) name!: string;
    @Param() when!: Date;
  }

  it('apply to a class that carries them, with nested values still built', async () => {
    const args = await argumentsParser(Trimmed)('{"name":"  ann  ","when":"2024-05-01T12:00:00Z"}');
    expect(args).toBeInstanceOf(Trimmed);
    expect(args.name).toBe('ann');
    expect(args.when).toBeInstanceOf(Date);
  });
});
