// A 2026-07-28 request is served by an instance made for it, with the handlers of the
// request's method only: the method its Mcp-Method header names, which the SDK checks
// against the body before the instance is made. Every method the server serves is still
// answered, and a header that names another method than the body is refused before any
// handler runs. Raw requests, as a host sends them, through the web-standard handler.
import {
  Complete,
  McpResource,
  McpResourceTemplate,
  mcpResourceFromInstance,
  newTool,
  Param,
  Prompt,
  promptFromInstance,
} from 'agenttool';
import { McpToolServer } from 'agenttool/mcp';

@Prompt({ name: 'greet', description: 'Greets' })
class Greet {
  get() {
    return 'Hello';
  }
}

@McpResource({ uri: 'test://readme', name: 'readme' })
class Readme {
  read() {
    return '# Hello';
  }
}

class NoteVars {
  @Param('The note id') id!: string;
}

@McpResourceTemplate({ uriTemplate: 'notes://{id}', name: 'note', vars: NoteVars })
class Note {
  read(vars: NoteVars) {
    return `note ${vars.id}`;
  }

  @Complete('id')
  ids(value: string) {
    return ['7', '70', '8'].filter((id) => id.startsWith(value));
  }
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Answer {
  readonly status: number;
  readonly body: {
    id?: unknown;
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  };
}

let calls = 0;
const reported: string[] = [];
const stacks: (string | undefined)[] = [];
const server = new McpToolServer(
  {
    tools: [
      newTool({
        name: 'echo',
        execute: (call) => {
          calls++;
          return Promise.resolve({ output: call.args });
        },
      }),
    ],
    prompts: [promptFromInstance(new Greet())],
    resources: [mcpResourceFromInstance(new Readme()), mcpResourceFromInstance(new Note())],
  },
  {
    onError: (message, error) => {
      reported.push(`${message}: ${String(error)}`);
      stacks.push((error as Error).stack);
    },
  },
);
const handler = server.handler();
let id = 0;

/** Sends one 2026-07-28 request for `method`, its Mcp-Method header naming it unless `headers` say otherwise. */
async function send(
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await handler.fetch(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method,
        params: { ...params, _meta: { ...META, ...(params['_meta'] as object | undefined) } },
      }),
    }),
  );
  const text = await response.text();
  // A streamed answer carries the message in its one data line.
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text);
  return { status: response.status, body: JSON.parse(json) as Answer['body'] };
}

afterAll(() => server.close());

test.each([
  ['tools/list', {}, {}],
  ['tools/call', { name: 'echo', arguments: { said: 'hi' } }, { 'mcp-name': 'echo' }],
  ['prompts/list', {}, {}],
  ['prompts/get', { name: 'greet' }, { 'mcp-name': 'greet' }],
  ['resources/list', {}, {}],
  ['resources/templates/list', {}, {}],
  ['resources/read', { uri: 'notes://7' }, { 'mcp-name': 'notes://7' }],
  [
    'completion/complete',
    { ref: { type: 'ref/resource', uri: 'notes://{id}' }, argument: { name: 'id', value: '7' } },
    {},
  ],
  ['server/discover', {}, {}],
])('%s is answered by an instance made for it', async (method, params, headers) => {
  const answer = await send(method, params, headers);
  expect(answer.body.error).toBeUndefined();
  expect(answer.status).toBe(200);
  expect(answer.body.result).toBeDefined();
});

test('the instance serves what its method asks', async () => {
  const call = await send(
    'tools/call',
    { name: 'echo', arguments: { said: 'hi' } },
    { 'mcp-name': 'echo' },
  );
  expect(JSON.stringify(call.body.result)).toContain('hi');
  const read = await send('resources/read', { uri: 'notes://7' }, { 'mcp-name': 'notes://7' });
  expect(JSON.stringify(read.body.result)).toContain('note 7');
  const completed = await send('completion/complete', {
    ref: { type: 'ref/resource', uri: 'notes://{id}' },
    argument: { name: 'id', value: '7' },
  });
  expect(completed.body.result?.completion).toEqual(
    expect.objectContaining({ values: ['7', '70'] }),
  );
  const tools = await send('tools/list');
  expect(tools.body.result?.tools).toEqual([expect.objectContaining({ name: 'echo' })]);
});

