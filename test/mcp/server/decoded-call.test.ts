import { type Call, createContext, newTool, Param, Tool, toolFromInstance } from 'agenttool';
import { serveTools } from 'agenttool/mcp';
import { firstText, overMemory } from './helpers';

/** A tool that keeps every call it receives, and reads nothing of it. */
function keeper(calls: Call[]) {
  return newTool({
    name: 'keep',
    description: 'Keeps its call',
    parameters: { type: 'object', properties: {}, required: [] },
    execute: (call) => {
      calls.push(call);
      return { output: 'kept' };
    },
  });
}

class EchoArgs {
  @Param('Text') text!: string;
  @Param('Times', { type: 'integer' }) times!: number;
}

@Tool({ name: 'echo', description: 'Repeats text', args: EchoArgs })
class Echo {
  execute(args: EchoArgs): string {
    return args.text.repeat(args.times);
  }
}

describe('the call a served tool receives', () => {
  const calls: Call[] = [];
  const server = serveTools([keeper(calls), toolFromInstance(new Echo())]);
  afterAll(() => server.close());

  async function call(name: string, args: Record<string, unknown>): Promise<string> {
    const connected = await overMemory(server);
    try {
      return firstText(await connected.client.callTool({ name, arguments: args }));
    } finally {
      await connected.close();
    }
  }

  test('flat arguments arrive decoded, frozen, with args their exact JSON text', async () => {
    calls.length = 0;
    await call('keep', { b: 'x', a: 2.5, c: true, d: null });
    const [received] = calls;
    expect(received?.value).toEqual({ b: 'x', a: 2.5, c: true, d: null });
    expect(Object.isFrozen(received?.value)).toBe(true);
    expect(received?.args).toBe('{"b":"x","a":2.5,"c":true,"d":null}');
    expect(JSON.parse(received!.args)).toEqual(received?.value);
  });

  test('a copy of the call (a spread) keeps the same args and value', async () => {
    calls.length = 0;
    await call('keep', { n: 1 });
    const copy: Call = { ...calls[0]!, id: 'copy' };
    expect(copy.args).toBe('{"n":1}');
    expect(copy.value).toEqual({ n: 1 });
  });

  test('nested arguments arrive as text only, written once at the start', async () => {
    calls.length = 0;
    await call('keep', { list: [1, 2], map: { k: 'v' } });
    const [received] = calls;
    expect(received?.value).toBeUndefined();
    expect(received?.args).toBe('{"list":[1,2],"map":{"k":"v"}}');
  });

  test('no arguments arrive as an empty object', async () => {
    calls.length = 0;
    const connected = await overMemory(server);
    try {
      await connected.client.callTool({ name: 'keep' });
    } finally {
      await connected.close();
    }
    expect(calls[0]?.value).toEqual({});
    expect(calls[0]?.args).toBe('{}');
  });

  test('a decorated tool runs on the decoded arguments and still validates', async () => {
    expect(await call('echo', { text: 'ab', times: 3 })).toBe('ababab');
    expect(await call('echo', { text: 'ab', times: 1.5 })).toMatch(
      /^invalid arguments: validating root: validating \/properties\/times: /,
    );
  });
});

describe('a decorated tool given a decoded call', () => {
  const tool = toolFromInstance(new Echo());

  function decodedCall(value: Record<string, unknown>): Call {
    return {
      id: 'c1',
      get args(): string {
        throw new Error('args was parsed although value was given');
      },
      value: value as NonNullable<Call['value']>,
    };
  }

  test('uses value and never reads args', async () => {
    const call = decodedCall({ text: 'x', times: 2 });
    const result = await tool.execute(call, createContext({ call }));
    expect(result.output).toBe('xx');
  });

  test('validates value with the contract messages', async () => {
    const call = decodedCall({ text: 'x' });
    await expect(tool.execute(call, createContext({ call }))).rejects.toThrow(
      'invalid arguments: missing required property "times"',
    );
  });
});
