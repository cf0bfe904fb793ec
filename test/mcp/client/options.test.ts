/**
 * connectMcp's options are checked before anything connects: each mistake fails with
 * `mcp: connect: <option> must be ...` (code INVALID_OPTIONS), never a TypeError, and
 * none is silently accepted.
 */
import { connectMcp, type ConnectOptions } from 'agenttool/mcp';
import { RawServer } from './raw-server';

describe('connectMcp options', () => {
  const refused: [options: Record<string, unknown>, message: string][] = [
    [{ resources: 'x' }, 'mcp: connect: resources must be a list of { resource, tools }'],
    [{ resources: [null] }, 'mcp: connect: resources[0] must be { resource, tools }'],
    [{ confined: 5 }, 'mcp: connect: confined must be a list of { by, tools }'],
    [{ confined: ['bash'] }, 'mcp: connect: confined[0] must be { by, tools }'],
    [{ signal: 'x' }, 'mcp: connect: signal must be an AbortSignal'],
    [
      { elicitationHandler: 'x' },
      'mcp: connect: elicitationHandler must be a function (request, { signal }) => ElicitResult',
    ],
    [{ onRefreshError: 'x' }, 'mcp: connect: onRefreshError must be a function'],
    [{ clientInfo: 'x' }, 'mcp: connect: clientInfo must be { name: string, version: string }'],
    [
      { clientInfo: { name: 'host' } },
      'mcp: connect: clientInfo must be { name: string, version: string }',
    ],
    [{ elicitation: 'yes' }, 'mcp: connect: elicitation must be true or false, got "yes"'],
    [
      { capabilities: 'all' },
      'mcp: connect: capabilities must be an object of MCP client capabilities',
    ],
  ];

  it.each(refused)('refuses %j before connecting', async (bad, message) => {
    const server = await new RawServer({ tools: [{ name: 't' }] }).start();
    const options = { transport: server.clientTransport, ...bad } as unknown as ConnectOptions;
    await expect(connectMcp(options)).rejects.toMatchObject({ code: 'INVALID_OPTIONS', message });
    expect(server.received).toEqual([]);
  });

  it.each([undefined, null, 'http://x.test/mcp'])('refuses %j as the options', async (bad) => {
    await expect(connectMcp(bad as unknown as ConnectOptions)).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      message: 'mcp: connect: options must be an object { transport, ... }',
    });
  });

  it('takes a signal, a client info, capabilities and elicitation given well', async () => {
    const server = await new RawServer({ tools: [{ name: 't' }] }).start();
    const remote = await connectMcp({
      transport: server.clientTransport,
      signal: new AbortController().signal,
      clientInfo: { name: 'host', version: '2' },
      capabilities: {},
      elicitation: false,
      resources: [],
      confined: [],
    });
    expect(server.clientInfo).toEqual({ name: 'host', version: '2' });
    expect(remote.tools().map((t) => t.name)).toEqual(['t']);
    await remote.close();
  });
});
