/**
 * SEP-2243 on our client (revision 2026-07-28): a call mirrors each argument its tool's
 * schema marks with `x-mcp-header` into an `Mcp-Param-<name>` header (Base64 as
 * `=?base64?…?=` where a header cannot carry the text), and a tool whose declarations
 * are invalid is left out of the tool list with a warning naming it. Our own server
 * refuses a 2026-07-28 call whose headers and arguments disagree (-32020), so a call
 * that passes carried the right headers. The 2025 era does neither.
 */
import { createContext, newTool, text, type Tool } from 'agenttool';
import { connectMcp, McpToolServer, type RemoteTools } from 'agenttool/mcp';
import {
  encodeParamValue,
  paramHeaderValues,
  scanParamHeaders,
} from '../../../src/mcp/client/param-headers';

/** A tool `deploy` that marks two arguments, and two tools whose declarations are invalid. */
function served(): McpToolServer {
  return new McpToolServer(
    [
      newTool({
        name: 'deploy',
        description: 'Deploys to a region',
        parameters: {
          type: 'object',
          properties: {
            region: { type: 'string', 'x-mcp-header': 'Region' },
            replicas: { type: 'integer', 'x-mcp-header': 'Replicas' },
            note: { type: 'string' },
          },
          required: ['region'],
        },
        execute: (call) => {
          const args = JSON.parse(call.args) as { region: string; replicas?: number };
          return text(`deployed to ${args.region} x${args.replicas ?? 1}`);
        },
      }),
      newTool({
        name: 'twice_named',
        description: 'Declares one header name twice, in two cases',
        parameters: {
          type: 'object',
          properties: {
            a: { type: 'string', 'x-mcp-header': 'Zone' },
            b: { type: 'string', 'x-mcp-header': 'zone' },
          },
        },
        execute: () => text('never'),
      }),
      newTool({
        name: 'on_an_object',
        description: 'Declares a header on an object property',
        parameters: {
          type: 'object',
          properties: { target: { type: 'object', 'x-mcp-header': 'Target' } },
        },
        execute: () => text('never'),
      }),
    ],
    { name: 'headers' },
  );
}

interface Connected {
  readonly remote: RemoteTools;
  /** The `Mcp-Param-*` headers of each `tools/call` that reached the server. */
  readonly sent: Record<string, string>[];
  stop(): Promise<void>;
}

/** Our HTTP client, in `protocol`'s era, against the server's fetch handler in memory. */
async function connect(protocol: 'modern' | 'legacy'): Promise<Connected> {
  const server = served();
  const handler = server.handler();
  const sent: Record<string, string>[] = [];
  const remote = await connectMcp({
    transport: {
      url: 'http://localhost/mcp',
      fetch: (url, init) => {
        const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : {};
        if ((body as { method?: string }).method === 'tools/call') {
          sent.push(
            Object.fromEntries(
              [...new Headers(init?.headers).entries()].filter(([name]) =>
                name.startsWith('mcp-param-'),
              ),
            ),
          );
        }
        return handler.fetch(new Request(url, init));
      },
    },
    protocol,
    notificationGrace: 0,
  });
  return { remote, sent, stop: async () => (await remote.close(), await server.close()) };
}

/** The output of a call of the listed tool `name` with `args`. */
async function run(remote: RemoteTools, name: string, args: unknown): Promise<unknown> {
  const tool = remote.tools().find((t) => t.name === name) as Tool;
  const call = { id: 'call_1', args: JSON.stringify(args) };
  return (await tool.execute(call, createContext({ call }))).output;
}

describe('x-mcp-header arguments (SEP-2243)', () => {
  let warnings: string[];
  let spy: jest.SpyInstance;

  beforeEach(() => {
    warnings = [];
    // Ours only: whatever else warns on the way is not this test's business.
    spy = jest.spyOn(process, 'emitWarning').mockImplementation((warning) => {
      if (String(warning).includes('x-mcp-header')) warnings.push(String(warning));
    });
  });
  afterEach(() => spy.mockRestore());

  it('2026-07-28: a call carries its marked arguments in Mcp-Param-* headers, which the server checks', async () => {
    const c = await connect('modern');
    try {
      expect(c.remote.era).toBe('modern');
      await expect(
        run(c.remote, 'deploy', { region: 'eu-north', replicas: 3, note: 'n' }),
      ).resolves.toBe('deployed to eu-north x3');
      // Non-ASCII and a space at an end go as Base64; an argument left out has no header.
      await expect(run(c.remote, 'deploy', { region: ' Zürich' })).resolves.toBe(
        'deployed to  Zürich x1',
      );
      expect(c.sent).toEqual([
        { 'mcp-param-region': 'eu-north', 'mcp-param-replicas': '3' },
        { 'mcp-param-region': `=?base64?${Buffer.from(' Zürich').toString('base64')}?=` },
      ]);
    } finally {
      await c.stop();
    }
  });

  it('2026-07-28: a tool whose declarations are invalid is left out, with a warning naming it', async () => {
    const c = await connect('modern');
    try {
      expect(c.remote.tools().map((t) => t.name)).toEqual(['deploy']);
      expect(warnings).toEqual([
        expect.stringMatching(
          /^mcp: list tools: tool "twice_named" is left out: its x-mcp-header declarations are invalid \(SEP-2243\): property b: x-mcp-header "zone" repeats "Zone"/,
        ),
        expect.stringMatching(
          /^mcp: list tools: tool "on_an_object" is left out: .*only allowed on a property of type string, integer or boolean, not "object"/,
        ),
      ]);
      // Listed again, the same tools are left out without a second warning.
      await c.remote.refresh();
      expect(c.remote.tools().map((t) => t.name)).toEqual(['deploy']);
      expect(warnings).toHaveLength(2);
    } finally {
      await c.stop();
    }
  });

  it('2025 era: every tool is listed and no call carries Mcp-Param-* headers', async () => {
    const c = await connect('legacy');
    try {
      expect(c.remote.tools().map((t) => t.name)).toEqual([
        'deploy',
        'twice_named',
        'on_an_object',
      ]);
      await expect(run(c.remote, 'deploy', { region: 'eu-north', replicas: 2 })).resolves.toBe(
        'deployed to eu-north x2',
      );
      expect(c.sent).toEqual([{}]);
      expect(warnings).toEqual([]);
    } finally {
      await c.stop();
    }
  });
});

