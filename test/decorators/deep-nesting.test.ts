import {
  Executor,
  type JobOutcome,
  type JsonObject,
  type JsonValue,
  PanicError,
  Param,
  Tool,
  ValidationError,
  toolFromInstance,
} from 'agenttool';

// Arguments nested too deeply are refused through a decorated tool's execute, run by
// the executor, as an `invalid arguments:` error naming the limit: never a stack
// overflow turned into a panic. (Go's encoding/json refuses past its own limit with
// `invalid character '[' exceeded max depth`; ours is 1000, see MAX_JSON_DEPTH.)

class Payload {
  @Param('Anything', { type: 'any', optional: true }) data?: unknown;
}

@Tool({ name: 'validated', args: Payload })
class Validated {
  execute(): string {
    return 'ran';
  }
}

@Tool({ name: 'unvalidated', args: Payload, validate: false })
class Unvalidated {
  execute(): string {
    return 'ran';
  }
}

@Tool({ name: 'given', args: Payload, parameters: { type: 'object' } })
class Given {
  execute(): string {
    return 'ran';
  }
}

class Supplied {
  static jsonSchema(): JsonObject {
    return { type: 'object' };
  }
}

@Tool({ name: 'supplied', args: Supplied })
class SuppliedSchema {
  execute(): string {
    return 'ran';
  }
}

@Tool({ name: 'echo', args: Payload })
class Echo {
  execute(args: Payload): unknown {
    return args.data;
  }
}

const deepText = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

async function run(instance: object, args: string, value?: JsonValue): Promise<JobOutcome> {
  const call = value === undefined ? { id: 'c1', args } : { id: 'c1', args, value };
  const [outcome] = await new Executor().results([{ tool: toolFromInstance(instance), call }]);
  return outcome!;
}

const VALIDATED =
  "invalid arguments: not valid JSON: invalid character '[' exceeded max depth of 1000";
const DECODED = "invalid arguments: invalid character '[' exceeded max depth of 1000";

describe.each([5_000, 100_000])('arguments %i deep through the executor', (depth) => {
  const raw = `{"data":${deepText(depth)}}`;

  it.each<[string, object, string]>([
    ['a validated tool', new Validated(), VALIDATED],
    ['a tool with validate: false', new Unvalidated(), DECODED],
    ['a tool with given parameters', new Given(), DECODED],
    ['a tool whose class supplies its schema', new SuppliedSchema(), DECODED],
  ])('%s refuses them as invalid arguments', async (_label, instance, message) => {
    const outcome = await run(instance, raw);
    expect(outcome.error).toBeInstanceOf(ValidationError);
    expect(outcome.error).not.toBeInstanceOf(PanicError);
    expect(outcome.error?.message).toBe(message);
  });

  it('refuses them when handed over decoded too', async () => {
    const value = JSON.parse(raw) as JsonValue;
    for (const instance of [
      new Validated(),
      new Unvalidated(),
      new Given(),
      new SuppliedSchema(),
    ]) {
      const outcome = await run(instance, raw, value);
      expect(outcome.error).toBeInstanceOf(ValidationError);
      expect(outcome.error?.message).toMatch(/exceeded max depth of 1000$/);
    }
  });
});

describe('at the limit', () => {
  it('runs the tool, and its output that deep is written', async () => {
    const data = deepText(999);
    const outcome = await run(new Echo(), `{"data":${data}}`);
    expect(outcome.result?.output).toBe(data);
  });

  it('refuses an output deeper than the limit', async () => {
    // The tool wraps its arguments' data in two more arrays.
    @Tool({ name: 'wrap', args: Payload })
    class Wrap {
      execute(args: Payload): unknown {
        return [[args.data]];
      }
    }
    const outcome = await run(new Wrap(), `{"data":${deepText(997)}}`);
    expect(outcome.result?.output).toBe(`[[${deepText(997)}]]`);
    const deeper = await run(new Wrap(), `{"data":${deepText(999)}}`);
    expect(deeper.error).not.toBeInstanceOf(PanicError);
    expect(deeper.error?.message).toBe('encode result: json: exceeded max depth of 1000');
  });
});
