import {
  type JsonObject,
  newTool,
  Param,
  Tool,
  type Tool as AgentTool,
  toolFromInstance,
  ValidationError,
} from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import { firstText, overMemory } from './helpers';

/*
 * The served check says what the Go binding's server says: mcpserver/mcp.go validates
 * every call with google/jsonschema-go before the tool runs and answers
 * `invalid arguments: <jsonschema-go's error>`. The expected texts follow jsonschema-go's
 * jsonschema/validate.go (the order of checks and each message), jsonschema/util.go
 * (`wrapf`: `validating <schema>: ` per schema entered; `jsonType`), jsonschema/resolve.go
 * (`root`, and JSON Pointers for the schema paths) and Go's fmt (`%v` of a decoded JSON
 * value, `%q` of a []string, `%s` of a *big.Rat, `%f`).
 */

function echo(name: string, parameters?: JsonObject): AgentTool {
  return newTool({
    name,
    description: name,
    ...(parameters === undefined ? {} : { parameters }),
    execute: (call) => ({ output: `ran ${call.args}` }),
  });
}

const text = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };

async function served(tool: AgentTool, args: Record<string, unknown>): Promise<string> {
  const server = serveTools([tool]);
  const connected = await overMemory(server);
  try {
    return firstText(await connected.client.callTool({ name: tool.name, arguments: args }));
  } finally {
    await connected.close();
    await server.close();
  }
}

describe('the fixtures of mcpserver/validate_test.go, with the whole text', () => {
  const upper = echo('upper', text);
  const stats = echo('stats', { ...text, additionalProperties: false });

  test('missing required', async () => {
    expect(await served(stats, {})).toBe(
      'invalid arguments: validating root: required: missing properties: ["text"]',
    );
  });

  test('wrong type', async () => {
    expect(await served(upper, { text: 1 })).toBe(
      'invalid arguments: validating root: validating /properties/text: type: 1 has type "integer", want "string"',
    );
  });

  test('extra property under strict', async () => {
    expect(await served(stats, { text: 'a', more: true })).toBe(
      'invalid arguments: validating root: unexpected additional properties ["more"]',
    );
  });

  test('extra property allowed when not strict; no schema accepts anything', async () => {
    expect(await served(upper, { text: 'a', more: true })).toBe('ran {"text":"a","more":true}');
    expect(await served(echo('bare'), { anything: [1, 2] })).toBe('ran {"anything":[1,2]}');
    expect(await served(stats, { text: 'ABC' })).toBe('ran {"text":"ABC"}');
  });
});

