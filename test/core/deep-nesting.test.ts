import {
  AgentToolError,
  MAX_JSON_DEPTH,
  type Schema,
  ValidationError,
  compileSchema,
  decodeArguments,
  definitionHash,
  newTool,
  parseArguments,
  recordOf,
  recordable,
  schemaFromJson,
  text,
  toResult,
  validateArguments,
} from 'agenttool';
// Unit level: the depth walk every JSON reader and writer relies on.
import { depthExceeded } from '../../src/core/json';

/** `depth` arrays inside one another, as text. */
const deepText = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

/** `depth` objects inside one another, built without recursion. */
function deepValue(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

const REFUSED_TEXT =
  "invalid arguments: not valid JSON: invalid character '[' exceeded max depth of 1000";
const REFUSED_VALUE =
  "invalid arguments: not valid JSON: invalid character '{' exceeded max depth of 1000";

describe('the depth limit', () => {
  it('is 1000 levels', () => {
    expect(MAX_JSON_DEPTH).toBe(1000);
    expect(depthExceeded(deepValue(1000))).toBeUndefined();
    expect(depthExceeded(deepValue(1001))).toBe('{');
    expect(depthExceeded(JSON.parse(deepText(1001)))).toBe('[');
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(depthExceeded(cycle)).toBe('{');
  });
});

describe.each([5_000, 100_000])('arguments %i deep', (depth) => {
  const schema: Schema = {
    type: 'object',
    properties: [{ name: 'data', schema: {} }],
  };
  const raw = `{"data":${deepText(depth)}}`;

  it('are refused by parseArguments and validateArguments, naming the limit', () => {
    for (const run of [
      () => parseArguments(raw),
      () => validateArguments(compileSchema(schema), raw),
    ]) {
      const error = thrown(run);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toBe(REFUSED_TEXT);
    }
  });

  it('are refused by decodeArguments, without `not valid JSON:` as Go’s Decode', () => {
    expect((thrown(() => decodeArguments(raw)) as Error).message).toBe(
      "invalid arguments: invalid character '[' exceeded max depth of 1000",
    );
  });

  it('are refused when the text is not JSON either, the first problem first', () => {
    expect((thrown(() => parseArguments(`${raw} x`)) as Error).message).toBe(REFUSED_TEXT);
  });

  it('are refused decoded too, by any compiled validator', () => {
    const value = { data: deepValue(depth) };
    expect(compileSchema(schema)(value)?.message).toBe(REFUSED_VALUE);
    expect(compileSchema({ type: 'object' })(value)?.message).toBe(REFUSED_VALUE);
  });
});

describe.each([5_000, 100_000])('other JSON %i deep', (depth) => {
  it('recordOf refuses it, naming the namespace and the limit', () => {
    const error = thrown(() => recordOf(recordable('deep:data', deepValue(depth))));
    expect(error).toBeInstanceOf(AgentToolError);
    expect((error as AgentToolError).code).toBe('INVALID_RECORD');
    expect((error as Error).message).toBe(
      'agenttool: record deep:data: json: exceeded max depth of 1000',
    );
  });

  it('recordOf refuses raw JSON text that deep', () => {
    const remote = { recordNS: () => 'remote:deep', rawJson: () => deepText(depth) };
    expect((thrown(() => recordOf(remote)) as Error).message).toBe(
      "agenttool: record remote:deep: json: error calling rawJson: invalid character '[' exceeded max depth of 1000",
    );
  });

  it('definitionHash refuses parameters that deep', () => {
    const tool = newTool({
      name: 'deep',
      parameters: { type: 'object', default: deepValue(depth) as never },
      execute: () => text(''),
    });
    const error = thrown(() => definitionHash(tool));
    expect((error as AgentToolError).code).toBe('INVALID_DEFINITION');
    expect((error as Error).message).toBe(
      'definition "deep": parameters: exceeded max depth of 1000',
    );
  });

  it('toResult refuses an output that deep', () => {
    const error = thrown(() => toResult(deepValue(depth)));
    expect((error as AgentToolError).code).toBe('INVALID_OUTPUT');
    expect((error as Error).message).toBe('encode result: json: exceeded max depth of 1000');
  });

  it('schemaFromJson reads a schema that deep as outside the subset', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < depth; i++) schema = { type: 'array', items: schema };
    expect(schemaFromJson(schema as never)).toBeUndefined();
  });

  it('compileSchema refuses a schema model that deep', () => {
    let schema: Schema = { type: 'string' };
    for (let i = 0; i < depth; i++) schema = { type: 'array', items: schema };
    const error = thrown(() => compileSchema(schema));
    expect((error as AgentToolError).code).toBe('INVALID_SCHEMA');
    expect((error as Error).message).toBe(
      'schema: exceeded max depth of 1000: the schema cannot be compiled',
    );
  });
});

describe('JSON at the limit', () => {
  it('is accepted everywhere', () => {
    const raw = deepText(MAX_JSON_DEPTH);
    expect(Array.isArray(parseArguments(raw))).toBe(true);
    expect(recordOf(recordable('deep:ok', JSON.parse(raw)))?.data).toBe(raw);
    expect(toResult(JSON.parse(raw) as unknown[]).output).toBe(raw);
    const inArguments = `{"data":${deepText(MAX_JSON_DEPTH - 1)}}`;
    expect(validateArguments(compileSchema({ type: 'object' }), inArguments)).toEqual(
      JSON.parse(inArguments),
    );
  });
});
