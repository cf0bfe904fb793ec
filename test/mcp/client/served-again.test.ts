// A remote server's tools served again (a composition, a gateway): the served check of
// their schemas, which the server wrote, must hold nothing up, as the client's check of
// their structured content holds nothing up.
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { newTool } from 'agenttool';
import { connectMcp, McpToolServer } from 'agenttool/mcp';
import { elicitationOf } from '../../../src/mcp/client/elicitation';
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
    // With JavaScript's engine each check took the process for good (2^40 steps): a
    // check that hung would end the test at its timeout.
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
  } finally {
    await close();
    await served.close();
    await remote.close();
  }
});

test("a remote server's question, passed on to the client, is checked in bounded time too", async () => {
  // What a composition asks its client for a server's elicitation/create: the question
  // as the client reads it, its schema the server's.
  const question = elicitationOf({
    mode: 'form',
    message: 'name?',
    requestedSchema: {
      type: 'object',
      properties: { s: { type: 'string', pattern: '^(a+)+$' } },
    },
  } as Parameters<typeof elicitationOf>[0]);
  const served = new McpToolServer([
    newTool({
      name: 'asks',
      description: 'passes a server question on',
      execute: async (_call, ctx) => ({ output: JSON.stringify(await ctx.ask(question)) }),
    }),
  ]);
  const connected = await overMemory(served, { capabilities: { elicitation: { form: {} } } });
  connected.client.setRequestHandler(ElicitRequestSchema, () => ({
    action: 'accept',
    content: { s: `${'a'.repeat(40)}!` },
  }));
  try {
    // A check that hung would end the test at its timeout; this one refuses the answer.
    const result = await connected.client.callTool({ name: 'asks', arguments: {} });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('pattern');
  } finally {
    await connected.close();
    await served.close();
  }
});
