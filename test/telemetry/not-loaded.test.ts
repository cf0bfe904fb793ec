/**
 * Costs nothing when unused: with `@opentelemetry/api` installed (it is, here) and
 * nothing registered, a batch, a served call and a call through `connectMcp` never load
 * the API. The mock counts every load.
 */
const mockLoads: string[] = [];
jest.mock('@opentelemetry/api', () => {
  mockLoads.push('@opentelemetry/api');
  return {};
});

import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createContext, Executor, newTool, text } from 'agenttool';
import { connectMcp, serveTools } from 'agenttool/mcp';

test('nothing registered: a batch and an MCP round trip never load the OpenTelemetry API', async () => {
  const tool = newTool({
    name: 'echo',
    execute: (call, ctx) => {
      ctx.logMessage('info', 'a line');
      return text(call.args);
    },
  });
  const outcomes = await new Executor().results([{ tool, call: { id: 'c', args: '{}' } }]);
  expect(outcomes[0]?.result?.output).toBe('{}');

  const server = serveTools([tool]);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  await server.connect(serverEnd);
  const remote = await connectMcp({ transport: clientEnd, onLog: () => undefined });
  try {
    const remoteEcho = remote.tools()[0];
    const result = await remoteEcho?.execute({ id: 'r', args: '{}' }, createContext());
    expect(result?.output).toBe('{}');
  } finally {
    await remote.close();
    await server.close();
  }
  expect(mockLoads).toEqual([]);
});
