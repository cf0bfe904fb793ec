// A message nested deeper than MAX_JSON_DEPTH outside a tool's arguments is refused as
// an invalid request, saying so: the SDK's schemas walk capabilities and `_meta`
// recursively and overflowed the stack on such a message, which then failed as an
// internal error of the server's (500, -32603, a RangeError reported). Arguments nested
// that deep stay the tool's to refuse, in the contract's words (limits.test.ts).
import { MAX_JSON_DEPTH, newTool } from 'agenttool';
import { McpToolServer } from 'agenttool/mcp';

const TOO_DEEP = `Invalid request: the message nests objects and arrays more than ${MAX_JSON_DEPTH} deep outside a tool's arguments`;

const reported: unknown[] = [];
const server = new McpToolServer(
  [newTool({ name: 'echo', execute: (call) => ({ output: call.args }) })],
  { onError: (_message, error) => reported.push(error) },
);
afterAll(() => server.close());
beforeEach(() => {
  reported.length = 0;
});

/** An object `levels` deep: `{"a":{"a":...1}}`. */
const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

function post(body: string, headers: Record<string, string>): Request {
  return new Request('http://localhost/mcp', {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      ...headers,
    },
    body,
  });
}

const modernMeta = (capabilities: string): string =>
  `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"},"io.modelcontextprotocol/clientCapabilities":${capabilities}}`;

const MODERN = {
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/list',
};

describe('a message nested too deep outside the arguments', () => {
  test('2026-07-28: refused with 400 and -32600 saying so, for its id; nothing reported', async () => {
    const caps = `{"experimental":{"x":${nested(2000)}}}`;
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":${modernMeta(caps)}}}`;
    const response = await server.handler().fetch(post(body, MODERN));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32600, message: TOO_DEEP },
    });
    expect(reported).toEqual([]);
  });

  test('the 2025 era: an initialize with capabilities that deep is refused the same way', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"experimental":${nested(5000)}},"clientInfo":{"name":"raw","version":"0"}}}`;
    const response = await server.handler().fetch(post(body, {}));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      id: 1,
      error: { code: -32600, message: TOO_DEEP },
    });
    expect(reported).toEqual([]);
  });

  test('the limit is counted from the message: 1000 levels are served, 1001 refused', async () => {
    // The message is one level, params two, _meta three, capabilities four, and
    // `experimental` holds the rest.
    const at = (levels: number) =>
      `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":${modernMeta(`{"experimental":${nested(levels - 4)}}`)}}}`;
    const served = await server.handler().fetch(post(at(MAX_JSON_DEPTH), MODERN));
    expect(served.status).toBe(200);
    expect(JSON.stringify(await served.json())).toContain('"name":"echo"');
    const refused = await server.handler().fetch(post(at(MAX_JSON_DEPTH + 1), MODERN));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: -32600, message: TOO_DEEP } });
  });

  test("arguments that deep still reach the tool's refusal in the contract's words", async () => {
    const body = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"deep":${nested(5000)}},"_meta":${modernMeta('{}')}}}`;
    const response = await server
      .handler()
      .fetch(post(body, { ...MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' }));
    expect(response.status).toBe(200);
    expect(JSON.stringify(await response.json())).toContain(
      "invalid arguments: not valid JSON: invalid character '{' exceeded max depth of 1000",
    );
  });
});