describe('the contract subset, in jsonschema-go order and words', () => {
  const strict = echo('strict', {
    type: 'object',
    properties: {
      path: { type: 'string' },
      level: { type: 'string', enum: ['low', 'high'] },
      count: { type: ['integer', 'null'] },
      tags: { type: 'array', items: { type: 'string' } },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      'a/b~c': { type: 'boolean' },
    },
    required: ['path', 'level'],
    additionalProperties: false,
  });

  test.each<[string, Record<string, unknown>, string]>([
    // validate.go: properties, then additionalProperties, then required.
    [
      'an additional property is met before a missing one',
      { more: 1 },
      'validating root: unexpected additional properties ["more"]',
    ],
    [
      'every additional property, in the order of the arguments',
      { z: 1, path: 'p', b: 2, level: 'low' },
      'validating root: unexpected additional properties ["z" "b"]',
    ],
    [
      'every missing property, in the order of required',
      {},
      'validating root: required: missing properties: ["path" "level"]',
    ],
    [
      'a property is checked before required',
      { level: 'mid' },
      'validating root: validating /properties/level: enum: mid does not equal any of: [low high]',
    ],
    [
      'a nullable type is a union',
      { path: 'p', level: 'low', count: 'x' },
      'validating root: validating /properties/count: type: x has type "string", want one of "integer, null"',
    ],
    [
      'a fraction is a number, not an integer',
      { path: 'p', level: 'low', count: 1.5 },
      'validating root: validating /properties/count: type: 1.5 has type "number", want one of "integer, null"',
    ],
    [
      'items: each schema entered is named by its path',
      { path: 'p', level: 'low', tags: ['a', 2] },
      'validating root: validating /properties/tags: validating /properties/tags/items: type: 2 has type "integer", want "string"',
    ],
    [
      'a map checks its values against additionalProperties',
      { path: 'p', level: 'low', labels: { a: 'x', b: false } },
      'validating root: validating /properties/labels: validating /properties/labels/additionalProperties: type: false has type "boolean", want "string"',
    ],
    [
      'a name in a schema path is a JSON Pointer segment',
      { path: 'p', level: 'low', 'a/b~c': 'yes' },
      'validating root: validating /properties/a~1b~0c: type: yes has type "string", want "boolean"',
    ],
    [
      'null is the invalid reflect.Value',
      { path: null, level: 'low' },
      'validating root: validating /properties/path: type: <invalid reflect.Value> has type "null", want "string"',
    ],
    [
      'an object prints as a Go map, keys sorted, a null inside as <nil>',
      { path: { b: 1, a: [1, 'x', null, true] }, level: 'low' },
      'validating root: validating /properties/path: type: map[a:[1 x <nil> true] b:1] has type "object", want "string"',
    ],
    [
      'numbers print as float64 %v',
      { path: 1000000, level: 'low' },
      'validating root: validating /properties/path: type: 1e+06 has type "integer", want "string"',
    ],
    [
      'small numbers too',
      { path: 0.00001, level: 'low' },
      'validating root: validating /properties/path: type: 1e-05 has type "number", want "string"',
    ],
  ])('%s', async (_name, args, expected) => {
    expect(await served(strict, args)).toBe(`invalid arguments: ${expected}`);
  });

  test('2.0 is an integer (util.go jsonType)', async () => {
    expect(await served(strict, { path: 'p', level: 'low', count: 2.0 })).toMatch(/^ran /);
  });

  test('names are quoted as Go %q quotes them', async () => {
    const odd = echo('odd', { type: 'object', required: ['a\u0001\u2028'] });
    expect(await served(odd, {})).toBe(
      'invalid arguments: validating root: required: missing properties: ["a\\x01\\u2028"]',
    );
  });

  test('object keywords apply without a type, as jsonschema-go applies them', async () => {
    const untyped = echo('untyped', { properties: { a: { type: 'string' } }, required: ['a'] });
    expect(await served(untyped, { a: 1 })).toBe(
      'invalid arguments: validating root: validating /properties/a: type: 1 has type "integer", want "string"',
    );
    expect(await served(untyped, { a: 'x' })).toBe('ran {"a":"x"}');
  });

  test('a tool with no parameters takes the empty object schema, extra members too', async () => {
    expect(await served(echo('none'), { x: 1 })).toBe('ran {"x":1}');
  });
});

describe("a decorated tool checks its own arguments once, and the model reads the Go server's words", () => {
  class EchoArgs {
    @Param('Text') text!: string;
    @Param('Times', { type: 'integer' }) times!: number;
  }

  @Tool({ name: 'echo', description: 'Repeats text', args: EchoArgs, strict: true })
  class Echo {
    execute(args: EchoArgs): string {
      return args.text.repeat(args.times);
    }
  }

  test('the model reads jsonschema-go, as from a Go tool served by mcpserver', async () => {
    const tool = toolFromInstance(new Echo());
    expect(await served(tool, { text: 'ab', times: 1.5 })).toBe(
      'invalid arguments: validating root: validating /properties/times: type: 1.5 has type "number", want "integer"',
    );
    expect(await served(tool, { text: 'ab', times: 2, x: 1 })).toBe(
      'invalid arguments: validating root: unexpected additional properties ["x"]',
    );
    expect(await served(tool, { text: 'ab', times: 2 })).toBe('abab');
  });

  test('a tool that says it validates its own arguments is not checked before it runs', async () => {
    // It says so and does not: the server trusts it, so the arguments reach it unchecked.
    const seen: string[] = [];
    const trusting = newTool({
      name: 'trusting',
      description: 'trusting',
      parameters: text,
      validatesArguments: true,
      execute: (call) => {
        seen.push(call.args);
        return { output: 'ran' };
      },
    });
    expect(await served(trusting, { text: 1 })).toBe('ran');
    expect(seen).toEqual(['{"text":1}']);
    // Without the claim, the server checks first and the tool never sees them.
    expect(await served(echo('checked', text), { text: 1 })).toMatch(
      /^invalid arguments: validating root: validating \/properties\/text: type/,
    );
  });

  test("a refusal the served check would not make stays in the tool's own words", async () => {
    const refusing = newTool({
      name: 'refusing',
      description: 'refusing',
      parameters: text,
      validatesArguments: true,
      execute: () => {
        // As class-validator's constraints refuse what the schema allows.
        throw new ValidationError('text', 'must be an email');
      },
    });
    expect(await served(refusing, { text: 'not-an-email' })).toBe(
      'invalid arguments: text: must be an email',
    );
  });
});