test('a method the server does not serve is not found, as before', async () => {
  const answer = await send('sampling/createMessage', { messages: [], maxTokens: 1 });
  expect(answer.body.error?.code).toBe(-32601);
  // ping is not a method of the 2026-07-28 era (the SDK's own server answers the same).
  expect((await send('ping')).body.error?.code).toBe(-32601);
});

test('an Mcp-Method header that names another method than the body is refused first', async () => {
  const before = calls;
  const answer = await send(
    'tools/call',
    { name: 'echo', arguments: { said: 'hi' } },
    { 'mcp-method': 'tools/list', 'mcp-name': 'echo' },
  );
  expect(answer.status).toBe(400);
  expect(answer.body.error?.message).toMatch(/Mcp-Method/i);
  // The request's id, which the SDK's refusal left out (null).
  expect(answer.body.id).toBe(id);
  expect(calls).toBe(before);
  expect(reported.at(-1)).toMatch(/method-header-mismatch/);
  // The client's fault, answered: reported in one line, without the SDK's stack.
  expect(stacks.at(-1)).toMatch(
    /^Error: Rejected inbound request \(method-header-mismatch\): [^\n]+$/,
  );
});

test('a protocol version the server does not serve is refused, and reported in one line', async () => {
  const answer = await send(
    'tools/call',
    {
      name: 'echo',
      arguments: { said: 'hi' },
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
    },
    { 'mcp-protocol-version': '2099-01-01', 'mcp-name': 'echo' },
  );
  expect(answer.body.error?.code).toBe(-32022);
  expect(answer.body.error?.message).toBe('Unsupported protocol version: 2099-01-01');
  expect(reported.at(-1)).toMatch(/Unsupported protocol version: 2099-01-01/);
  expect(stacks.at(-1)).toBe('Error: Unsupported protocol version: 2099-01-01');
});

test('an Mcp-Name header that names another tool than the body is refused with the request id', async () => {
  const answer = await send(
    'tools/call',
    { name: 'echo', arguments: { said: 'hi' } },
    // What a client sends as UTF-8 for "echó", read as Latin-1.
    { 'mcp-name': 'ech\u00c3\u00b3' },
  );
  expect(answer.status).toBe(400);
  expect(answer.body.id).toBe(id);
  expect(answer.body.error?.message).toMatch(/Mcp-Name/i);
});

test("params the SDK's schema refuses are invalid params (-32602), saying what is wrong and where", async () => {
  const listed = await send('tools/list', { cursor: 5 });
  expect(listed.body.error).toEqual({
    code: -32602,
    message:
      'Invalid params for tools/list: params.cursor: Invalid input: expected string, received number',
  });
  const junk = await send('tools/list', { cursor: 'junk' });
  expect(junk.body.error).toEqual({
    code: -32602,
    message:
      'mcp: invalid cursor "junk": tools/list answers every tool at once and gives no nextCursor; send none',
  });
  const completed = await send('completion/complete', { ref: 5, argument: { name: 'id' } });
  expect(completed.body.error?.code).toBe(-32602);
  expect(completed.body.error?.message).toMatch(
    /^Invalid params for completion\/complete: params\.ref/,
  );
  expect(completed.body.error?.message).not.toContain('\n');
  // tools/call's params, which the SDK checks before the handler: the same, in one line.
  for (const [args, got] of [
    ['echo hi', 'string'],
    [null, 'null'],
  ] as const) {
    const called = await send(
      'tools/call',
      { name: 'echo', arguments: args },
      { 'mcp-name': 'echo' },
    );
    expect(called.body.error).toEqual({
      code: -32602,
      message: `Invalid params for tools/call: params.arguments: Invalid input: expected record, received ${got}`,
    });
  }
});
