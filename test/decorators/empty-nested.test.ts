import * as fs from 'node:fs';
import * as path from 'node:path';
import { Param, type JsonObject, argumentsParser, schemaOf } from 'agenttool';

// Go: schema.go reflects a struct with no fields (struct{}, the NoArgs type of typed.go)
// as NoArgsSchema, {"type":"object","properties":{},"required":[]}, nested or not, with
// additionalProperties false under strict. The goldens are the contract's no_args ones.
const goldens = path.join(__dirname, '../fixtures/contract/schema.reconstructed');
const golden = (name: string): JsonObject =>
  JSON.parse(fs.readFileSync(path.join(goldens, `${name}.json`), 'utf8')) as JsonObject;

class Options {}

class WithOptions {
  @Param('Search terms') query!: string;
  @Param('No options yet') options!: Options;
  @Param('', { items: () => Options, optional: true }) many?: Options[];
}

describe('a nested arguments class without @Param fields', () => {
  it('is an empty object schema, as Go reflects struct{}', () => {
    const schema = schemaOf(WithOptions);
    const properties = schema.properties as Record<string, JsonObject>;
    expect(properties.options).toEqual({ ...golden('no_args'), description: 'No options yet' });
    expect(JSON.stringify(properties.options)).toBe(
      '{"type":"object","description":"No options yet","properties":{},"required":[]}',
    );
    expect((properties.many as { items: JsonObject }).items).toEqual(golden('no_args'));
  });

  it('is closed under strict', () => {
    const properties = schemaOf(WithOptions, { strict: true }).properties as Record<
      string,
      JsonObject
    >;
    expect(properties.options).toEqual({
      ...golden('no_args_strict'),
      description: 'No options yet',
    });
  });

  it('takes any object (strict: only the empty one) and builds an instance of the class', async () => {
    const loose = argumentsParser(WithOptions);
    const args = await loose('{"query":"q","options":{"ignored":1},"many":[{}]}');
    expect(args.options).toBeInstanceOf(Options);
    expect(args.options).toEqual(new Options());
    expect(args.many?.[0]).toBeInstanceOf(Options);
    const strict = argumentsParser(WithOptions, { strict: true });
    await expect(async () => strict('{"query":"q","options":{"x":1},"many":[]}')).rejects.toThrow(
      'invalid arguments: options: unexpected property "x"',
    );
  });
});
