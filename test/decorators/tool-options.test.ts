import { Min } from 'class-validator';
import {
  DecoratorError,
  Executor,
  type JobOutcome,
  Param,
  Strict,
  Tool,
  ValidationError,
  definitionHash,
  definitionOf,
  isStrict,
  newTool,
  schemaOf,
  text,
  toolFromInstance,
} from 'agenttool';

class Inner {
  @Param() deep!: boolean;
}

class Args {
  @Param() path!: string;
  @Param('', { enum: ['low', 'high'], optional: true }) level?: 'low' | 'high';
  @Param('', { type: 'integer', optional: true }) @Min(1) count?: number;
  @Param('', { optional: true }) when?: Date;
  @Param('', { optional: true }) inner?: Inner;
}

/** What the tool saw: the arguments instance, as JSON, and the classes of its values. */
interface Seen {
  readonly args: unknown;
  readonly isArgs: boolean;
  readonly whenIsDate: boolean;
  readonly innerIsInner: boolean;
}

function report(args: object): string {
  const a = args as Partial<Args>;
  const seen: Seen = {
    args,
    isArgs: args instanceof Args,
    whenIsDate: a.when instanceof Date,
    innerIsInner: a.inner instanceof Inner,
  };
  return JSON.stringify(seen);
}

async function run(instance: object, raw: string): Promise<JobOutcome> {
  const [outcome] = await new Executor().results([
    { tool: toolFromInstance(instance), call: { id: 'call_1', args: raw } },
  ]);
  return outcome!;
}

function seen(outcome: JobOutcome): Seen {
  if (outcome.error !== undefined) throw outcome.error;
  return JSON.parse(outcome.result.output as string) as Seen;
}

@Tool({ name: 'checked', args: Args })
class Checked {
  execute(args: Args): string {
    return report(args);
  }
}

// Go: typed.go WithoutValidation: "skips a New tool's argument check against the
// reflected schema, leaving the decoder as the only guard"; New sets tree = nil, keeps
// the reflected schema, and Execute goes straight to Decode (json.Unmarshal).
describe('@Tool({ validate: false })', () => {
  @Tool({ name: 'unchecked', args: Args, validate: false })
  @Strict()
  class Unchecked {
    execute(args: Args): string {
      return report(args);
    }
  }

  it('serves the generated schema, strict flag and all', () => {
    const tool = toolFromInstance(new Unchecked());
    expect(tool.parameters).toEqual(schemaOf(Args, { strict: true }));
    expect(isStrict(tool)).toBe(true);
    expect(definitionOf(tool).strict).toBe(true);
  });

  it('runs the tool with arguments the schema refuses: missing, outside the enum, unknown', async () => {
    const raw = '{"level":"mid","extra":1,"count":0}';
    expect((await run(new Checked(), raw)).error?.message).toBe(
      'invalid arguments: missing required property "path"',
    );
    expect(seen(await run(new Unchecked(), raw))).toEqual({
      args: { level: 'mid', count: 0 },
      isArgs: true,
      whenIsDate: false,
      innerIsInner: false,
    });
  });

  it('still decodes into the class: nested instances, dates', async () => {
    const raw = '{"path":"/x","when":"2024-05-01T12:00:00Z","inner":{}}';
    expect(seen(await run(new Unchecked(), raw))).toMatchObject({
      isArgs: true,
      whenIsDate: true,
      innerIsInner: true,
    });
  });

  it('refuses a value of the wrong JSON type, as the decoder does', async () => {
    // Go's decoder says `json: cannot unmarshal string into Go struct field ... of type
    // int`; the Go type has no TypeScript counterpart, so the contract's words are used.
    const outcome = await run(new Unchecked(), '{"count":"x"}');
    expect(outcome.error).toBeInstanceOf(ValidationError);
    expect(outcome.error?.message).toBe('invalid arguments: count: expected integer, got "x"');
    expect((await run(new Unchecked(), '{"inner":[1]}')).error?.message).toBe(
      'invalid arguments: inner: expected object, got array',
    );
  });

  it('reads text that is not JSON as Go’s Decode (json.Unmarshal) words it', async () => {
    // Go: typed.go Decode → `invalid arguments: %w` of json.Unmarshal's error.
    expect((await run(new Unchecked(), '{')).error?.message).toBe(
      'invalid arguments: unexpected end of JSON input',
    );
    expect((await run(new Unchecked(), '{"path":"/x"} x')).error?.message).toBe(
      "invalid arguments: invalid character 'x' after top-level value",
    );
    // The validated tool reads the first value with json.Decoder (validate.go).
    expect((await run(new Checked(), '{')).error?.message).toBe(
      'invalid arguments: not valid JSON: unexpected EOF',
    );
  });

  it('decodes null and empty arguments as an empty object', async () => {
    expect(seen(await run(new Unchecked(), 'null')).args).toEqual({});
    expect(seen(await run(new Unchecked(), '')).args).toEqual({});
  });

  it('does not run class-validator constraints either', async () => {
    expect((await run(new Checked(), '{"path":"/x","count":0}')).error?.message).toBe(
      'invalid arguments: count: count must not be less than 1',
    );
    expect(seen(await run(new Unchecked(), '{"path":"/x","count":0}')).args).toEqual({
      path: '/x',
      count: 0,
    });
  });

  it('without an arguments class, accepts any object', async () => {
    @Tool({ name: 'none', validate: false })
    @Strict()
    class None {
      execute(args: object): string {
        return JSON.stringify(args);
      }
    }
    const outcome = await run(new None(), '{"anything":1}');
    expect(outcome.result?.output).toBe('{}');
    expect((await run(new None(), '[1]')).error?.message).toBe(
      'invalid arguments: expected object, got array',
    );
  });
});

