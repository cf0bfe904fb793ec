import 'reflect-metadata';
import { plainToInstance, type TargetMap } from 'class-transformer';
import * as fc from 'fast-check';
import { argumentsParser, Param } from 'agenttool';

// The pipeline builds instances itself (class-transformer's per-call metadata lookups
// would cost several times the validation). For the shapes @Param describes it must
// make exactly what class-transformer's plainToInstance makes when told the same types.

class Leaf {
  @Param() name!: string;
  @Param('', { optional: true }) at?: Date;
  @Param('', { type: 'number', optional: true, nullable: true }) score?: number | null;
}

class Root {
  @Param() title!: string;
  @Param('', { type: 'integer' }) count!: number;
  @Param() flag!: boolean;
  @Param() when!: Date;
  @Param() leaf!: Leaf;
  @Param('', { items: Leaf }) leaves!: Leaf[];
  @Param('', { items: 'string', optional: true }) tags?: string[];
  @Param('', { type: 'any', optional: true }) raw?: unknown;
  @Param('', { optional: true }) note?: string = 'default';
}

const targetMaps: TargetMap[] = [
  { target: Root, properties: { when: Date, leaf: Leaf, leaves: Leaf } },
  { target: Leaf, properties: { at: Date } },
];

// RFC 3339 texts with offsets and 0 to 6 fraction digits, all of which Date parses too.
const date = fc
  .tuple(
    fc.date({
      min: new Date('1970-01-01T00:00:00Z'),
      max: new Date('2999-12-31T23:59:59Z'),
      noInvalidDate: true,
    }),
    fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
    fc.constantFrom(0, 1, 3, 6),
  )
  .map(([d, offset, digits]) => {
    const local = new Date(d.getTime() + offset * 60_000).toISOString().slice(0, 23);
    const fraction = digits === 0 ? '' : `.${(local.slice(20) + '456').slice(0, digits)}`;
    const abs = Math.abs(offset);
    const zone =
      offset === 0
        ? 'Z'
        : `${offset < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    return `${local.slice(0, 19)}${fraction}${zone}`;
  });
const leaf = fc.record(
  {
    name: fc.string(),
    at: date,
    // Non-strict schemas do not express nullability, so null is not valid here.
    score: fc.double({ noNaN: true, noDefaultInfinity: true }),
  },
  { requiredKeys: ['name'] },
);
const root = fc.record(
  {
    title: fc.string(),
    count: fc.integer(),
    flag: fc.boolean(),
    when: date,
    leaf,
    leaves: fc.array(leaf, { maxLength: 3 }),
    tags: fc.array(fc.string(), { maxLength: 3 }),
    // class-transformer silently drops keys that name Object.prototype members
    // (`{"toString": 0}` becomes `{}`); ours keeps what the model wrote (tested below),
    // so such keys are outside the equivalence.
    raw: fc.jsonValue().filter((value) => !namesPrototypeMember(value)),
    note: fc.string(),
  },
  { requiredKeys: ['title', 'count', 'flag', 'when', 'leaf', 'leaves'] },
);

function namesPrototypeMember(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(namesPrototypeMember);
  return Object.entries(value).some(
    ([key, inner]) => key in Object.prototype || namesPrototypeMember(inner),
  );
}

describe('instances equal what class-transformer makes', () => {
  const parse = argumentsParser(Root);

  it('for generated valid arguments', () => {
    fc.assert(
      fc.property(root, (plain) => {
        const raw = JSON.stringify(plain);
        const ours = parse(raw);
        const theirs = plainToInstance(Root, JSON.parse(raw) as object, { targetMaps });
        expect(ours).toStrictEqual(theirs);
      }),
      { numRuns: 200 },
    );
  });
});

describe('where class-transformer loses data, ours keeps it', () => {
  it('keeps keys that name Object.prototype members inside an any field', () => {
    const parse = argumentsParser(Root);
    const raw =
      '{"title":"","count":0,"flag":false,"when":"1970-01-01T00:00:00Z","leaf":{"name":""},"leaves":[],"raw":{"toString":0,"valueOf":"","a":1}}';
    const ours = parse(raw) as Root;
    expect(ours.raw).toEqual({ toString: 0, valueOf: '', a: 1 });
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });
});