describe('scanParamHeaders', () => {
  const invalid = (schema: unknown): string => {
    const scan = scanParamHeaders(schema);
    if (scan.valid) throw new Error('expected an invalid schema');
    return scan.reason;
  };
  const prop = (p: Record<string, unknown>): unknown => ({ type: 'object', properties: { p } });

  it('finds declarations through chains of properties, at any depth', () => {
    expect(
      scanParamHeaders({
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          target: {
            type: 'object',
            properties: { zone: { type: 'integer', 'x-mcp-header': 'Zone' } },
          },
          plain: { type: 'string' },
        },
      }),
    ).toEqual({
      valid: true,
      headers: [
        { path: ['region'], name: 'Region' },
        { path: ['target', 'zone'], name: 'Zone' },
      ],
    });
    expect(scanParamHeaders(undefined)).toEqual({ valid: true, headers: [] });
  });

  it.each([
    ['an empty name', prop({ type: 'string', 'x-mcp-header': '' }), 'non-empty string'],
    ['a name with a space', prop({ type: 'string', 'x-mcp-header': 'My Region' }), 'HTTP token'],
    ['a name with a colon', prop({ type: 'string', 'x-mcp-header': 'Region:A' }), 'HTTP token'],
    ['a non-ASCII name', prop({ type: 'string', 'x-mcp-header': 'Région' }), 'HTTP token'],
    ['a name with a tab', prop({ type: 'string', 'x-mcp-header': 'Region\t1' }), 'HTTP token'],
    ['a number property', prop({ type: 'number', 'x-mcp-header': 'Score' }), 'not "number"'],
    ['an array property', prop({ type: 'array', 'x-mcp-header': 'Items' }), 'not "array"'],
    ['a null property', prop({ type: 'null', 'x-mcp-header': 'Nil' }), 'not "null"'],
    ['an untyped property', prop({ 'x-mcp-header': 'Any' }), 'untyped'],
    ['the root', { type: 'string', 'x-mcp-header': 'Root' }, 'the schema root'],
    [
      'a property under items',
      {
        type: 'object',
        properties: {
          list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } },
        },
      },
      'through "properties" alone',
    ],
    [
      'a property under anyOf',
      { anyOf: [{ type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] },
      'through "properties" alone',
    ],
    [
      'a definition',
      { type: 'object', $defs: { id: { type: 'string', 'x-mcp-header': 'Id' } } },
      'through "properties" alone',
    ],
  ])('refuses %s', (_what, schema, reason) => {
    expect(invalid(schema)).toContain(reason);
  });
});

describe('paramHeaderValues', () => {
  const declared = [
    { path: ['s'], name: 'S' },
    { path: ['i'], name: 'I' },
    { path: ['b'], name: 'B' },
    { path: ['n'], name: 'N' },
    { path: ['o', 'deep'], name: 'Deep' },
  ];

  it('writes strings as they are, integers in decimal, booleans as true/false, and skips null', () => {
    expect(
      paramHeaderValues(declared, { s: 'us-west 1', i: -42, b: false, n: null, o: { deep: true } }),
    ).toEqual({
      'Mcp-Param-S': 'us-west 1',
      'Mcp-Param-I': '-42',
      'Mcp-Param-B': 'false',
      'Mcp-Param-Deep': 'true',
    });
    expect(paramHeaderValues(declared, { i: 2 ** 60, s: { nested: 1 } })).toEqual({});
  });

  it.each([
    ['non-ASCII', 'Hello, 世界'],
    ['a leading space', ' padded'],
    ['a trailing space', 'padded '],
    ['a tab', '\tindented'],
    ['a line break', 'line1\r\nline2'],
    ['the empty string', ''],
    ['the Base64 form itself', '=?base64?eA==?='],
  ])('writes %s as Base64', (_what, value) => {
    expect(encodeParamValue(value)).toBe(
      `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`,
    );
  });

  it('writes printable ASCII with inner spaces as it is', () => {
    expect(encodeParamValue('SELECT * FROM users')).toBe('SELECT * FROM users');
  });
});
