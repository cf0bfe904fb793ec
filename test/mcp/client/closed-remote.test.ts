/**
 * What a closed connection still tells: the era it spoke, the server that answered and
 * its instructions, as they were (the SDK's client forgets them when it closes).
 */
import { newTool } from 'agenttool';
import { connectMcp, serveTools } from 'agenttool/mcp';

const echo = newTool({
  name: 'echo',
  description: 'Echoes its text',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: (call) => ({ output: call.args }),
});

const server = serveTools([echo], {
  name: 'closing',
  version: '2.0.0',
  instructions: 'Call echo.',
});
let url = '';
beforeAll(async () => {
  url = (await server.listenHttp({ port: 0 })).url;
});
afterAll(() => server.close());

describe.each(['modern', 'legacy'] as const)('a %s connection, once closed', (protocol) => {
  it('reads the era, the server and the instructions it had', async () => {
    const remote = await connectMcp({ transport: { url }, protocol });
    const open = {
      era: remote.era,
      serverInfo: remote.serverInfo,
      instructions: remote.instructions,
    };
    expect(open).toEqual({
      era: protocol,
      serverInfo: { name: 'closing', version: '2.0.0' },
      instructions: 'Call echo.',
    });
    await remote.close();
    expect({
      era: remote.era,
      serverInfo: remote.serverInfo,
      instructions: remote.instructions,
    }).toEqual(open);
  });
});
