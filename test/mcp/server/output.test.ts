/**
 * Output schemas and structured results, served by our server and read by our client in
 * both protocol eras: the 2025 era over the SDK's in-memory pair, 2026-07-28 through the
 * server's fetch handler called in process.
 */
import {
  createContext,
  newTool,
  outputSchemaOf,
  Param,
  type Result,
  text,
  Tool,
  type Tool as ToolContract,
  toolFromInstance,
} from 'agenttool';
import { connectMcp, McpToolServer, type RemoteTools } from 'agenttool/mcp';
import { connectInMemory, withInMemoryClient } from '../../support/in-memory';

class Reading {
  @Param('Degrees Celsius') celsius!: number;
  @Param('The city') place!: string;
}

class CityArgs {
  @Param('The city') city!: string;
}

@Tool({ name: 'weather', description: 'The weather now', args: CityArgs, output: Reading })
class Weather {
  execute(args: CityArgs): Reading {
    return Object.assign(new Reading(), { celsius: 21, place: args.city });
  }
}

@Tool({ name: 'wrong_weather', description: 'A reading of the wrong type', output: Reading })
class WrongWeather {
  execute(): object {
    return { celsius: 'warm', place: 'Oslo' };
  }
}

@Tool({ name: 'chatty_weather', description: 'Text, no reading', output: Reading })
class ChattyWeather {
  execute(): string {
    return 'It is warm';
  }
}

function served(): McpToolServer {
  return new McpToolServer(
    [
      toolFromInstance(new Weather()),
      toolFromInstance(new WrongWeather()),
      toolFromInstance(new ChattyWeather()),
      newTool({
        name: 'summary',
        description: 'A summary with structured data and no schema',
        execute: (): Result => ({ ...text('Three items'), structured: { n: 3 } }),
      }),
    ],
    { name: 'weather', version: '1.0.0' },
  );
}

interface Connected {
  readonly remote: RemoteTools;
  stop(): Promise<void>;
}

const eras: [string, () => Promise<Connected>][] = [
  [
    '2025 era',
    async () => {
      const server = served();
      const remote = await connectInMemory(server);
      return { remote, stop: async () => (await remote.close(), await server.close()) };
    },
  ],
  [
    '2026-07-28',
    async () => {
      const server = served();
      const handler = server.handler();
      const remote = await connectMcp({
        transport: {
          url: 'http://localhost/mcp',
          fetch: (url, init) => handler.fetch(new Request(url, init)),
        },
        protocol: 'modern',
        notificationGrace: 0,
      });
      return { remote, stop: async () => (await remote.close(), await server.close()) };
    },
  ],
];

function find(remote: RemoteTools, name: string): ToolContract {
  const tool = remote.tools().find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  return tool;
}

async function call(tool: ToolContract, args = '{}'): Promise<Result> {
  const c = { id: 'call_1', args };
  return tool.execute(c, createContext({ call: c }));
}

describe.each(eras)('structured results, %s', (_era, connect) => {
  let connected: Connected;
  beforeAll(async () => {
    connected = await connect();
  });
  afterAll(() => connected.stop());

  it('lists the output class as the remote tool’s output schema', () => {
    const schema = {
      type: 'object',
      properties: {
        celsius: { type: 'number', description: 'Degrees Celsius' },
        place: { type: 'string', description: 'The city' },
      },
      required: ['celsius', 'place'],
    };
    expect(outputSchemaOf(find(connected.remote, 'weather'))).toEqual(schema);
    expect(outputSchemaOf(find(connected.remote, 'summary'))).toBeUndefined();
  });

  it('gives the structured value to the host and its JSON, once, to the model', async () => {
    const result = await call(find(connected.remote, 'weather'), '{"city":"Paris"}');
    expect(result.structured).toEqual({ celsius: 21, place: 'Paris' });
    expect(result.output).toBe('{"celsius":21,"place":"Paris"}');
  });

  it('refuses a result that does not fit the schema, naming the field', async () => {
    await expect(call(find(connected.remote, 'wrong_weather'))).rejects.toThrow(
      'mcp: tool "wrong_weather": invalid structured content: celsius: expected number, got "warm"',
    );
  });

  it('refuses a tool with an output schema that returns no structured result', async () => {
    await expect(call(find(connected.remote, 'chatty_weather'))).rejects.toThrow(
      'mcp: tool "chatty_weather" declares an output schema and returned no JSON object',
    );
  });

  it('serves a structured value without a schema, the tool’s own text beside it', async () => {
    const result = await call(find(connected.remote, 'summary'));
    expect(result.structured).toEqual({ n: 3 });
    // The text is not the JSON, so the structured value is appended, as Go's client does.
    expect(result.output).toBe('Three items\n{"n":3}');
  });
});

describe('the served tools/call answer', () => {
  it('carries structuredContent beside the JSON as text', async () => {
    await withInMemoryClient(served(), async (remote) => {
      const raw = await remote.session.request(
        { method: 'tools/call', params: { name: 'weather', arguments: { city: 'Rome' } } },
        {
          '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value }) },
        },
      );
      expect(raw).toMatchObject({
        content: [{ type: 'text', text: '{"celsius":21,"place":"Rome"}' }],
        structuredContent: { celsius: 21, place: 'Rome' },
      });
    });
  });
});

describe('adding a tool with an output schema', () => {
  it('refuses an output schema that is not an object schema, before serving anything', () => {
    const server = new McpToolServer([], { name: 's' });
    const odd = {
      ...newTool({ name: 'odd', execute: () => text('') }),
      outputSchema: { type: 'array' },
    };
    expect(() => server.addTools(odd)).toThrow(
      'mcp: tool "odd": output schema: must be a JSON Schema object with "type": "object"',
    );
    expect(server.tools).toEqual([]);
  });

  it('checks a schema outside the contract’s subset with a general validator', async () => {
    const server = new McpToolServer(
      [
        newTool({
          name: 'bounded',
          outputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } },
          execute: () => text('{"n":0}'),
        }),
      ],
      { name: 's' },
    );
    await withInMemoryClient(server, async (remote) => {
      await expect(call(find(remote, 'bounded'))).rejects.toThrow(
        /^mcp: tool "bounded": invalid structured content: .*n.*1/,
      );
    });
  });
});