describe('schemas outside the subset: validated as Go validates them, in its words', () => {
  test.each<[string, JsonObject, Record<string, unknown>, string]>([
    [
      'minimum: the number as a big.Rat, the bound with %f',
      { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } },
      { n: 0 },
      'validating root: validating /properties/n: minimum: 0/1 is less than 1.000000',
    ],
    [
      'exclusiveMaximum with a fraction',
      { type: 'object', properties: { n: { type: 'number', exclusiveMaximum: 0.5 } } },
      { n: 0.75 },
      'validating root: validating /properties/n: exclusiveMaximum: 3/4 is greater than or equal to 0.500000',
    ],
    [
      'pattern',
      { type: 'object', properties: { s: { type: 'string', pattern: '^x' } } },
      { s: 'y' },
      'validating root: validating /properties/s: pattern: "y" does not match regular expression "^x"',
    ],
    [
      'minLength counts code points',
      { type: 'object', properties: { s: { type: 'string', minLength: 3 } } },
      { s: 'é😀' },
      'validating root: validating /properties/s: minLength: "é😀" contains 2 Unicode code points, fewer than 3',
    ],
    [
      'properties before required, though ajv reports required first',
      {
        type: 'object',
        properties: { n: { type: 'integer', minimum: 1 } },
        required: ['n', 'm'],
        additionalProperties: false,
      },
      { n: 0, x: 1 },
      'validating root: validating /properties/n: minimum: 0/1 is less than 1.000000',
    ],
    [
      'additional properties before required',
      {
        type: 'object',
        properties: { n: { type: 'integer', minimum: 1 } },
        required: ['n', 'm'],
        additionalProperties: false,
      },
      { n: 1, x: 1, y: 2 },
      'validating root: unexpected additional properties ["x" "y"]',
    ],
    [
      'oneOf matching none',
      { type: 'object', properties: { a: { oneOf: [{ type: 'string' }, { type: 'integer' }] } } },
      { a: true },
      'validating root: validating /properties/a: oneOf: did not validate against any of [<anonymous schema> <anonymous schema>]',
    ],
    [
      'oneOf matching two',
      { type: 'object', properties: { a: { oneOf: [{ type: 'integer' }, { type: 'number' }] } } },
      { a: 1 },
      'validating root: validating /properties/a: oneOf: validated against both <anonymous schema> and <anonymous schema>',
    ],
    [
      "anyOf: each branch's own error, joined by newlines",
      { type: 'object', properties: { a: { anyOf: [{ type: 'string' }, { minimum: 5 }] } } },
      { a: 1 },
      'validating root: validating /properties/a: anyOf: did not validate against any of [<anonymous schema> <anonymous schema>]:\n' +
        'validating /properties/a/anyOf/0: type: 1 has type "integer", want "string"\n' +
        'validating /properties/a/anyOf/1: minimum: 1/1 is less than 5.000000',
    ],
    [
      'allOf enters each schema',
      { allOf: [{ type: 'object' }, { required: ['k'] }] },
      {},
      'validating root: validating /allOf/1: required: missing properties: ["k"]',
    ],
    [
      'not',
      { type: 'object', properties: { a: { not: { type: 'string' } } } },
      { a: 'x' },
      'validating root: validating /properties/a: not: validated against <anonymous schema>',
    ],
    [
      'a false subschema is {"not": {}}',
      { type: 'object', properties: { a: false } },
      { a: 1 },
      'validating root: validating /properties/a: not: validated against <anonymous schema>',
    ],
    [
      'const prints the instance and the value with %v',
      { type: 'object', properties: { a: { const: 'x' } } },
      { a: 'y' },
      'validating root: validating /properties/a: const: y does not equal x',
    ],
    [
      'uniqueItems names the later item first',
      { type: 'object', properties: { a: { type: 'array', uniqueItems: true } } },
      { a: [1, 2, 1.0] },
      'validating root: validating /properties/a: uniqueItems: array items 2 and 0 are equal',
    ],
    [
      'minItems',
      { type: 'object', properties: { a: { type: 'array', minItems: 2 } } },
      { a: [1] },
      'validating root: validating /properties/a: minItems: array length 1 is less than 2',
    ],
    [
      'then enters the then schema',
      {
        type: 'object',
        if: { properties: { a: { const: 1 } }, required: ['a'] },
        then: { required: ['b'] },
      },
      { a: 1 },
      'validating root: validating /then: required: missing properties: ["b"]',
    ],
    [
      'dependentRequired',
      { type: 'object', dependentRequired: { a: ['b', 'c'] } },
      { a: 1, c: 2 },
      'validating root: dependentRequired["a"]: missing properties ["b"]',
    ],
    [
      'a $ref enters the referring schema, then the definition',
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { type: 'object', properties: { city: { type: 'string' } } } },
        properties: { address: { $ref: '#/$defs/address' } },
      },
      { address: { city: 7 } },
      'validating root: validating /properties/address: validating /$defs/address: validating /$defs/address/properties/city: type: 7 has type "integer", want "string"',
    ],
    [
      'a recursive $ref: each reference followed is a schema entered',
      {
        type: 'object',
        $defs: {
          node: {
            type: 'object',
            properties: { v: { type: 'string' }, next: { $ref: '#/$defs/node' } },
          },
        },
        properties: { root: { $ref: '#/$defs/node' } },
      },
      { root: { v: 'a', next: { v: 3 } } },
      'validating root: validating /properties/root: validating /$defs/node: validating /$defs/node/properties/next: validating /$defs/node: validating /$defs/node/properties/v: type: 3 has type "integer", want "string"',
    ],
    [
      'a schema with an $id is named by it',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        definitions: { pos: { $id: 'urn:pos', type: 'integer', minimum: 1 } },
        properties: { n: { $ref: 'urn:pos' } },
      },
      { n: -2 },
      'validating root: validating /properties/n: validating urn:pos: minimum: -2/1 is less than 1.000000',
    ],
    [
      'patternProperties enters the pattern',
      { type: 'object', patternProperties: { '^x': { type: 'string' } } },
      { xa: 1, b: 2 },
      'validating root: validating /patternProperties/^x: type: 1 has type "integer", want "string"',
    ],
    [
      'propertyNames checks each name as a string',
      { type: 'object', propertyNames: { pattern: '^[a-z]+$' } },
      { ok: 1, Bad: 2 },
      'validating root: validating /propertyNames: pattern: "Bad" does not match regular expression "^[a-z]+$"',
    ],
    [
      'unevaluatedProperties: false is {"not": {}}',
      { type: 'object', properties: { a: {} }, unevaluatedProperties: false },
      { a: 1, b: 2 },
      'validating root: validating /unevaluatedProperties: not: validated against <anonymous schema>',
    ],
    [
      'contains prints the array with %s',
      { type: 'object', properties: { a: { type: 'array', contains: { type: 'string' } } } },
      { a: [1, 2] },
      'validating root: validating /properties/a: contains: [%!s(float64=1) %!s(float64=2)] does not have an item matching <anonymous schema>',
    ],
    [
      'minContains counts the items that match',
      {
        type: 'object',
        properties: { a: { type: 'array', contains: { type: 'string' }, minContains: 2 } },
      },
      { a: ['a', 2] },
      'validating root: validating /properties/a: minContains: contains validated 1 items, less than 2',
    ],
    [
      'draft-07 dependencies',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        dependencies: { a: ['b'] },
      },
      { a: 1 },
      'validating root: dependentRequired["a"]: missing properties ["b"]',
    ],
    [
      'draft-07 additionalItems: false',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { a: { type: 'array', items: [{ type: 'string' }], additionalItems: false } },
      },
      { a: ['a', 1] },
      'validating root: validating /properties/a: validating /properties/a/additionalItems: not: validated against <anonymous schema>',
    ],
    [
      'enum values print with %v',
      { type: 'object', properties: { e: { enum: [{ a: 1 }, null, 2] } } },
      { e: 3 },
      'validating root: validating /properties/e: enum: 3 does not equal any of: [map[a:1] <nil> 2]',
    ],
    [
      'multipleOf: the exact rational of the number',
      { type: 'object', properties: { m: { type: 'number', multipleOf: 0.1 } } },
      { m: 0.35 },
      'validating root: validating /properties/m: multipleOf: 3152519739159347/9007199254740992 is not a multiple of 0.100000',
    ],
    [
      'a root with an $id is named by it',
      { $id: 'https://example.com/s', type: 'object', required: ['a'] },
      {},
      'validating https://example.com/s: required: missing properties: ["a"]',
    ],
    [
      'a reference to the root enters the root again',
      { type: 'object', properties: { self: { $ref: '#' }, n: { type: 'integer' } } },
      { self: { self: { n: 'x' } } },
      'validating root: validating /properties/self: validating root: validating /properties/self: validating root: validating /properties/n: type: x has type "string", want "integer"',
    ],
    [
      'a reference under allOf',
      { allOf: [{ $ref: '#/$defs/a' }], $defs: { a: { required: ['z'] } } },
      {},
      'validating root: validating /allOf/0: validating /$defs/a: required: missing properties: ["z"]',
    ],
    [
      'const null is <nil>',
      { type: 'object', properties: { n: { const: null } } },
      { n: 1 },
      'validating root: validating /properties/n: const: 1 does not equal <nil>',
    ],
  ])('%s', async (_name, schema, args, expected) => {
    expect(await served(echo('general', schema), args)).toBe(`invalid arguments: ${expected}`);
  });

  test('and accepted as Go accepts them', async () => {
    const tool = echo('general', {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 1 },
        a: { oneOf: [{ type: 'string' }, { type: 'boolean' }] },
      },
    });
    expect(await served(tool, { n: 1, a: true })).toBe('ran {"n":1,"a":true}');
  });
});

describe('a schema the validator cannot use is refused when the tool is added (mcpserver/validate_test.go)', () => {
  test.each<[string, JsonObject, string | RegExp]>([
    [
      'unknown draft',
      { $schema: 'http://example.com/unknown', type: 'object' },
      // mcp.go resolveSchema
      'mcpserver: tool "odd": schema: unsupported $schema "http://example.com/unknown": the validator handles draft-07 and 2020-12',
    ],
    ['not a schema', { type: 5 }, /^mcpserver: tool "odd": schema: /],
    [
      'unresolvable ref',
      { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
      /^mcpserver: tool "odd": schema: /,
    ],
  ])('%s', (_name, schema, expected) => {
    const server = serveTools([]);
    expect(() => server.addTools(echo('upper', text), echo('odd', schema))).toThrow(expected);
    // Nothing is registered when any tool fails.
    expect(server.tools).toEqual([]);
  });

  test('the name is quoted as %q quotes it', () => {
    const server = serveTools([]);
    expect(() => server.addTools(echo('a\u0001', { type: 5 }))).toThrow(
      /^mcpserver: tool "a\\x01": schema: /,
    );
  });
});
