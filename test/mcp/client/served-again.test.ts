// A remote server's tools served again (a composition, a gateway): the served check of
// their schemas, which the server wrote, must hold nothing up, as the client's check of
// their structured content holds nothing up.
import { connectMcp, McpToolServer } from 'agenttool/mcp';
import { overMemory } from '../server/helpers';
import { RawServer } from './raw-server';

// Each definition naming the last twice: 2^30 subschemas on the way to `{}`.
const defs: Record<string, unknown> = { d0: { type: 'object' } };
for (let i = 1; i <= 30; i++)
  defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };

const tools = [
  {
    name: 'catastrophic',
    inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } },
    outputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } },
  },
  // RE2 has no look-ahead: nothing is checked here, and the server checks its own.
  {
    name: 'lookahead',
    inputSchema: { type: 'object', properties: { s: { type: 'string', pattern: '^(?!-)' } } },
  },
  { name: 'expanding', inputSchema: { $defs: defs, $ref: '#/$defs/d30' } },
];

test("a remote server's schemas are checked in bounded time when served again", async () => {
  const server = await new RawServer({
    tools,
    call: ({ params }) => ({
      content: [{ type: 'text', text: 'ran' }],
      structuredContent:
        params['name'] === 'catastrophic' ? { s: `${'a'.repeat(40)}!` } : undefined,
    }),
  }).start();
  const remote = await connectMcp({ transport: server.clientTransport });
  const served = new McpToolServer(remote.tools());
  const { client, close } = await overMemory(served);
  try {
    const started = Date.now();
    // With JavaScript's engine each check took the process for good (2^40 steps).
    const refused = await client.callTool({
      name: 'catastrophic',
      arguments: { s: `${'a'.repeat(40)}!` },
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('pattern');
    const lookahead = await client.callTool({ name: 'lookahead', arguments: { s: '-x' } });
    expect(lookahead.content).toEqual([{ type: 'text', text: 'ran' }]);
    const expanding = await client.callTool({ name: 'expanding', arguments: {} });
    expect(expanding.content).toEqual([{ type: 'text', text: 'ran' }]);
    expect(Date.now() - started).toBeLessThan(5000);
  } finally {
    await close();
    await served.close();
    await remote.close();
  }
});