// Go: typed.go WithParameters: "replaces the reflected schema of a New tool with
// schema. Arguments are then not validated before decoding, because the tool cannot
// know what the schema promises"; New does not reflect Args at all then.
describe('@Tool({ parameters })', () => {
  const parameters = {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1 },
      count: { type: 'integer', minimum: 1 },
      mode: { oneOf: [{ const: 'a' }, { const: 'b' }] },
    },
    required: ['path'],
    additionalProperties: false,
  };

  @Tool({ name: 'given', description: 'Given parameters', args: Args, parameters })
  class Given {
    execute(args: Args): string {
      return report(args);
    }
  }

  it('serves the schema verbatim, as newTool does, whatever its keywords', () => {
    const tool = toolFromInstance(new Given());
    expect(JSON.stringify(tool.parameters)).toBe(JSON.stringify(parameters));
    const plain = newTool({
      name: 'given',
      description: 'Given parameters',
      parameters,
      execute: () => text(''),
    });
    expect(definitionHash(tool)).toBe(definitionHash(plain));
  });

  it('does not validate against it: the tool decides', async () => {
    expect(seen(await run(new Given(), '{"count":0,"mode":"z","more":true}')).args).toEqual({
      count: 0,
    });
  });

  it('decodes into the arguments class when it can be expressed', async () => {
    const raw = '{"path":"/x","when":"2024-05-01T12:00:00Z","inner":{"deep":true}}';
    expect(seen(await run(new Given(), raw))).toMatchObject({
      isArgs: true,
      whenIsDate: true,
      innerIsInner: true,
    });
    expect((await run(new Given(), '{"count":"x"}')).error?.message).toBe(
      'invalid arguments: count: expected integer, got "x"',
    );
    expect((await run(new Given(), '{')).error?.message).toBe(
      'invalid arguments: unexpected end of JSON input',
    );
  });

  it('does not read the class for a schema, so a recursive one is fine', async () => {
    class TreeNode {
      @Param() name!: string;
      @Param('', { items: () => TreeNode }) children!: TreeNode[];
    }
    @Tool({ name: 'tree', args: TreeNode, parameters: { type: 'object' } })
    class Tree {
      execute(args: TreeNode): string {
        return `${args instanceof TreeNode} ${JSON.stringify(args)}`;
      }
    }
    expect(() => schemaOf(TreeNode)).toThrow(DecoratorError);
    const outcome = await run(new Tree(), '{"name":"root","children":[]}');
    expect(outcome.result?.output).toBe('true {"name":"root","children":[]}');
  });

  it('without an arguments class, hands the decoded arguments object to the tool', async () => {
    @Tool({ name: 'raw', parameters: { type: 'object', properties: { q: { type: 'string' } } } })
    class Raw {
      execute(args: object): string {
        return JSON.stringify(args);
      }
    }
    expect((await run(new Raw(), '{"q":"x","n":[1]}')).result?.output).toBe('{"q":"x","n":[1]}');
    expect((await run(new Raw(), '"q"')).error?.message).toBe(
      'invalid arguments: expected object, got "q"',
    );
  });

  it('keeps a strict flag as the author’s claim', () => {
    @Tool({ name: 'claimed', parameters: { type: 'object' }, strict: true })
    class Claimed {
      execute(): string {
        return '';
      }
    }
    const tool = toolFromInstance(new Claimed());
    expect(isStrict(tool)).toBe(true);
    expect(tool.parameters).toEqual({ type: 'object' });
  });

  it('must be a JSON Schema object', () => {
    @Tool({ name: 'bad', parameters: [] as never, validate: 'no' as never })
    class Bad {
      execute(): string {
        return '';
      }
    }
    expect(() => toolFromInstance(new Bad())).toThrow(
      /Bad: @Tool validate must be true or false\n {2}- Bad: @Tool parameters must be a JSON Schema object/,
    );
  });
});
