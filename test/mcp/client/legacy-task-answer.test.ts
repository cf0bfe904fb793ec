/**
 * A 2025-era server that answers a call with a task (the 2026-07-28 shape,
 * `resultType: "task"`), which no call of this client asked for: in a 2025-era session a
 * task comes only for a call that asks for one. The call fails at once, saying so,
 * rather than taking the answer for an empty result or following a task it never asked
 * for. The server is a plain script started as a host starts one.
 */
import { createContext } from 'agenttool';
import { connectMcp } from 'agenttool/mcp';
import { rawStdioServer } from '../../support/raw-stdio-server';

const SERVER = rawStdioServer(`
  if (message.id === undefined) continue;
  if (message.method === 'initialize') {
    send({ id: message.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'tasking', version: '1.0.0' } } });
  } else if (message.method === 'tools/list') {
    send({ id: message.id, result: { tools: [{ name: 'slow', inputSchema: { type: 'object' } }] } });
  } else if (message.method === 'tools/call') {
    send({ id: message.id, result: { resultType: 'task', taskId: 't1', status: 'working', pollIntervalMs: 20 } });
  } else {
    send({ id: message.id, result: { resultType: 'complete', taskId: 't1', status: 'working', pollIntervalMs: 20 } });
  }
`);

test('a 2025-era call answered with a task it did not ask for fails, saying so', async () => {
  const remote = await connectMcp({
    transport: { command: process.execPath, args: ['-e', SERVER], stderr: 'ignore' },
    protocol: 'legacy',
  });
  try {
    expect(remote.era).toBe('legacy');
    const slow = remote.tools().find((tool) => tool.name === 'slow');
    const call = { id: 'call_1', args: '{}' };
    await expect(slow!.execute(call, createContext({ call }))).rejects.toMatchObject({
      code: 'PROTOCOL',
      message:
        'mcp: call "slow": the server answered with a task, which a call in a 2025-era session gets only when it asks for one (this client does not)',
    });
  } finally {
    await remote.close();
  }
}, 30_000);
