// The per-call cost of the whole argument pipeline (raw JSON → validated → instance)
// against the schema libraries the MCP SDK (ajv) and fastmcp (zod) validate with.
import 'reflect-metadata';
import Ajv from 'ajv';
import { plainToInstance } from 'class-transformer';
import { z } from 'zod';
import {
  argumentsParser,
  compileSchema,
  Param,
  parseArguments,
  schemaFromJson,
  schemaOf,
} from 'agenttool';
import { type Figure, measure, report } from './measure';

class Owner {
  @Param('Who owns it') name!: string;
  @Param('Their id', { type: 'integer' }) id!: number;
}

enum Level {
  Low = 'low',
  Medium = 'medium',
  High = 'high',
}

/** Ten fields of mixed kinds, no class-validator constraints. */
class TenFields {
  @Param('A name') name!: string;
  @Param('How many', { type: 'integer' }) count!: number;
  @Param('A ratio') ratio!: number;
  @Param('On or off') enabled!: boolean;
  @Param('How much', { enum: Level }) level!: Level;
  @Param('Labels', { items: 'string' }) tags!: string[];
  @Param('When') when!: Date;
  @Param('The owner') owner!: Owner;
  @Param('A note', { optional: true }) note?: string;
  @Param('Limits by name', { values: 'number', optional: true }) limits?: Record<string, number>;
}

const raw = JSON.stringify({
  name: 'report.txt',
  count: 42,
  ratio: 0.75,
  enabled: true,
  level: 'medium',
  tags: ['alpha', 'beta', 'gamma'],
  when: '2024-05-01T12:00:00Z',
  owner: { name: 'ann', id: 7 },
  note: 'first draft',
  limits: { cpu: 2, memory: 512 },
});

const schema = schemaOf(TenFields);
const ajv = new Ajv({ validateFormats: false });
const ajvValidate = ajv.compile(schema);

const zodSchema = z.object({
  name: z.string(),
  count: z.number().int(),
  ratio: z.number(),
  enabled: z.boolean(),
  level: z.enum(['low', 'medium', 'high']),
  tags: z.array(z.string()),
  when: z.string(), // as ajv without formats: a string
  owner: z.object({ name: z.string(), id: z.number().int() }),
  note: z.string().optional(),
  limits: z.record(z.string(), z.number()).optional(),
});

const parse = argumentsParser(TenFields);
// The same model the pipeline validates with, for the validation-only figure.
const contractValidator = compileSchema(schemaFromJson(schema)!);

const AJV = 'ajv (JSON.parse + validate)';
const ZOD = 'zod 4 (JSON.parse + safeParse)';

let sink: unknown;

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`benchmark input rejected by ${what}`);
}

async function main(): Promise<void> {
  // Every contender must accept the input, or the figures mean nothing.
  check(ajvValidate(JSON.parse(raw)), 'ajv');
  check(zodSchema.safeParse(JSON.parse(raw)).success, 'zod');
  check(parse(raw) instanceof TenFields, 'agenttool');

  const options = { ops: 20_000, rounds: 7, warmup: 2 };
  const contenders: [string, (ops: number) => void][] = [
    [
      AJV,
      (ops) => {
        for (let i = 0; i < ops; i++) {
          const value: unknown = JSON.parse(raw);
          if (!ajvValidate(value)) throw new Error('rejected');
          sink = value;
        }
      },
    ],
    [
      ZOD,
      (ops) => {
        for (let i = 0; i < ops; i++) {
          const result = zodSchema.safeParse(JSON.parse(raw));
          if (!result.success) throw new Error('rejected');
          sink = result.data;
        }
      },
    ],
    [
      'agenttool pipeline (validate + instance)',
      (ops) => {
        for (let i = 0; i < ops; i++) sink = parse(raw);
      },
    ],
    [
      'agenttool validation only',
      (ops) => {
        for (let i = 0; i < ops; i++) {
          const value = parseArguments(raw);
          if (contractValidator(value) !== undefined) throw new Error('rejected');
          sink = value;
        }
      },
    ],
    [
      'validation + class-transformer plainToInstance',
      (ops) => {
        for (let i = 0; i < ops; i++) {
          const value = parseArguments(raw);
          if (contractValidator(value) !== undefined) throw new Error('rejected');
          sink = plainToInstance(TenFields, value as object);
        }
      },
    ],
  ];
  // The machine is shared: contenders are measured in turn, over several passes, and
  // each keeps its best median, so a burst of load elsewhere does not land on one alone.
  const best = new Map<string, Figure>();
  for (let pass = 0; pass < 3; pass++) {
    for (const [name, round] of contenders) {
      const figure = await measure(name, round, options);
      const previous = best.get(name);
      if (previous === undefined || figure.nsPerOp < previous.nsPerOp) best.set(name, figure);
    }
  }
  const figures = contenders.map(([name]) => best.get(name)!);
  report('Arguments of a ten-field class, per call, against ajv', figures, AJV);
  report('The same, against zod 4', figures, ZOD);
  void sink;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
