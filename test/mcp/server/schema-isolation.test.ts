import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { type JsonObject, newTool, type Tool } from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import { firstText, overMemory } from './helpers';

/*
 * The Go binding resolves each tool's schema on its own (mcpserver/mcp.go resolveSchema:
 * jsonschema-go's Resolve(nil)): a `$id` is the tool's own business, and a `$ref` reaches
 * only what the tool's schema holds.
 */

function echo(name: string, parameters: JsonObject): Tool {
  return newTool({
    name,
    description: name,
    parameters,
    execute: (call) => ({ output: `ran ${call.args}` }),
  });
}

// Outside the contract's subset (`$id`, `minLength`), so it goes to the general validator.
const withId = (id: string): JsonObject => ({
  $id: id,
  type: 'object',
  properties: { text: { type: 'string', minLength: 1 } },
  required: ['text'],
});

async function call(
  server: ReturnType<typeof serveTools>,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const connected = await overMemory(server);
  try {
    return firstText(await connected.client.callTool({ name, arguments: args }));
  } finally {
    await connected.close();
  }
}

// jsonschema-go names a root that has an `$id` by it.
const tooShort = (id: string): string =>
  `invalid arguments: validating ${id}: validating /properties/text: minLength: "" contains 0 Unicode code points, fewer than 1`;

describe('each tool is checked against its own schema alone', () => {
  test('two tools whose schemas carry the same $id are both served and both checked', async () => {
    const server = serveTools([]);
    server.addTools(echo('a', withId('https://example.com/shared.json')));
    server.addTools(echo('b', withId('https://example.com/shared.json')));
    expect(await call(server, 'a', { text: 'x' })).toBe('ran {"text":"x"}');
    expect(await call(server, 'b', { text: '' })).toBe(tooShort('https://example.com/shared.json'));
    await server.close();
  });

  test('a tool removed and added again, with a fresh copy of its schema, is served again', async () => {
    const server = serveTools([]);
    for (let i = 0; i < 3; i++) {
      server.addTools(echo('c', withId('https://example.com/again.json')));
      expect(await call(server, 'c', { text: '' })).toBe(
        tooShort('https://example.com/again.json'),
      );
      expect(server.removeTools('c')).toBe(1);
    }
    await server.close();
  });

  test('a second server in the process serves the same definition', async () => {
    const first = serveTools([echo('d', withId('https://example.com/twice.json'))]);
    const second = serveTools([echo('d', withId('https://example.com/twice.json'))]);
    expect(await call(second, 'd', { text: '' })).toBe(tooShort('https://example.com/twice.json'));
    await first.close();
    await second.close();
  });

  test('a batch that failed leaves nothing behind: the corrected batch is added', () => {
    const server = serveTools([]);
    expect(() =>
      server.addTools(
        echo('e', withId('https://example.com/retry.json')),
        echo('odd', { type: 5 }),
      ),
    ).toThrow(/^mcpserver: tool "odd": schema: /);
    expect(() =>
      server.addTools(
        echo('e', withId('https://example.com/retry.json')),
        echo('odd', withId('https://example.com/odd.json')),
      ),
    ).not.toThrow();
    expect(server.tools.map((tool) => tool.name)).toEqual(['e', 'odd']);
  });

  test("a $ref to another tool's $id is refused when the tool is added, naming it", async () => {
    const server = serveTools([echo('target', withId('https://example.com/target.json'))]);
    expect(() =>
      server.addTools(
        echo('referrer', {
          type: 'object',
          properties: { x: { $ref: 'https://example.com/target.json' } },
        }),
      ),
    ).toThrow(/^mcpserver: tool "referrer": schema: .*https:\/\/example\.com\/target\.json/);
    expect(server.tools.map((tool) => tool.name)).toEqual(['target']);
    await server.close();
  });

  test('a $ref to an $id inside the same schema resolves, and its refusal is phrased', async () => {
    const server = serveTools([
      echo('own', {
        type: 'object',
        properties: { x: { $ref: 'https://example.com/inner.json' } },
        $defs: { inner: withId('https://example.com/inner.json') },
      }),
    ]);
    expect(await call(server, 'own', { x: { text: 'y' } })).toBe('ran {"x":{"text":"y"}}');
    const refused = await call(server, 'own', { x: { text: '' } });
    expect(refused).toBe(
      'invalid arguments: validating root: validating /properties/x: validating https://example.com/inner.json: validating /$defs/inner/properties/text: minLength: "" contains 0 Unicode code points, fewer than 1',
    );
    await server.close();
  });
});

test('a form with an $id outside the subset can be asked on every call', async () => {
  const server = serveTools([
    newTool({
      name: 'ask',
      description: 'asks for an email',
      execute: async (_call, ctx) => {
        const answer = await ctx.ask({
          message: 'email?',
          schema: {
            $id: 'https://example.com/form.json',
            type: 'object',
            properties: { email: { type: 'string', format: 'email', minLength: 3 } },
            required: ['email'],
          },
        });
        return { output: JSON.stringify(answer) };
      },
    }),
  ]);
  const connected = await overMemory(server, { capabilities: { elicitation: { form: {} } } });
  connected.client.setRequestHandler(ElicitRequestSchema, () => ({
    action: 'accept',
    content: { email: 'a@example.com' },
  }));
  try {
    for (let i = 0; i < 3; i++) {
      const result = await connected.client.callTool({ name: 'ask', arguments: {} });
      expect(JSON.parse(firstText(result))).toEqual({
        action: 'accept',
        content: { email: 'a@example.com' },
      });
    }
  } finally {
    await connected.close();
    await server.close();
  }
});
